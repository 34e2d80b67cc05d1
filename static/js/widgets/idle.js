// The `idle` section: speculation against batch size on paper, where it stops paying, long contexts.
// Both charts draw the section's answer; the numbers around them are its live text. Every curve
// ends where its streams stop fitting in memory (the limit marked), and the published
// measurements taken on the chosen GPU and model are drawn as points beside the ideal.
import { lazyChart, baseLayout, colours, countHover, upToLimit, limitMark, pointLabels, PLOT_CONFIG } from "../charts.js";
import { colon, count, format, num, times } from "../format.js";

function breakevenShape(x, colour) {
  return { type: "line", x0: x, x1: x, yref: "paper", y0: 0, y1: 1, line: { color: colour, width: 1.5, dash: "dash" } };
}

function measuredName(r) { return r.method ? `${r.engine} + ${r.method}` : r.engine; }

// Measurements with a batch, taken on this GPU and model: they can sit on an axis over batch.
function drawable(a, what) {
  return (a.idle.published || []).filter((r) => r.matches && r.batch && r[what] !== null);
}

function limitLabel(ctx, limit) { return limit ? ctx.t("limit", { n: num(limit) }) : ctx.t("none_fit"); }

function drawThroughput(Plotly, node, a, ctx) {
  const i = a.idle;
  const c = colours();
  const xs = i.curve.batches;
  const plain = upToLimit(xs, i.curve.plain, i.curve, "plain");
  const spec = upToLimit(xs, i.curve.spec, i.curve, "spec");
  const layout = baseLayout(ctx, { xTitle: ctx.t("x_title"), yTitle: ctx.t("y_title") });
  layout.shapes = [{ type: "line", x0: i.batch, x1: i.batch, yref: "paper", y0: 0, y1: 1,
                     line: { color: c.muted, width: 1, dash: "dot" } }];
  layout.annotations = [];
  const limit = i.curve.max_batch;
  if (i.breakeven !== null && i.breakeven > 1 && i.breakeven <= xs[xs.length - 1] && i.breakeven_fits) {
    layout.shapes.push(breakevenShape(i.breakeven, c.putIn));
    layout.annotations.push({ x: Math.log10(i.breakeven), y: 0.04, yref: "paper", text: `${ctx.t("breakeven")}${colon()}${num(i.breakeven)}`,
                              showarrow: false, xanchor: "right", font: { color: c.putIn, size: 12 } });
  }
  if (limit !== null && limit <= xs[xs.length - 1]) {
    const mark = limitMark(Math.max(limit, 1), limitLabel(ctx, limit), c.ink);
    layout.shapes.push(mark.shape);
    layout.annotations.push(mark.annotation);
  }
  const traces = [
    { x: plain.x, y: plain.y, name: ctx.t("plain"), mode: "lines", line: { color: c.muted, width: 2.5, dash: "dash" },
      ...countHover(plain.y, ctx.t("plain"), ctx.t("per_s")) },
    { x: spec.x, y: spec.y, name: ctx.t("spec"), mode: "lines", line: { color: c.accent, width: 2.5 },
      ...countHover(spec.y, ctx.t("spec"), ctx.t("per_s")) },
    { x: [i.batch, i.batch], y: [i.tokens_per_s_plain, i.tokens_per_s_spec], name: ctx.t("you_are_here"),
      mode: "markers", marker: { color: c.ink, size: 8 }, hoverinfo: "skip" },
  ];
  const pts = drawable(a, "tokens_per_s");
  if (pts.length) {
    traces.push({
      x: pts.map((r) => r.batch), y: pts.map((r) => r.tokens_per_s), mode: "markers",
      name: ctx.t("measured", { name: "SGLang" }), cliponaxis: false, hoverinfo: "skip",
      marker: { color: c.ink, size: 10, symbol: "diamond-open", line: { width: 2 } },
    });
    // Labels off the curves, not over them (two points at batch 1 would overlap).
    layout.annotations = [...(layout.annotations || []), ...pointLabels(layout,
      pts.map((r) => ({ x: r.batch, y: r.tokens_per_s, text: `${measuredName(r)} ${count(r.tokens_per_s)}` })), c.ink)];
  }
  Plotly.react(node, traces, layout, PLOT_CONFIG);
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
  const traces = i.contexts.map((row, k) => {
    const colour = palette[k % palette.length];
    if (row.breakeven !== null && row.breakeven > 1 && row.breakeven <= xs[xs.length - 1] && row.breakeven_fits) {
      layout.shapes.push(breakevenShape(row.breakeven, colour));
    }
    const cut = upToLimit(xs, row.speedup, row, "speedup");
    // The limit: the curve's last point, ringed in the curve's colour.
    const end = row.at_limit ? { x: [row.at_limit.batch], y: [row.at_limit.speedup] } : { x: [], y: [] };
    return [
      { x: cut.x, y: cut.y, mode: "lines", line: { color: colour, width: 2.5, dash: dashes[k % dashes.length] },
        name: row.ctx === 0 ? ctx.t("ctx_zero") : ctx.t("ctx_label", { n: num(row.ctx) }),
        hovertemplate: `${times("%{y:.2f}")}<extra></extra>`, legendgroup: String(row.ctx) },
      { x: end.x, y: end.y, mode: "markers", showlegend: false, legendgroup: String(row.ctx), hoverinfo: "skip",
        marker: { symbol: "line-ns-open", size: 16, color: colour, line: { width: 3, color: colour } } },
    ];
  }).flat();
  const pts = drawable(a, "speedup");
  if (pts.length) {
    traces.push({
      x: pts.map((r) => r.batch), y: pts.map((r) => r.speedup), mode: "markers",
      name: ctx.t("measured", { name: "SGLang" }), cliponaxis: false, hoverinfo: "skip",
      marker: { color: c.ink, size: 10, symbol: "diamond-open", line: { width: 2 } },
    });
    layout.annotations = [...(layout.annotations || []), ...pointLabels(layout,
      pts.map((r) => ({ x: r.batch, y: r.speedup, text: `${r.method} ${format(r.speedup, "x:2")}` })), c.ink)];
  }
  Plotly.react(node, traces, layout, PLOT_CONFIG);
}

export function mount(el, ctx) {
  const one = lazyChart(el.querySelector('[data-plot="idle"]'), ctx, (P, n, a) => drawThroughput(P, n, a, ctx));
  const two = lazyChart(el.querySelector('[data-plot="idle-contexts"]'), ctx, (P, n, a) => drawContexts(P, n, a, ctx));
  const alphaControls = [...el.querySelectorAll('[data-param="alpha"]')];
  const draw = (a) => {
    one(a);
    two(a);
    // Unset, α is the one the `alpha` section measures: the slider shows it.
    if (a.measured) {
      for (const c of alphaControls) if (c !== document.activeElement) c.value = String(a.idle.alpha);
    }
  };
  draw(ctx.answer());
  ctx.onAnswer(draw);
}
