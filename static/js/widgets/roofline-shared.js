// Helpers shared by the roofline widgets (sections 1, 2, 9, 10, 11).
// Not a widget itself: nothing on the page has data-widget="roofline-shared".
//
// The server renders every number as <span data-field="path.in.answer" data-fmt="num:1">; the
// widgets refresh those spans from /api/roofline, whose answer has the same shape as the
// server's d.roofline, so one function fills them all.
import { formatCount } from "./numbers.js";

// The page's defaults (views/sections_roofline.DEFAULTS); used when the URL state has no value.
export const DEFAULTS = {
  gpu: "h100-sxm", model: "llama-3.1-8b", batch: 64, ctx: 4096, lanes: 9, gamma: 4, alpha: 0.6, c: 0.1,
};
export const PARAMS = Object.keys(DEFAULTS);

export function stateValue(ctx, name) {
  const raw = ctx.state.get(name);
  const def = DEFAULTS[name];
  if (raw === null || raw === undefined || raw === "") return def;
  if (typeof def === "number") {
    const v = Number(raw);
    return Number.isFinite(v) ? v : def;
  }
  return String(raw);
}

export function currentParams(ctx) {
  const p = {};
  for (const name of PARAMS) p[name] = stateValue(ctx, name);
  return p;
}

// One request per distinct state, shared by the five widgets on the page.
const cache = new Map();
export function fetchRoofline(ctx, params = currentParams(ctx)) {
  const key = JSON.stringify(params);
  if (!cache.has(key)) {
    const p = ctx.api("/api/roofline", params);
    p.catch(() => cache.delete(key)); // a failed request may be retried
    cache.set(key, p);
  }
  return cache.get(key);
}

const formats = new Map();
function numberFormat(kind, digits) {
  const key = `${kind}:${digits}`;
  if (!formats.has(key)) {
    const opts = { minimumFractionDigits: digits, maximumFractionDigits: digits };
    if (kind === "pct") opts.style = "percent";
    formats.set(key, new Intl.NumberFormat(document.documentElement.lang || undefined, opts));
  }
  return formats.get(key);
}

// fmt is "num:1", "pct:0", "x:2" (a factor, with ×), "big:0" (a count: 80.3亿 in Chinese; "big:9"
// for a value given in billions) or "text".
export function format(value, fmt) {
  if (fmt === "text") return value === null || value === undefined ? "–" : String(value);
  if (value === null || value === undefined || (typeof value === "number" && !Number.isFinite(value))) return "–";
  const [kind, d] = fmt.split(":");
  if (kind === "big") return formatCount(value * 10 ** (Number(d) || 0));
  const s = numberFormat(kind, Number(d) || 0).format(value);
  return kind === "x" ? `${s}×` : s;
}

export function lookup(data, path) {
  let v = data;
  for (const part of path.split(".")) {
    if (v === null || v === undefined) return undefined;
    v = v[part];
  }
  return v;
}

// Refresh every live number, bar and sentence variant under root from an API answer.
export function fill(root, data) {
  for (const el of root.querySelectorAll("[data-field]")) {
    const v = lookup(data, el.dataset.field);
    if (v !== undefined) el.textContent = format(v, el.dataset.fmt || "num:0");
  }
  for (const el of root.querySelectorAll("[data-case-of]")) {
    el.hidden = lookup(data, el.dataset.caseOf) !== el.dataset.case;
  }
  for (const el of root.querySelectorAll("[data-bar]")) {
    const v = lookup(data, el.dataset.bar);
    if (typeof v === "number") el.setAttribute("width", String(Math.max(1.5, Number(el.dataset.barWidth) * v)));
  }
  for (const el of root.querySelectorAll("[data-vbar]")) {
    const v = lookup(data, el.dataset.vbar);
    if (typeof v !== "number") continue;
    const full = Number(el.dataset.barHeight);
    const h = Math.max(2, full * Math.min(1, v));
    const bottom = Number(el.getAttribute("y")) + Number(el.getAttribute("height"));
    el.setAttribute("height", String(h));
    el.setAttribute("y", String(bottom - h));
  }
}

// Slider over a list of stops: the input holds an index, the state holds the stop's value.
function stopsOf(input) {
  try { return JSON.parse(input.dataset.stops); } catch { return null; }
}
function nearestIndex(stops, value) {
  let best = 0;
  for (let i = 1; i < stops.length; i++) {
    if (Math.abs(stops[i] - value) < Math.abs(stops[best] - value)) best = i;
  }
  return best;
}

function controlValue(c) {
  const stops = c.dataset.stops ? stopsOf(c) : null;
  if (stops) return stops[Number(c.value)];
  if (c.type === "range") return Number(c.value);
  return c.value;
}

function showValue(root, c, value) {
  const out = root.querySelector(`output[for="${c.id}"]`);
  const digits = c.dataset.digits !== undefined ? Number(c.dataset.digits) : 0;
  const text = typeof value === "number" ? format(value, `num:${digits}`) : String(value);
  if (out) out.textContent = text;
  if (c.type === "range") c.setAttribute("aria-valuetext", text);
}

// Wire every [data-state] control under root to the URL state, both ways, and call onChange
// (debounced) whenever one of the roofline parameters changes anywhere on the page.
export function bind(root, ctx, onChange) {
  const controls = [...root.querySelectorAll("[data-state]")];
  const syncControl = (c) => {
    const v = stateValue(ctx, c.dataset.state);
    const stops = c.dataset.stops ? stopsOf(c) : null;
    if (stops) {
      // Keep a value that is not a stop (typed into the URL) as it is; only the thumb snaps.
      if (stops[Number(c.value)] !== v) c.value = String(nearestIndex(stops, v));
    } else if (String(c.value) !== String(v)) c.value = String(v);
    showValue(root, c, v);
  };
  controls.forEach(syncControl);

  let timer = null;
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(onChange, 60);
  };
  for (const c of controls) {
    const ev = c.type === "range" ? "input" : "change";
    c.addEventListener(ev, () => {
      const v = controlValue(c);
      showValue(root, c, v);
      ctx.state.set(c.dataset.state, v);
      schedule();
    });
  }
  document.addEventListener("specdec:state", (e) => {
    const name = e.detail?.name;
    if (!PARAMS.includes(name)) return;
    for (const c of controls) if (c.dataset.state === name) syncControl(c);
    schedule();
  });
}

// The live numbers of a widget: fetch, fill, then hand the answer to draw(). Stale answers
// (an older request finishing after a newer one) are dropped.
export function liveNumbers(root, ctx, draw = () => {}) {
  let seq = 0;
  const refresh = async () => {
    const mine = ++seq;
    root.setAttribute("aria-busy", "true");
    try {
      const data = await fetchRoofline(ctx);
      if (mine !== seq) return;
      fill(root, data);
      // Numbers in the section's prose (outside the widget) follow too, when on the full page.
      const section = root.closest(".plate-section");
      if (section && section !== root) fill(section, data);
      draw(data);
      root.querySelector(".rf-error")?.remove();
    } catch (err) {
      if (mine !== seq) return;
      let note = root.querySelector(".rf-error");
      if (!note) {
        note = document.createElement("p");
        note.className = "rf-error widget-error";
        note.setAttribute("role", "status");
        root.append(note);
      }
      note.textContent = err.message;
    } finally {
      if (mine === seq) root.removeAttribute("aria-busy");
    }
  };
  return refresh;
}

// Draw a plotly chart only once its container scrolls into view (plotly.js is large).
export function lazyChart(container, ctx, draw) {
  let plotly = null;
  let pending = null;
  let requested = false;
  const start = () => {
    if (requested) return;
    requested = true;
    ctx.loadPlotly().then((P) => {
      plotly = P;
      container.textContent = ""; // drop the server's fallback table
      container.classList.add("is-drawn");
      if (pending) draw(plotly, container, pending);
    }).catch((err) => {
      requested = false;
      console.warn(err);
    });
  };
  if ("IntersectionObserver" in window) {
    const io = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) { io.disconnect(); start(); }
    }, { rootMargin: "200px 0px" });
    io.observe(container);
  } else {
    start();
  }
  return (data) => {
    pending = data;
    if (plotly) draw(plotly, container, data);
  };
}

function cssVar(name, fallback) {
  const v = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return v || fallback;
}

export function colours() {
  return {
    ink: cssVar("--ink", "#1d1f24"),
    paper: cssVar("--paper", "#fbf8f1"),
    accent: cssVar("--accent", "#a4461c"),
    kept: cssVar("--kept", "#a07a17"),
    putIn: cssVar("--put-in", "#b3261e"),
    muted: cssVar("--muted", "#5d6169"),
    line: cssVar("--line", "#d8d0bd"),
  };
}

// Layout shared by the charts: log axes, the page's fonts and colours, localised separators.
export function baseLayout(ctx, { xTitle, yTitle, yLog = true }) {
  const c = colours();
  const font = cssVar("--font-sans", "system-ui, sans-serif");
  return {
    margin: { l: 64, r: 12, t: 36, b: 44 },
    height: 320,
    paper_bgcolor: "rgba(0,0,0,0)",
    plot_bgcolor: "rgba(0,0,0,0)",
    font: { family: font, color: c.ink, size: 13 },
    separators: ".,", // decimal point, thousands comma: the same in English and Chinese
    xaxis: { title: { text: xTitle }, type: "log", gridcolor: c.line, linecolor: c.muted, zeroline: false,
             range: [-0.05, Math.log10(1024) + 0.05],
             tickvals: [1, 4, 16, 64, 256, 1024], ticktext: ["1", "4", "16", "64", "256", "1024"] },
    // Log axes ticked at powers of ten only: plotly's minor 2 and 5 labels read as data. The
    // labels are the page's counts (10,000 in English, 1万 in Chinese); plotly shows the ones
    // inside the axis range.
    yaxis: yLog
      ? { title: { text: yTitle }, type: "log", tickmode: "array", tickvals: POWERS, ticktext: POWERS.map((v) => formatCount(v)),
          gridcolor: c.line, linecolor: c.muted, zeroline: false }
      : { title: { text: yTitle }, type: "linear", gridcolor: c.line, linecolor: c.muted, zeroline: false },
    legend: { orientation: "h", x: 0, y: 1.02, yanchor: "bottom" },
    showlegend: true,
    hovermode: "x unified",
  };
}

const POWERS = Array.from({ length: 13 }, (_, k) => 10 ** k);

// Hover text for a throughput curve: each point's count as the page writes it.
export function countHover(ys) {
  return { customdata: ys.map((y) => formatCount(y)), hovertemplate: "%{customdata}<extra></extra>" };
}

export const PLOT_CONFIG = { displayModeBar: false, responsive: true, scrollZoom: false };
