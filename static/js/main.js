// The loader: finds every [data-widget], imports /static/js/widgets/NAME.js and calls
// mount(el, ctx). Also owns the URL state, the page-wide keyboard, the language switch and,
// inside an iframe, the height messages to the host page.

const html = document.documentElement;
const lang = html.dataset.lang || "en";
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)").matches;

function readJSON(id) {
  const el = document.getElementById(id);
  if (!el) return {};
  try { return JSON.parse(el.textContent || "{}"); } catch { return {}; }
}

const pageStrings = readJSON("i18n");
// Server-validated state: defaults filled in, bad values already replaced (bools as 0/1).
const initialState = readJSON("state");
const state = new Map(Object.entries(initialState));
const defaults = { ...initialState };
for (const [k, v] of new URLSearchParams(location.search)) {
  if (!state.has(k)) continue;
  // The server may have replaced a bad value: keep the server's, not the URL's.
  if (String(state.get(k)) !== v) history.replaceState(history.state, "", urlWith(k, state.get(k)));
}

function urlWith(name, value) {
  const url = new URL(location.href);
  if (value === null || value === undefined || value === "") url.searchParams.delete(name);
  else url.searchParams.set(name, typeof value === "boolean" ? (value ? "1" : "0") : String(value));
  return url.pathname + url.search + url.hash;
}

const stateApi = {
  get(name) { return state.has(name) ? state.get(name) : new URLSearchParams(location.search).get(name); },
  set(name, value) {
    if (typeof value === "boolean") value = value ? 1 : 0;
    const old = state.get(name);
    state.set(name, value);
    history.replaceState(history.state, "", urlWith(name, value));
    updateLinks();
    if (old !== value) {
      document.dispatchEvent(new CustomEvent("specdec:state", { detail: { name, value } }));
    }
  },
  defaults,
};

function strings(el) {
  if (!el || !el.dataset.i18n) return {};
  try { return JSON.parse(el.dataset.i18n); } catch { return {}; }
}

function makeT(el) {
  const own = strings(el);
  return (key, vars) => {
    let s = own[key] ?? pageStrings[key] ?? key;
    if (vars) s = s.replace(/%\((\w+)\)s|\{(\w+)\}/g, (m, a, b) => String(vars[a ?? b] ?? m));
    return s;
  };
}

async function api(path, params = {}) {
  const p = path.startsWith("/") ? path : `/api/${path}`;
  const url = new URL(p, location.origin);
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null) continue;
    url.searchParams.set(k, typeof v === "boolean" ? (v ? "1" : "0") : String(v));
  }
  let resp;
  try {
    // Accept-Language picks the language of error messages without adding a query parameter.
    resp = await fetch(url, { headers: { Accept: "application/json", "Accept-Language": lang } });
  } catch (e) {
    throw new Error(pageStrings.api_failed || "The server could not be reached.");
  }
  let body = null;
  try { body = await resp.json(); } catch { body = null; }
  if (!resp.ok) {
    const err = new Error(body?.error?.message || `${resp.status} ${resp.statusText}`);
    err.status = resp.status;
    err.param = body?.error?.param ?? null;
    err.allowed = body?.error?.allowed ?? null;
    throw err;
  }
  return body;
}

let plotlyPromise = null;
function loadPlotly() {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!plotlyPromise) {
    plotlyPromise = new Promise((resolve, reject) => {
      const s = document.createElement("script");
      s.src = "/vendor/plotly.min.js";
      s.async = true;
      s.onload = () => resolve(window.Plotly);
      s.onerror = () => { plotlyPromise = null; reject(new Error("plotly.js failed to load")); };
      document.head.appendChild(s);
    });
  }
  return plotlyPromise;
}

// ---- keyboard: arrows step, space plays/pauses, R resets ----------------------------------
// The key goes to the widget that has focus, else to the section the reader is in, else to the
// bench. Widgets listen for "specdec:key" on their element (or use ctx.onKey).
const KEYS = { ArrowRight: "step", ArrowLeft: "back", " ": "play", r: "reset", R: "reset" };

function isTyping(target) {
  if (!(target instanceof Element)) return false;
  if (target.isContentEditable) return true;
  const tag = target.tagName;
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag === "INPUT") return !["checkbox", "radio", "button", "submit", "reset"].includes(target.type);
  return false;
}

function keyTarget(from) {
  const own = from instanceof Element ? from.closest("[data-widget]:not([data-widget=embed])") : null;
  if (own && own.dataset.keys !== "off") return own;
  const section = from instanceof Element ? from.closest(".plate-section") : null;
  const inSection = section?.querySelector("[data-widget][data-keys]:not([data-keys=off]), [data-widget]:not([data-widget=embed])");
  if (inSection) return inSection;
  return document.querySelector('[data-widget="bench"]') ||
    document.querySelector("[data-widget]:not([data-widget=embed])");
}

let lastSection = null;
document.addEventListener("keydown", (e) => {
  if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) return;
  const action = KEYS[e.key];
  if (!action || isTyping(e.target)) return;
  // Space on a focused button or link must keep its own meaning (press / follow).
  if (action === "play" && e.target instanceof Element && e.target.closest("button, a, summary, input")) return;
  const from = e.target === document.body ? (lastSection || document.body) : e.target;
  const target = keyTarget(from);
  if (!target) return;
  const ev = new CustomEvent("specdec:key", { detail: { action, key: e.key }, cancelable: true });
  target.dispatchEvent(ev);
  if (ev.defaultPrevented || action === "play") e.preventDefault();
});

// Remember which section the reader is looking at, for keys pressed with nothing focused.
if ("IntersectionObserver" in window) {
  const io = new IntersectionObserver((entries) => {
    for (const en of entries) if (en.isIntersecting) lastSection = en.target;
  }, { rootMargin: "-40% 0px -55% 0px" });
  document.querySelectorAll(".plate-section").forEach((s) => io.observe(s));
}

// ---- language switch keeps the settings and the section ------------------------------------
function sectionInView() {
  // The section crossing a line 40% down the viewport, the one the reader is looking at.
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
  const sw = document.getElementById("lang-switch");
  if (!sw) return;
  const url = new URL(sw.href, location.href);
  url.search = location.search;
  // Land on the section the reader last stayed in; else the #hash.
  const at = sectionForSwitch();
  url.hash = at ? `#${at}` : location.hash;
  sw.href = url.pathname + url.search + url.hash;
}
window.addEventListener("hashchange", updateLinks);
for (const ev of ["pointerdown", "focus", "mouseenter"]) {
  document.getElementById("lang-switch")?.addEventListener(ev, updateLinks);
}

// ---- mounting ------------------------------------------------------------------------------
function makeCtx(el) {
  return {
    t: makeT(el),
    api,
    state: stateApi,
    loadPlotly,
    reducedMotion,
    lang,
    onKey(handler) {
      el.addEventListener("specdec:key", (e) => { if (handler(e.detail.action, e) !== false) e.preventDefault(); });
    },
  };
}

function fail(el, err) {
  console.error(`widget ${el.dataset.widget}:`, err);
  el.dataset.state = "failed";
  const note = document.createElement("p");
  note.className = "widget-error";
  note.setAttribute("role", "status");
  note.textContent = pageStrings.widget_failed || "This interactive could not be loaded.";
  el.appendChild(note);
}

async function mountAll() {
  updateLinks();
  const els = [...document.querySelectorAll("[data-widget]")];
  await Promise.all(els.map(async (el) => {
    const name = el.dataset.widget;
    if (!/^[a-z0-9-]+$/.test(name)) return;
    try {
      const mod = await import(`/static/js/widgets/${name}.js`);
      await mod.mount(el, makeCtx(el));
      el.dataset.state = "mounted";
    } catch (err) {
      fail(el, err);
    }
  }));
  html.dataset.ready = "1";
  document.dispatchEvent(new CustomEvent("specdec:ready"));
}

// ---- embeds: tell the host page our height --------------------------------------------------
function reportHeight() {
  // The body's own height, not the document's: the latter never drops below the frame's height,
  // so a host could grow the frame but never shrink it.
  const b = document.body;
  const cs = getComputedStyle(b);
  const height = Math.ceil(b.getBoundingClientRect().height + parseFloat(cs.marginTop) + parseFloat(cs.marginBottom));
  parent.postMessage({ type: "specdec:height", height, href: location.href }, "*");
}

if (window.parent !== window && document.body.classList.contains("embed")) {
  let queued = false;
  const queue = () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; reportHeight(); });
  };
  if ("ResizeObserver" in window) new ResizeObserver(queue).observe(document.body);
  window.addEventListener("load", reportHeight);
  window.addEventListener("resize", queue);
  reportHeight();
}

html.classList.add("js");
mountAll();
