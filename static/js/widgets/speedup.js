// The `speedup` section "How much faster": speed-up against γ for the measured (or chosen) α and the draft's
// cost c, the best γ marked. Numbers and the fallback drawing are the section's live text; this
// draws the plotly chart and keeps the α slider on the measured value until the reader moves it.
import { lazyChart, colours, PLOT_CONFIG } from "../charts.js";
import { colon, times } from "../format.js";
import { depth, storyT } from "../dom.js";

// The star marks the best γ; at the search's edges it says so: still rising at the largest γ,
// or none at all when plain decoding (γ = 0) is fastest.
function bestMark(th, ctx, c) {
  const best = th.best;
  if (best.edge === "plain") {
    return { x: [th.curve.gamma[0]], y: [1], mode: "text", text: [storyT((k, v) => ctx.t(k, v), "plain")], textposition: "top right",
             cliponaxis: false, hoverinfo: "skip", name: storyT((k, v) => ctx.t(k, v), "plain"), textfont: { color: c.ink } };
  }
  return { x: [best.gamma], y: [best.speedup], mode: "markers+text", name: storyT((k, v) => ctx.t(k, v), "best"),
           text: [best.edge === "rising" ? ctx.t("rising") : storyT((k, v) => ctx.t(k, v), "best")],
           textposition: best.edge === "rising" ? "top left" : "top center", cliponaxis: false,
           marker: { size: 13, color: c.ink, symbol: "star" }, hoverinfo: "skip" };
}

function plot(Plotly, node, a, ctx) {
  const th = a.theory;
  const c = colours();
  Plotly.react(node, [
    { x: th.curve.gamma, y: th.curve.speedup, mode: "lines+markers", name: ctx.t("curve"), line: { color: c.accent },
      // In words at the Story depth, which shows no symbols.
      hovertemplate: `${depth() === "story" ? ctx.t("hover_story", { n: "%{x}" }) : "γ = %{x}"}${colon()}${times("%{y:.2f}")}<extra></extra>` },
    bestMark(th, ctx, c),
    { x: [th.gamma], y: [th.speedup], mode: "markers", name: storyT((k, v) => ctx.t(k, v), "yours"),
      marker: { size: 11, color: "rgba(0,0,0,0)", line: { color: c.accent, width: 2.5 } }, hoverinfo: "skip" },
  ], {
    margin: { l: 50, r: 10, t: 28, b: 45 }, height: 280, showlegend: false,
    paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)",
    xaxis: { title: { text: storyT((k, v) => ctx.t(k, v), "x_title") }, dtick: 1, range: [0.5, th.curve.gamma.length + 0.5] },
    yaxis: { title: { text: ctx.t("y_title") }, rangemode: "tozero" },
    shapes: [{ type: "line", xref: "paper", x0: 0, x1: 1, y0: 1, y1: 1, line: { color: c.ink, width: 1, dash: "dot" } }],
  }, PLOT_CONFIG);
}

export function mount(el, ctx) {
  const chart = lazyChart(el.querySelector(".speedup-chart"), ctx, (P, node, a) => plot(P, node, a, ctx));
  const measuredBtn = el.querySelector("[data-act=measured]");
  const alphaControls = [...el.querySelectorAll('[data-param="alpha"]')];
  measuredBtn?.addEventListener("click", () => ctx.state.set({ alpha: null }));
  const draw = (a) => {
    chart(a);
    if (measuredBtn) measuredBtn.hidden = !a.pinned;
    // Unset, α is the measured one: the slider shows it (the state holds no value to show).
    if (!a.pinned) {
      for (const c of alphaControls) {
        if (c === document.activeElement) continue;
        c.value = String(a.measured);
        if (c.type === "range") c.setAttribute("aria-valuetext", String(a.measured));
      }
    }
  };
  draw(ctx.answer());
  ctx.onAnswer(draw);
}
