// plotly charts, shared by the widgets that draw one (the `batch`, `speedup`, `idle` and `bench` sections). plotly.js is large:
// it is fetched only when a chart comes near the view, and a chart draws the newest answer then.
import { colon, count } from "./format.js";

// Draw into `container` once it comes within 200 px of the view; until then (and without scripts)
// it keeps the server's fallback table. Returns update(data): draw now if plotly is here, else
// keep data for when it comes.
export function lazyChart(container, ctx, draw) {
  // "waiting", then "loading" once asked for, then "drawn": tests find the charts by it, and count
  // a chart still loading as a part still busy.
  container.dataset.lazyChart = "waiting";
  let plotly = null;
  let pending = null;
  let requested = false;
  const start = () => {
    if (requested) return;
    requested = true;
    container.dataset.lazyChart = "loading";
    ctx.loadPlotly().then((P) => new Promise((ok) => setTimeout(() => ok(P), 0))).then((P) => {
      // One task per chart: several charts coming at once do not add up into one long task.
      plotly = P;
      container.textContent = ""; // drop the server's fallback table
      container.classList.add("is-drawn");
      container.dataset.lazyChart = "drawn";
      if (pending) draw(plotly, container, pending);
    }).catch((err) => {
      requested = false;
      container.dataset.lazyChart = "waiting";
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
  // The Embed dialog's preview (widgets/embed.js) asks for every chart at once, to measure the
  // height the embed takes with its charts drawn.
  document.addEventListener("specdec:draw-charts", start);
  // Inside a "Go further" fold (folds.js) a chart has no size while the fold is closed: the
  // observer above starts it once the fold opens; one drawn before is drawn again at its new size.
  container.closest("details")?.addEventListener("toggle", (e) => {
    if (e.target.open && plotly && pending) draw(plotly, container, pending);
  });
  // Labels may differ by depth (the Story depth has words for formulas): draw again on a switch.
  ctx.state?.subscribe((names) => { if (names.has("depth") && plotly && pending) draw(plotly, container, pending); });
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

const POWERS = Array.from({ length: 13 }, (_, k) => 10 ** k);

// Layout shared by the charts: log axes, the page's fonts and colours. Log axes are ticked at
// powers of ten only, labelled as the page writes counts (10,000 in English, 1万 in Chinese).
export function baseLayout(ctx, { xTitle, yTitle, yLog = true, xMax = 1024 }) {
  const c = colours();
  const font = cssVar("--font-sans", "system-ui, sans-serif");
  const xTicks = [1, 4, 16, 64, 256, 1024].filter((v) => v <= xMax);
  return {
    margin: { l: 64, r: 12, t: 36, b: 44 },
    height: 320,
    paper_bgcolor: "rgba(0,0,0,0)",
    plot_bgcolor: "rgba(0,0,0,0)",
    font: { family: font, color: c.ink, size: 13 },
    separators: ".,",
    xaxis: { title: { text: xTitle }, type: "log", gridcolor: c.line, linecolor: c.muted, zeroline: false,
             range: [-0.05, Math.log10(xMax) + 0.05], tickvals: xTicks, ticktext: xTicks.map((v) => count(v)) },
    yaxis: yLog
      ? { title: { text: yTitle }, type: "log", tickmode: "array", tickvals: POWERS, ticktext: POWERS.map((v) => count(v)),
          gridcolor: c.line, linecolor: c.muted, zeroline: false }
      : { title: { text: yTitle }, type: "linear", gridcolor: c.line, linecolor: c.muted, zeroline: false },
    legend: { orientation: "h", x: 0, y: 1.02, yanchor: "bottom" },
    showlegend: true,
    hovermode: "x unified",
  };
}

// Hover text for a throughput curve: each point's count as the page writes it.
// A curve's hover text: its name and the count with its unit ("Weights only: 209 tokens/s"), not a
// bare number.
export function countHover(ys, name = "", unit = "") {
  const label = (y) => `${name ? name + colon() : ""}${count(y)}${unit ? "\u00a0" + unit : ""}`;
  return { customdata: ys.map(label), hovertemplate: "%{customdata}<extra></extra>" };
}

// Labels for measured points that stay readable where curves run and points sit close together:
// each on a light box, off its point by a short leader. Of points at one x the highest is labelled
// above, the next below, and so on, so leaders do not cross; a point in the right half of the
// chart is labelled to its left, so the label stays inside. Positions on a log axis are given in
// log10, as Plotly's annotations take them.
export function pointLabels(layout, points, colour) {
  const at = (axis, v) => (axis?.type === "log" ? Math.log10(v) : v);
  const range = layout.xaxis?.range;
  return points.map(({ x, y, text }) => {
    const rank = points.filter((o) => o.x === x && o.y > y).length;
    const px = at(layout.xaxis, x);
    const right = range ? (px - range[0]) / (range[1] - range[0]) > 0.5 : false;
    return {
      x: px, y: at(layout.yaxis, y), text, showarrow: true, arrowhead: 0, arrowwidth: 1, arrowcolor: colour,
      ax: right ? -36 : 36, ay: rank % 2 ? 22 : -22, xanchor: right ? "right" : "left",
      bgcolor: "rgba(255,255,255,0.88)", borderpad: 2, font: { size: 11, color: colour },
    };
  });
}

export const PLOT_CONFIG = { displayModeBar: false, responsive: true, scrollZoom: false };

// A curve over batch cut where the streams stop fitting in memory (issue 12): its first n_fit
// stops, then the point at the limit itself (`fit.at_limit[key]`), so the line ends exactly there.
export function upToLimit(xs, ys, fit, key) {
  if (!fit) return { x: xs, y: ys };
  const x = xs.slice(0, fit.n_fit);
  const y = ys.slice(0, fit.n_fit);
  if (fit.at_limit && fit.at_limit.batch > (x[x.length - 1] ?? 0)) {
    x.push(fit.at_limit.batch);
    y.push(fit.at_limit[key]);
  }
  return { x, y };
}

// The memory's limit on a chart over batch: an upright line at `batch` and its label.
export function limitMark(batch, text, colour) {
  return {
    shape: { type: "line", x0: batch, x1: batch, yref: "paper", y0: 0, y1: 1,
             line: { color: colour, width: 2 } },
    annotation: { x: Math.log10(batch), y: 0.98, yref: "paper", yanchor: "top", text, showarrow: false,
                  xanchor: batch > 64 ? "right" : "left", xshift: batch > 64 ? -4 : 4,
                  font: { color: colour, size: 12 }, bgcolor: "rgba(255,255,255,0.8)" },
  };
}
