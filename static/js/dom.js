// Small DOM helpers shared by every widget: build elements, read the page's JSON, fill a
// catalog's string, and the one way to show an error.

// The JSON the server put in <script type="application/json" id=…> ({} if missing or unreadable).
export function readJSON(id) {
  const el = document.getElementById(id);
  if (!el) return {};
  try { return JSON.parse(el.textContent || "{}"); } catch { return {}; }
}

// A catalog's string with its %(name)s slots filled (a slot without a value stays as it is).
export function interpolate(s, vars) {
  return vars ? s.replace(/%\((\w+)\)s/g, (m, k) => String(vars[k] ?? m)) : s;
}

// h("span", {class: "x", text: "y"}, child, ...)
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  return fill(node, attrs, children);
}

// The same for SVG: svg("rect", {x: 0, ...}).
const SVG = "http://www.w3.org/2000/svg";
export function svg(tag, attrs = {}, ...children) {
  return fill(document.createElementNS(SVG, tag), attrs, children);
}

function fill(node, attrs, children) {
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "text") node.textContent = v;
    else if (k === "class") node.setAttribute("class", v);
    else if (k === "style") Object.assign(node.style, v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c);
  return node;
}

// Write a sentence whose "γ = 4"-style formulas must not break across lines: each becomes a
// span.math (white-space: nowrap), as the server's templates mark them.
const FORMULA = /[αγcpq] = [\d.,]*\d/g;
export function setMathText(node, text) {
  node.textContent = "";
  let at = 0;
  for (const m of text.matchAll(FORMULA)) {
    node.append(text.slice(at, m.index), h("span", { class: "math", text: m[0] }));
    at = m.index + m[0].length;
  }
  node.append(text.slice(at));
}

// The one error display: a line at the end of `el` saying what went wrong, in the reader's
// language, announced once; `null` removes it.
export function showError(el, err) {
  let box = el.querySelector(":scope > .widget-error");
  if (err === null || err === undefined) { box?.remove(); return; }
  if (!box) {
    box = h("p", { class: "widget-error", role: "alert" });
    el.append(box);
  }
  box.textContent = String(err && err.message ? err.message : err);
}

// The depth the page shows (main[data-depth]: story, picture or frontier; depth.js changes it).
export function depth() {
  return document.querySelector("main[data-depth]")?.dataset.depth || "picture";
}

// A widget's string at the Story depth, which promises no formulas: `key_story` where the widget's
// strings have one, else `key` (t as ctx.t: a missing key comes back as itself).
export function storyT(t, key, vars) {
  if (depth() !== "story") return t(key, vars);
  const words = t(`${key}_story`, vars);
  return words === `${key}_story` ? t(key, vars) : words;
}
