// The `batch` section: tokens per second against batch size, drawn from the section's answer. Each curve
// ends where its streams stop fitting in memory (the limit marked); the published measurements
// taken on the chosen GPU and model are drawn as points beside the ideal.
import { lazyChart, baseLayout, colours, countHover, upToLimit, limitMark, PLOT_CONFIG } from "../charts.js";
import { num, count } from "../format.js";

function measuredName(r) { return r.method ? `${r.engine} + ${r.method}` : r.engine; }

function draw(Plotly, node, a, ctx) {
  const b = a.batch;
  const c = colours();
  const xs = b.curve.batches;
  const w = upToLimit(xs, b.curve.weights_only, b.curve.weights_only_fit, "weights_only");
  const k = upToLimit(xs, b.curve.with_cache, b.curve.with_cache_fit, "with_cache");
  const layout = baseLayout(ctx, { xTitle: ctx.t("x_title"), yTitle: ctx.t("y_title") });
  layout.shapes = [{ type: "line", x0: b.batch, x1: b.batch, yref: "paper", y0: 0, y1: 1,
                     line: { color: c.muted, width: 1, dash: "dot" } }];
  layout.annotations = [];
  const limit = b.curve.with_cache_fit.max_batch;
  if (limit !== null && limit <= xs[xs.length - 1]) {
    const mark = limitMark(Math.max(limit, 1), limit ? ctx.t("limit", { n: num(limit) }) : ctx.t("none_fit"), c.putIn);
    layout.shapes.push(mark.shape);
    layout.annotations.push(mark.annotation);
  }
  const drawn = (b.published || []).filter((r) => r.matches && r.batch && r.tokens_per_s);
  const traces = [
    { x: w.x, y: w.y, name: ctx.t("weights_only"), mode: "lines",
      line: { color: c.kept, width: 2.5 }, ...countHover(w.y, ctx.t("weights_only"), ctx.t("per_s")) },
    { x: k.x, y: k.y, name: ctx.t("with_cache"), mode: "lines",
      line: { color: c.accent, width: 2.5 }, ...countHover(k.y, ctx.t("with_cache"), ctx.t("per_s")) },
    { x: [xs[0], xs[xs.length - 1]], y: [b.ceiling_tokens_per_s, b.ceiling_tokens_per_s],
      name: ctx.t("ceiling"), mode: "lines", line: { color: c.muted, width: 1.5, dash: "dash" }, hoverinfo: "skip" },
    { x: [b.batch, b.batch], y: [b.weights_only.tokens_per_s, b.with_cache.tokens_per_s],
      name: ctx.t("you_are_here"), mode: "markers", marker: { color: c.ink, size: 8 }, hoverinfo: "skip" },
  ];
  if (drawn.length) {
    traces.push({
      x: drawn.map((r) => r.batch), y: drawn.map((r) => r.tokens_per_s), mode: "markers+text",
      name: ctx.t("measured", { name: drawn.map(measuredName).join(", ") }),
      text: drawn.map((r) => `${measuredName(r)} ${count(r.tokens_per_s)}`), textposition: "middle right",
      marker: { color: c.ink, size: 10, symbol: "diamond-open", line: { width: 2 } },
      textfont: { size: 11, color: c.ink }, cliponaxis: false, hoverinfo: "skip",
    });
  }
  Plotly.react(node, traces, layout, PLOT_CONFIG);
}

export function mount(el, ctx) {
  const chart = lazyChart(el.querySelector('[data-plot="batch"]'), ctx, (P, node, a) => draw(P, node, a, ctx));
  chart(ctx.answer());
  ctx.onAnswer(chart);
}
