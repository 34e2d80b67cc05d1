// Section 8 "How much faster": speed-up (1 − α^(γ+1)) / ((1 − α)(γc + 1)) against γ for the
// measured α and the chosen c, the best γ marked; one cycle's time split into γ draft runs and
// one verification. All numbers from /api/theory; α from a run of the chosen draft.
import { bindControls, fetchRun, fmt, onState, showError, stateValue } from "./spec-shared.js";

export function mount(el, ctx) {
  const t = (k) => ctx.t(k);
  const out = (name) => el.querySelector(`[data-out=${name}]`);
  const chart = el.querySelector(".speedup-chart");
  const alphaInput = el.querySelector("input[data-local=alpha]");
  let alpha = Number(alphaInput.value);
  let plotly = null;
  let last = null;
  let ticket = 0;

  const plot = (th) => {
    if (!plotly) return;
    const g = th.curve.gamma, sp = th.curve.speedup;
    const css = getComputedStyle(document.documentElement);
    const accent = css.getPropertyValue("--accent").trim() || "#a4461c";
    const ink = css.getPropertyValue("--ink").trim() || "#1d1f24";
    plotly.react(chart, [
      { x: g, y: sp, mode: "lines+markers", name: t("curve"), line: { color: accent }, hovertemplate: "γ = %{x}: %{y:.2f}×<extra></extra>" },
      { x: [th.best_gamma], y: [th.best_speedup], mode: "markers+text", name: t("best"), text: [t("best")], textposition: "top center", cliponaxis: false,
        marker: { size: 13, color: ink, symbol: "star" }, hoverinfo: "skip" },
      { x: [th.gamma], y: [th.speedup], mode: "markers", name: t("yours"), marker: { size: 11, color: "rgba(0,0,0,0)", line: { color: accent, width: 2.5 } }, hoverinfo: "skip" },
    ], {
      margin: { l: 50, r: 10, t: 28, b: 45 }, height: 280, showlegend: false,  // t: room for "best γ"
      paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)",
      xaxis: { title: { text: t("x_title") }, dtick: 1, range: [0.5, g.length + 0.5] },
      yaxis: { title: { text: t("y_title") }, rangemode: "tozero" },
      shapes: [{ type: "line", xref: "paper", x0: 0, x1: 1, y0: 1, y1: 1, line: { color: ink, width: 1, dash: "dot" } }],
    }, { displayModeBar: false, responsive: true, locale: ctx.lang === "zh" ? "zh-CN" : "en" });
  };

  const draw = (th) => {
    last = th;
    out("alpha").textContent = fmt(th.alpha, 3);
    out("speedup").textContent = `${fmt(th.speedup, 2)}×`;
    out("best-gamma").textContent = String(th.best_gamma);
    out("best-speedup").textContent = `${fmt(th.best_speedup, 2)}×`;
    out("expected").textContent = fmt(th.expected_tokens, 2);
    out("break-even").textContent = th.break_even_alpha === null ? "—" : fmt(th.break_even_alpha, 2);
    const total = th.cycle.total;
    el.querySelector(".cycle-draft").style.flexGrow = String(th.cycle.draft / total);
    el.querySelector(".cycle-verify").style.flexGrow = String(th.cycle.verify / total);
    out("cycle-draft").textContent = fmt(th.cycle.draft, 2);
    out("cycle-share").textContent = fmt((100 * th.cycle.draft) / total, 0);
    plot(th);
  };

  const update = () => {
    const mine = ++ticket;
    return ctx.api("/api/theory", { alpha, gamma: stateValue(ctx, "gamma"), c: stateValue(ctx, "c") })
      .then((th) => { if (mine === ticket) { draw(th); el.dataset.ready = "1"; } })
      .catch((e) => showError(el, e));
  };

  // α starts at the value measured for the chosen draft; the slider explores around it. A value
  // set with the slider (here or in section 9, which shares it) lives in the URL as `alpha`, so
  // a reload or a shared link shows the same α; a new draft starts again from its measured α.
  const setAlpha = (a) => {
    alpha = a;
    alphaInput.value = String(a);
    alphaInput.setAttribute("aria-valuetext", fmt(a, 3));
  };
  const urlAlpha = () => {
    const raw = new URLSearchParams(location.search).get("alpha");
    const a = raw === null ? NaN : Number(raw);
    return Number.isFinite(a) && a >= 0 && a <= 1 ? a : null;
  };
  const measure = (fromUser) => fetchRun(ctx, { tokens: 200, trace: 0 }).then((run) => {
    const measured = Math.round(run.alpha * 1000) / 1000;
    out("alpha-measured").textContent = fmt(measured, 3);
    const pinned = urlAlpha();
    if (fromUser) { setAlpha(measured); ctx.state.set("alpha", measured); }
    else setAlpha(pinned === null ? measured : pinned);
    return update();
  }).catch((e) => showError(el, e));

  alphaInput.addEventListener("input", () => {
    setAlpha(Number(alphaInput.value));
    ctx.state.set("alpha", alpha);
    update();
  });
  bindControls(el, ctx);
  onState(["c", "gamma"], update);
  onState(["alpha"], ({ value }) => {
    const a = Number(value);
    if (Number.isFinite(a) && a !== alpha) { setAlpha(a); update(); }
  });
  onState(["draft", "greedy", "rule", "seed"], () => measure(true));

  // plotly.js is large: load it only when the chart comes into view.
  const start = () => ctx.loadPlotly().then((P) => {
    plotly = P;
    chart.replaceChildren();
    chart.classList.add("is-live");
    if (last) plot(last);
  }).catch((e) => showError(el, e));
  if ("IntersectionObserver" in window) {
    const io = new IntersectionObserver((es) => { if (es.some((e) => e.isIntersecting)) { io.disconnect(); start(); } }, { rootMargin: "200px" });
    io.observe(chart);
  } else start();
  measure(false);
}
