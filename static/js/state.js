// The page's one state, as TensorFlow Playground keeps it (src/state.ts): one list of parameters
// drives parsing, defaults and the URL. The list is the server's declaration (sim/params.py),
// shipped in <script id="params">; the values the server rendered are in <script id="state">.
//
//   state.get(name)            typed value (null where a parameter is unset, e.g. α "measured")
//   state.set({name: value})   several at once: one "change" for all of them, one URL update
//   state.subscribe(fn)        fn(changedNames: Set) after every change
//   state.query(names)         {name: text} of the values that differ from the defaults
//   state.reads(unit|anchor)   the parameters a section (or a part of one) reads

import { readJSON } from "./dom.js";

const shipped = readJSON("params");
export const params = shipped.params || {};
const units = shipped.units || {};
const sections = shipped.sections || {};
const values = new Map(Object.entries(readJSON("state")));
const listeners = new Set();

// A value from text (the URL, a form control) by its declaration; undefined if not allowed.
export function parse(name, raw) {
  const p = params[name];
  if (!p) return undefined;
  // Empty: the default where the default is itself empty (no α pinned, the book instead of a
  // text), else not a value.
  if (raw === null || raw === undefined || raw === "") return p.default === null || p.default === "" ? p.default : undefined;
  const s = String(raw).trim();
  switch (p.kind) {
    case "int": {
      if (!/^[+-]?\d{1,19}$/.test(s)) return undefined;
      const v = Number(s);
      return v >= p.lo && v <= p.hi ? v : undefined;
    }
    case "float": {
      const v = Number(s);
      return s !== "" && Number.isFinite(v) && v >= p.lo && v <= p.hi ? v : undefined;
    }
    case "bool":
      if (["1", "true"].includes(s.toLowerCase())) return true;
      if (["0", "false"].includes(s.toLowerCase())) return false;
      return undefined;
    case "choice":
      return p.choices.includes(s) ? s : undefined;
    default:
      return s.length <= (p.max_len ?? Infinity) ? s : undefined;
  }
}

// As the URL writes a value (the server's Param.to_url).
export function toUrl(value) {
  if (typeof value === "boolean") return value ? "1" : "0";
  return String(value);
}

function isDefault(name, value) {
  const p = params[name];
  return value === null || value === undefined || value === p.default;
}

export function query(names = Object.keys(params)) {
  const out = {};
  for (const name of names) {
    if (!(name in params)) continue;
    const v = values.get(name);
    if (!isDefault(name, v)) out[name] = toUrl(v);
  }
  return out;
}

function writeUrl() {
  const url = new URL(location.href);
  for (const name of Object.keys(params)) url.searchParams.delete(name);
  for (const [k, v] of Object.entries(query())) url.searchParams.set(k, v);
  history.replaceState(history.state, "", url.pathname + url.search + url.hash);
}

// A teacher's link locked or hid the settings (views/teach.py: controls=locked|hidden): the state
// stays where the link set it, whatever asks to move it (a control, a button that adds or redraws,
// a key), so nothing a reader does changes a number. Opening a "Go further" fold is reading, not a
// setting: it stays free.
export const locked = ["locked", "hidden"].includes(document.documentElement.dataset.controls);
const FREE_WHEN_LOCKED = new Set(["more"]);

export const state = {
  get: (name) => (values.has(name) ? values.get(name) : params[name]?.default ?? null),
  // Typed values only; a value the declaration does not allow is ignored (returns false), and so
  // is every setting of a locked page.
  set(changes) {
    const changed = new Set();
    for (const [name, value] of Object.entries(changes)) {
      if (!(name in params)) continue;
      if (locked && !FREE_WHEN_LOCKED.has(name)) continue;
      if (value !== null && parse(name, toUrl(value)) === undefined) return false;
      if (values.get(name) !== value) { values.set(name, value); changed.add(name); }
    }
    if (!changed.size) return true;
    writeUrl();
    for (const fn of listeners) fn(changed);
    document.dispatchEvent(new CustomEvent("specdec:state", { detail: { names: [...changed] } }));
    return true;
  },
  subscribe(fn) { listeners.add(fn); return () => listeners.delete(fn); },
  query,
  reads: (key) => units[key] || sections[key] || [],
  units: () => Object.keys(units),
  defaults: Object.fromEntries(Object.entries(params).map(([k, p]) => [k, p.default])),
};

// The server replaced values it could not use (and said so in a notice): keep the URL in step.
writeUrl();
