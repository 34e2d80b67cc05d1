// Helpers shared by the speculative widgets (sections 3–8) and the bench.
// Not a widget itself: nothing on the page has data-widget="spec-shared".

export const DEFAULTS = { gamma: 4, draft: "bigram", greedy: 0, rule: "exact", seed: 1, c: 0.1 };

// One state value, typed, with the documented default when the URL has none or a bad one.
export function stateValue(ctx, name) {
  const raw = ctx.state.get(name);
  const def = DEFAULTS[name];
  if (raw === null || raw === undefined || raw === "") return def;
  if (name === "greedy") return raw === true || raw === "1" || raw === 1 || raw === "true" ? 1 : 0;
  if (typeof def === "number") {
    const v = Number(raw);
    return Number.isFinite(v) ? v : def;
  }
  return String(raw);
}

// Runs are cached per query so several widgets on one page share one request.
const runCache = new Map();
export function fetchRun(ctx, overrides = {}) {
  const params = {
    lang: ctx.lang,
    draft: stateValue(ctx, "draft"),
    gamma: stateValue(ctx, "gamma"),
    greedy: stateValue(ctx, "greedy"),
    rule: stateValue(ctx, "rule"),
    seed: stateValue(ctx, "seed"),
    tokens: 40,
    ...overrides,
  };
  const key = JSON.stringify(params);
  if (!runCache.has(key)) {
    const p = ctx.api("/api/run", params);
    p.catch(() => runCache.delete(key)); // a failed request may be retried later
    runCache.set(key, p);
  }
  return runCache.get(key);
}

export function numberFormat(digits) {
  return new Intl.NumberFormat(document.documentElement.lang || undefined, {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}
export const fmt = (x, digits = 2) => (x === null || x === undefined ? "—" : numberFormat(digits).format(x));

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

// Small DOM builder: h("span", {class: "x", text: "y"}, child, ...).
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "text") node.textContent = v;
    else if (k === "class") node.className = v;
    else if (k === "style") Object.assign(node.style, v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) node.append(c);
  return node;
}

// Wire every [data-state] control inside root to the URL state, both ways.
export function bindControls(root, ctx) {
  const controls = [...root.querySelectorAll("input[data-state], select[data-state]")];
  const sync = () => {
    for (const c of controls) {
      const v = stateValue(ctx, c.dataset.state);
      if (c.type === "checkbox") c.checked = !!Number(v);
      else c.value = String(v);
      const out = root.querySelector(`output[for="${c.id}"]`);
      if (out) out.textContent = c.type === "range" ? fmt(Number(c.value), 2) : c.value;
    }
  };
  for (const c of controls) {
    const ev = c.type === "range" ? "input" : "change";
    c.addEventListener(ev, () => {
      const v = c.type === "checkbox" ? (c.checked ? 1 : 0) : c.value;
      ctx.state.set(c.dataset.state, v);
    });
  }
  document.addEventListener("specdec:state", sync);
  sync();
}

// Call fn whenever one of `names` changes in the URL state (controls in any widget).
export function onState(names, fn) {
  document.addEventListener("specdec:state", (e) => {
    if (!e.detail || names.includes(e.detail.name)) fn(e.detail || {});
  });
}

// Step / play / reset, exposed on the element for the page's keyboard dispatcher
// (arrows step, space plays or pauses, R resets).
export function player(el, ctx, { step, reset, canStep, back, interval = 900 }) {
  let timer = null;
  const playBtn = el.querySelector("[data-act=play]");
  const t = (k) => ctx.t(k);
  const setPlaying = (on) => {
    if (playBtn) {
      playBtn.textContent = on ? t("pause") : t("play");
      playBtn.setAttribute("aria-pressed", on ? "true" : "false");
    }
  };
  const pause = () => {
    if (timer) clearInterval(timer);
    timer = null;
    setPlaying(false);
  };
  const tick = () => {
    if (canStep && !canStep()) return pause();
    step();
  };
  const play = () => {
    if (timer) return pause();
    if (canStep && !canStep()) reset();
    setPlaying(true);
    tick();
    timer = setInterval(tick, ctx.reducedMotion ? interval * 1.5 : interval);
  };
  const api = {
    step: () => { pause(); if (!canStep || canStep()) step(); },
    play,
    pause,
    reset: () => { pause(); reset(); },
    // ← goes back one step where the widget knows how (the keyboard hint promises it).
    back: () => { pause(); if (back) back(); },
  };
  el.specdec = api;
  el.querySelector("[data-act=step]")?.addEventListener("click", api.step);
  playBtn?.addEventListener("click", play);
  el.querySelector("[data-act=reset]")?.addEventListener("click", api.reset);
  if (!el.hasAttribute("tabindex")) el.tabIndex = 0;
  // The page's keyboard dispatcher (main.js) sends arrows, space and R as actions.
  const actions = { step: api.step, play, reset: api.reset, ...(back ? { back: api.back } : {}) };
  if (ctx.onKey) ctx.onKey((action) => (actions[action] ? (actions[action](), true) : false));
  return api;
}

// Report a failed request inside the widget instead of throwing.
export function showError(el, err) {
  let box = el.querySelector(".spec-error");
  if (!box) {
    box = h("p", { class: "spec-error", role: "alert" });
    el.append(box);
  }
  box.textContent = String(err && err.message ? err.message : err);
}

// Fetch the run for the current settings, hand it to onRun, and fetch again whenever a setting
// that changes the run changes. Marks the widget ready after the first run.
export function followRun(el, ctx, onRun) {
  const load = () =>
    fetchRun(ctx)
      .then((r) => { onRun(r); el.dataset.ready = "1"; })
      .catch((e) => showError(el, e));
  onState(["gamma", "draft", "greedy", "rule", "seed"], load);
  load();
}
