// Section 9: speculation against batch size on paper, where it stops paying, long contexts.
// Both charts draw the section's answer; the numbers around them are its live text.
import { lazyChart, baseLayout, colours, countHover, PLOT_CONFIG } from "../charts.js";
import { num } from "../format.js";

function breakevenShape(x, colour) {
  return { type: "line", x0: x, x1: x, yref: "paper", y0: 0, y1: 1, line: { color: colour, width: 1.5, dash: "dash" } };
}

function drawThroughput(Plotly, node, a, ctx) {
  const i = a.idle;
  const c = colours();
  const xs = i.curve.batches;
  const layout = baseLayout(ctx, { xTitle: ctx.t("x_title"), yTitle: ctx.t("y_title") });
  layout.shapes = [{ type: "line", x0: i.batch, x1: i.batch, yref: "paper", y0: 0, y1: 1,
                     line: { color: c.muted, width: 1, dash: "dot" } }];
  layout.annotations = [];
  if (i.breakeven !== null && i.breakeven > 1 && i.breakeven <= xs[xs.length - 1]) {
    layout.shapes.push(breakevenShape(i.breakeven, c.putIn));
    layout.annotations.push({ x: Math.log10(i.breakeven), y: 0.04, yref: "paper", text: `${ctx.t("breakeven")}: ${num(i.breakeven)}`,
                              showarrow: false, xanchor: "right", font: { color: c.putIn, size: 12 } });
  }
  Plotly.react(node, [
    { x: xs, y: i.curve.plain, name: ctx.t("plain"), mode: "lines", line: { color: c.muted, width: 2.5, dash: "dash" },
      ...countHover(i.curve.plain) },
    { x: xs, y: i.curve.spec, name: ctx.t("spec"), mode: "lines", line: { color: c.accent, width: 2.5 },
      ...countHover(i.curve.spec) },
    { x: [i.batch, i.batch], y: [i.tokens_per_s_plain, i.tokens_per_s_spec], name: ctx.t("you_are_here"),
      mode: "markers", marker: { color: c.ink, size: 8 }, hoverinfo: "skip" },
  ], layout, PLOT_CONFIG);
}

function drawContexts(Plotly, node, a, ctx) {
  const i = a.idle;
  const c = colours();
  const xs = i.curve.batches;
  const palette = [c.muted, c.kept, c.accent, c.ink];
  const dashes = ["dot", "dashdot", "solid", "dash"]; // curves may coincide: dashes keep both visible
  const layout = baseLayout(ctx, { xTitle: ctx.t("x_title"), yTitle: ctx.t("y_speedup"), yLog: false });
  layout.yaxis.rangemode = "tozero";
  layout.shapes = [{ type: "line", xref: "paper", x0: 0, x1: 1, y0: 1, y1: 1, line: { color: c.ink, width: 1 } }];
  i.contexts.forEach((row, k) => {
    if (row.breakeven !== null && row.breakeven > 1 && row.breakeven <= xs[xs.length - 1]) {
      layout.shapes.push(breakevenShape(row.breakeven, palette[k % palette.length]));
    }
  });
  Plotly.react(node, i.contexts.map((row, k) => ({
    x: xs, y: row.speedup, mode: "lines",
    line: { color: palette[k % palette.length], width: 2.5, dash: dashes[k % dashes.length] },
    name: row.ctx === 0 ? ctx.t("ctx_zero") : ctx.t("ctx_label", { n: num(row.ctx) }),
    hovertemplate: "%{y:.2f}×<extra></extra>",
  })), layout, PLOT_CONFIG);
}

export function mount(el, ctx) {
  const one = lazyChart(el.querySelector('[data-plot="idle"]'), ctx, (P, n, a) => drawThroughput(P, n, a, ctx));
  const two = lazyChart(el.querySelector('[data-plot="idle-contexts"]'), ctx, (P, n, a) => drawContexts(P, n, a, ctx));
  const alphaControls = [...el.querySelectorAll('[data-param="alpha"]')];
  const draw = (a) => {
    one(a);
    two(a);
    // Unset, α is the one section 7 measures: the slider shows it.
    if (a.measured) {
      for (const c of alphaControls) if (c !== document.activeElement) c.value = String(a.idle.alpha);
    }
  };
  draw(ctx.answer());
  ctx.onAnswer(draw);
}
