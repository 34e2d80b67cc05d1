// Section 2: tokens per second against batch size, drawn from the section's answer.
import { lazyChart, baseLayout, colours, countHover, PLOT_CONFIG } from "../charts.js";

function draw(Plotly, node, a, ctx) {
  const b = a.batch;
  const c = colours();
  const xs = b.curve.batches;
  const layout = baseLayout(ctx, { xTitle: ctx.t("x_title"), yTitle: ctx.t("y_title") });
  layout.shapes = [{ type: "line", x0: b.batch, x1: b.batch, yref: "paper", y0: 0, y1: 1,
                     line: { color: c.muted, width: 1, dash: "dot" } }];
  Plotly.react(node, [
    { x: xs, y: b.curve.weights_only, name: ctx.t("weights_only"), mode: "lines",
      line: { color: c.kept, width: 2.5 }, ...countHover(b.curve.weights_only) },
    { x: xs, y: b.curve.with_cache, name: ctx.t("with_cache"), mode: "lines",
      line: { color: c.accent, width: 2.5 }, ...countHover(b.curve.with_cache) },
    { x: [xs[0], xs[xs.length - 1]], y: [b.ceiling_tokens_per_s, b.ceiling_tokens_per_s],
      name: ctx.t("ceiling"), mode: "lines", line: { color: c.muted, width: 1.5, dash: "dash" }, hoverinfo: "skip" },
    { x: [b.batch, b.batch], y: [b.weights_only.tokens_per_s, b.with_cache.tokens_per_s],
      name: ctx.t("you_are_here"), mode: "markers", marker: { color: c.ink, size: 8 }, hoverinfo: "skip" },
  ], layout, PLOT_CONFIG);
}

export function mount(el, ctx) {
  const chart = lazyChart(el.querySelector('[data-plot="batch"]'), ctx, (P, node, a) => draw(P, node, a, ctx));
  chart(ctx.answer());
  ctx.onAnswer(chart);
}
