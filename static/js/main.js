// The loader: binds every control to the one state (state.js, controls.js), starts the sections'
// answers (sections.js), finds every [data-widget], imports /static/js/widgets/NAME.js and calls
// mount(el, ctx). Also owns the keys, the language switch and, inside an iframe, the height
// messages to the host page.
import { state } from "./state.js";
import { bindControls } from "./controls.js";
import { sectionOf, startSections } from "./sections.js";
import { h, readJSON } from "./dom.js";
import { tidy } from "./format.js";
import { pageLang } from "./language.js";
import { startPredictions } from "./predict.js";
import { startFolds } from "./folds.js";

const html = document.documentElement;
const lang = pageLang;
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)").matches;

const pageStrings = readJSON("i18n");

function interpolate(s, vars) {
  return vars ? tidy(s.replace(/%\((\w+)\)s|\{(\w+)\}/g, (m, a, b) => String(vars[a ?? b] ?? m))) : s;
}

// Strings of a widget (its data-i18n), else of the page. A key with forms per count
// ({"one": …, "other": …}) takes the form Intl.PluralRules picks for vars.n.
const plurals = new Intl.PluralRules(lang);
function makeT(el) {
  let own = {};
  try { own = el?.dataset.i18n ? JSON.parse(el.dataset.i18n) : {}; } catch { own = {}; }
  return (key, vars) => {
    let s = own[key] ?? pageStrings[key] ?? key;
    if (s && typeof s === "object") s = s[plurals.select(Number(vars?.n ?? 0))] ?? s.other;
    return interpolate(s, vars);
  };
}

// Projector view: every chart with larger type, thicker lines and bigger markers, and no hover
// (nobody hovers on a projector; what a chart says must be on it). One place for every widget.
function projectorPlotly(P) {
  if (P.__projector) return P;
  P.__projector = true;
  const grow = (v, k, floor) => (typeof v === "number" ? Math.max(floor, v * k) : v);
  const thick = (tr) => ({
    ...tr,
    ...(tr.line ? { line: { ...tr.line, width: grow(tr.line.width ?? 2, 2, 4) } } : {}),
    ...(tr.marker ? { marker: { ...tr.marker, size: grow(tr.marker.size ?? 6, 1.5, 9) } } : {}),
    ...(tr.textfont ? { textfont: { ...tr.textfont, size: grow(tr.textfont.size ?? 12, 1.4, 16) } } : {}),
  });
  const big = (l = {}) => ({
    ...l,
    font: { ...(l.font || {}), size: grow(l.font?.size ?? 12, 1.4, 17), color: "#000" },
    height: typeof l.height === "number" ? Math.round(l.height * 1.25) : l.height,
    // Room for the larger tick labels beside and below the axes.
    margin: l.margin ? { ...l.margin, l: grow(l.margin.l, 1.35, 0), b: grow(l.margin.b, 1.3, 0) } : l.margin,
    annotations: l.annotations?.map((a) => ({ ...a, font: { ...(a.font || {}), size: grow(a.font?.size ?? 12, 1.4, 16) } })),
    hovermode: false,
  });
  for (const fn of ["newPlot", "react"]) {
    const orig = P[fn].bind(P);
    P[fn] = (el, data, layout, config) => orig(el, (data || []).map(thick), big(layout), config);
  }
  return P;
}

let plotlyPromise = null;
function loadPlotly() {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!plotlyPromise) {
    plotlyPromise = new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = "/vendor/plotly.min.js";
      s.async = true;
      // The load event comes in the same task as the script's evaluation (a few hundred ms of
      // it): the first chart is drawn in a task of its own, so neither is one long freeze.
      s.onload = () => setTimeout(() => resolve(html.dataset.view === "projector" ? projectorPlotly(window.Plotly) : window.Plotly), 0);
      s.onerror = () => { plotlyPromise = null; reject(new Error("plotly.js failed to load")); };
      document.head.appendChild(s);
    });
  }
  return plotlyPromise;
}

// ---- keys: → step, ← back, space plays or pauses, R resets ----------------------------------
// Only in a widget that has focus and does that action; everywhere else the keys keep their own
// meaning (space scrolls the page, arrows move sliders and menus).
const KEYS = { ArrowRight: "step", ArrowLeft: "back", " ": "play", r: "reset", R: "reset" };
const keyed = new WeakMap();  // widget element -> {action: fn}

function isTyping(target) {
  if (!(target instanceof Element)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag === "INPUT") return !["checkbox", "radio", "button", "submit", "reset"].includes(target.type);
  return false;
}

document.addEventListener("keydown", (e) => {
  if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
  const action = KEYS[e.key];
  if (!action || isTyping(e.target) || !(e.target instanceof Element)) return;
  // Space on a focused button, link or box keeps its own meaning (press, follow, tick).
  if (action === "play" && e.target.closest("button, a, summary, input, [role=tab]")) return;
  for (let w = e.target.closest("[data-widget]"); w; w = w.parentElement?.closest("[data-widget]")) {
    const fn = keyed.get(w)?.[action];
    if (fn) { e.preventDefault(); fn(); return; }
  }
});

// ---- the language switch keeps the settings and the section -----------------------------------
function sectionInView() {
  const y = window.innerHeight * 0.4;
  for (const s of document.querySelectorAll(".plate-section[id]")) {
    const r = s.getBoundingClientRect();
    if (r.top <= y && r.bottom > y) return s.id;
  }
  return "";
}

// A section counts as read once the reader has stayed in it for half a second; scrolling back
// up to the switch passes other sections on the way, too quickly to count.
const DWELL_MS = 500;
let readSection = "";
let viewing = "";
let viewingSince = 0;
function noteSection() {
  const now = performance.now();
  const s = sectionInView();
  if (s === viewing) return;
  if (viewing && now - viewingSince >= DWELL_MS) readSection = viewing;
  viewing = s;
  viewingSince = now;
}
function sectionForSwitch() {
  noteSection();
  return viewing && performance.now() - viewingSince >= DWELL_MS ? viewing : readSection;
}
window.addEventListener("scroll", noteSection, { passive: true });

function updateLinks() {
  // The projector switch keeps the settings too, with view= turned over.
  const vs = document.getElementById("view-switch");
  if (vs) {
    const q = new URLSearchParams(location.search);
    if (vs.dataset.on === "1") q.delete("view"); else q.set("view", "projector");
    const s = q.toString();
    vs.href = location.pathname + (s ? `?${s}` : "") + location.hash;
  }
  const at = sectionForSwitch();
  for (const sw of document.querySelectorAll("a.lang-switch")) {
    const url = new URL(sw.href, location.href);
    url.search = location.search;
    url.hash = at ? `#${at}` : location.hash;
    sw.href = url.pathname + url.search + url.hash;
  }
}
window.addEventListener("hashchange", updateLinks);
for (const sw of document.querySelectorAll("a.lang-switch")) {
  for (const ev of ["pointerdown", "focus", "mouseenter"]) sw.addEventListener(ev, updateLinks);
}
state.subscribe(updateLinks);

// ---- mounting ----------------------------------------------------------------------------------
function makeCtx(el) {
  const section = sectionOf(el);
  return {
    t: makeT(el),
    lang,
    state,
    reducedMotion,
    // The page starts paused (a teacher's link): a widget that would move by itself waits.
    paused: html.dataset.paused === "1",
    loadPlotly,
    section,
    answer: (unit) => section?.answer(unit) ?? null,
    onAnswer: (fn) => section?.onAnswer(fn),
    onKey: (actions) => keyed.set(el, { ...(keyed.get(el) || {}), ...actions }),
  };
}

function failed(el, err) {
  console.error(`widget ${el.dataset.widget}:`, err);
  el.dataset.state = "failed";
  el.append(h("p", { class: "widget-error", role: "alert",
                     text: pageStrings.widget_failed || "This interactive could not be loaded." }));
}

// Every interactive is a [data-widget]; those with a script of their own (listed by the server)
// are mounted by it, the rest are drawn by the server alone and follow the state through their
// section's live text.
const modules = new Set(readJSON("params").modules || []);

// A link to #section lands there before the widgets mount; mounting changes the heights above it,
// so the browser's jump can end a screen away. Once everything has mounted, go back to the
// anchor, unless the reader has started moving around already.
let readerMoved = false;
for (const ev of ["wheel", "touchmove", "keydown", "mousedown"]) {
  addEventListener(ev, () => { readerMoved = true; }, { once: true, passive: true });
}
function backToAnchor() {
  const id = decodeURIComponent(location.hash.slice(1));
  const target = id && document.getElementById(id);
  if (!target || readerMoved) return;
  // The browser's own jump may still be gliding (scroll-behavior: smooth) towards where the
  // section was before mounting: stop it, and jump without gliding, again a frame later.
  const jump = () => { if (!readerMoved) target.scrollIntoView({ block: "start", behavior: "instant" }); };
  html.style.scrollBehavior = "auto";
  jump();
  requestAnimationFrame(() => { jump(); html.style.scrollBehavior = ""; });
}

// ---- how a teacher has the page shown (views/teach.py): settings locked or hidden, paused -------
// A setting is a control of the state ([data-param]) or anything else that changes what a section
// shows: a button that adds a round, draws again, applies a preset or a value, the lab's text
// ([data-sets], on the element or a group of them). Locked: every setting stays in view but cannot
// be moved; hidden: the settings are not shown at all (plate.css), and locked too. The state itself
// refuses changes on such a page (state.js), so keys cannot move it either. What only plays the run
// the link set stays free: Step, Back, Play, Reset, the sweep's pause, the bench's time within a pass, the
// predict-first questions, the tabs and folds that show more of the same section.
// Paused: nothing moves by itself until the reader starts that interactive (a click or a key in it).
const SETTINGS = "[data-param], [data-sets], [data-sets] :is(button, input, select, textarea)";
function lockAll(root) {
  const els = [...(root.matches?.(SETTINGS) ? [root] : []), ...root.querySelectorAll(SETTINGS)];
  for (const c of els) {
    if (!c.matches("button, input, select, textarea, fieldset")) continue;
    if (!c.disabled) c.disabled = true;
    c.setAttribute("aria-disabled", "true");
  }
}

function applyShow() {
  const mode = html.dataset.controls;
  if (mode === "locked" || mode === "hidden") {
    lockAll(document);
    // Settings drawn later (live text swapped in with a new answer, a widget's own buttons), and a
    // widget enabling its button again once a round is possible: locked again at once.
    new MutationObserver((records) => {
      for (const r of records) {
        if (r.type === "attributes") lockAll(r.target);
        else for (const n of r.addedNodes) if (n instanceof Element) lockAll(n);
      }
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["disabled"] });
  }
  if (html.dataset.paused === "1") {
    const start = (e) => {
      const w = e.target instanceof Element && e.target.closest(".widget, [data-widget]");
      if (w) w.dataset.started = "1";
    };
    document.addEventListener("pointerdown", start, true);
    document.addEventListener("keydown", start, true);
  }
}

async function mountAll() {
  applyShow();
  updateLinks();
  bindControls(document, makeT(null));
  startSections(pageStrings);
  startFolds(state);
  startPredictions(makeT(null), lang);
  const els = [...document.querySelectorAll("[data-widget]")];
  await Promise.all(els.map(async (el) => {
    const name = el.dataset.widget;
    if (!modules.has(name)) { el.dataset.state = "mounted"; return; }
    try {
      const mod = await import(`/static/js/widgets/${name}.js`);
      await mod.mount(el, makeCtx(el));
      el.dataset.state = "mounted";
    } catch (err) {
      failed(el, err);
    }
  }));
  backToAnchor();
  html.dataset.ready = "1";
  document.dispatchEvent(new CustomEvent("specdec:ready"));
}

// ---- embeds: tell the host page our height on every change of size ------------------------------
// In three dialects, since course platforms listen for their own: ours ({type: "specdec:height"},
// static/js/embed-host.js), H5P's resizer (Moodle, WordPress and Drupal's h5p-resizer.js: hello,
// prepareResize, then resize once the host says resizePrepared) and Canvas's lti.frameResize.
// Posted straight from the observer, not from requestAnimationFrame, which browsers hold back in
// frames out of view: a frame below the fold must still get its height when the host resizes.
function bodyHeight() {
  // The body's own height, not the document's: the latter never drops below the frame's height,
  // so a host could grow the frame but never shrink it.
  const b = document.body;
  const cs = getComputedStyle(b);
  return Math.ceil(b.getBoundingClientRect().height + parseFloat(cs.marginTop) + parseFloat(cs.marginBottom));
}

// A frame inside a collapsed block or a hidden tab has no width: its height then means nothing
// (every line one word wide), so it is not reported; once shown, the charts drawn while hidden
// lay themselves out again at the real width and the new height goes out at once.
let hidden = false;
let lastPosted = -1;
function relayout() {
  for (const el of document.querySelectorAll(".js-plotly-plot")) {
    try { window.Plotly?.Plots.resize(el); } catch { /* a chart being redrawn */ }
  }
  document.dispatchEvent(new CustomEvent("specdec:shown"));
}

function postH5P(action, height) {
  parent.postMessage({ context: "h5p", action, scrollHeight: height, clientHeight: height, height }, "*");
}

function reportHeight(force = false) {
  if (window.innerWidth === 0 || document.body.getBoundingClientRect().width === 0) { hidden = true; return; }
  if (hidden) { hidden = false; force = true; relayout(); }
  const height = bodyHeight();
  parent.postMessage({ type: "specdec:height", height, href: location.href }, "*");
  if (height === lastPosted && !force) return;
  lastPosted = height;
  postH5P("prepareResize", height);
  // Canvas reads a JSON string (older tools' form, which every Canvas version parses).
  parent.postMessage(JSON.stringify({ subject: "lti.frameResize", height }), "*");
}

function onHostMessage(e) {
  if (e.source !== parent) return;
  const d = e.data;
  if (!d || typeof d !== "object" || d.context !== "h5p") return;
  if (d.action === "ready") postH5P("hello", bodyHeight());
  else if (d.action === "hello" || d.action === "resize") reportHeight(true);
  // The host has set a provisional height (some resizers shrink the frame first): now the real one.
  else if (d.action === "resizePrepared" && !hidden) postH5P("resize", bodyHeight());
}

// The fullscreen button of an embed: shown only where the host's frame allows it (allowfullscreen).
function fullscreenButton() {
  const btn = document.getElementById("embed-fullscreen");
  if (!btn) return;
  if (!document.fullscreenEnabled) { btn.hidden = true; return; }
  btn.hidden = false;
  const label = () => {
    btn.textContent = document.fullscreenElement ? pageStrings.exit_fullscreen : pageStrings.fullscreen;
    btn.setAttribute("aria-pressed", document.fullscreenElement ? "true" : "false");
  };
  btn.addEventListener("click", () => {
    if (document.fullscreenElement) document.exitFullscreen().catch(() => {});
    else html.requestFullscreen().catch(() => {});
  });
  document.addEventListener("fullscreenchange", label);
  label();
}

if (document.body.classList.contains("embed")) fullscreenButton();

if (window.parent !== window && document.body.classList.contains("embed")) {
  window.addEventListener("message", onHostMessage);
  const report = () => reportHeight();
  if ("ResizeObserver" in window) new ResizeObserver(report).observe(document.body);
  window.addEventListener("load", report);
  window.addEventListener("resize", report);
  // Once the widgets have mounted (often after "load"), measured at once: a cross-origin frame
  // out of view gets no rendering update, so no ResizeObserver callback, until it is scrolled to.
  document.addEventListener("specdec:ready", report);
  postH5P("hello", bodyHeight());
  reportHeight();
}

html.classList.add("js");
mountAll();
