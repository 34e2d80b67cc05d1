// Every control of the page, bound to the one state by its data-param (the parameter's name):
// selects, checkboxes, number boxes, and sliders (over the declaration's stops where it has any,
// with a typed number box beside each). A control writes the state; the state writes every control
// of the same name back, wherever it is on the page.
import { params, parse, state } from "./state.js";
import { num } from "./format.js";
import { h } from "./dom.js";

function stopsOf(name) { return params[name]?.stops || null; }

function nearest(stops, value) {
  let best = 0;
  for (let i = 1; i < stops.length; i++) if (Math.abs(stops[i] - value) < Math.abs(stops[best] - value)) best = i;
  return best;
}

const digitsOf = (name) => {
  const step = params[name]?.step;
  return step ? Math.max(0, Math.round(-Math.log10(step))) : 0;
};

// What the control says now, as a typed value (undefined if the reader typed something not allowed).
function read(c) {
  const name = c.dataset.param;
  if (c.type === "checkbox") return c.checked;
  const stops = c.type === "range" ? stopsOf(name) : null;
  if (stops) return stops[Number(c.value)];
  return parse(name, c.value);
}

// A value the declaration does not allow is not written to the state: the control says what is
// allowed, in the reader's language, until a good value replaces it.
function complain(c, t) {
  c.setAttribute("aria-invalid", "true");
  const p = params[c.dataset.param];
  let note = c.parentElement.querySelector(".control-error");
  if (!note) {
    note = h("span", { class: "control-error", role: "alert", id: `${c.id || c.dataset.param}-error` });
    c.after(note);
    c.setAttribute("aria-describedby", note.id);
  }
  note.textContent = t("invalid", { name: c.dataset.param, allowed: p.allowed });
}

function clear(c) {
  c.removeAttribute("aria-invalid");
  c.parentElement.querySelector(".control-error")?.remove();
  if (c.getAttribute("aria-describedby")?.endsWith("-error")) c.removeAttribute("aria-describedby");
}

// Show `value` (the state's; for α "measured" the section's own number is kept).
function show(c, value) {
  const name = c.dataset.param;
  if (value === null || value === undefined) return;
  if (c.type === "checkbox") { c.checked = Boolean(value); return; }
  const stops = c.type === "range" ? stopsOf(name) : null;
  if (stops) {
    if (stops[Number(c.value)] !== value) c.value = String(nearest(stops, value));
  } else if (document.activeElement !== c || read(c) !== value) {
    c.value = String(value);
  }
  if (c.type === "range") c.setAttribute("aria-valuetext", num(value, digitsOf(name)));
  clear(c);
}

export function bindControls(root, t) {
  const controls = () => [...root.querySelectorAll("[data-param]")];
  for (const c of controls()) {
    if (c.dataset.bound) continue;
    c.dataset.bound = "1";
    // Sliders follow the thumb; boxes and menus commit on change (Enter or leaving the box).
    const ev = c.type === "range" ? "input" : "change";
    c.addEventListener(ev, () => {
      const v = read(c);
      if (v === undefined || v === null) { complain(c, t); return; }
      clear(c);
      state.set({ [c.dataset.param]: v });
    });
  }
  state.subscribe((names) => {
    for (const c of controls()) if (names.has(c.dataset.param)) show(c, state.get(c.dataset.param));
  });
}
