// Section 5 "The rule for passing": one gauge per guess, the column at p/q (full scale 1) and a
// line at the random r; on a refusal, the residual max(0, p − q) the replacement is drawn from.
// renderGauges / renderResidual are exported for the bench (section 13).
import { h, svg as s } from "../dom.js";
import { num, prob } from "../format.js";
import { player } from "../player.js";

// One gauge: column height min(1, p/q), a line at r (absent in greedy mode).
export function gaugeSvg(proposal) {
  const H = 100;
  const col = Math.min(1, proposal.ratio ?? 0);
  const svg = s("svg", { class: "gauge", viewBox: `0 0 40 ${H}`, "aria-hidden": "true", focusable: "false" },
    s("rect", { class: "gauge-bg", x: 8, y: 0, width: 24, height: H }),
    s("rect", { class: "gauge-col", x: 8, y: H * (1 - col), width: 24, height: H * col }));
  if (proposal.r !== null && proposal.r !== undefined) {
    svg.append(s("line", { class: "gauge-r", x1: 2, x2: 38, y1: H * (1 - proposal.r), y2: H * (1 - proposal.r) }));
  }
  return svg;
}

export function renderGauges(container, step, t) {
  let refused = false;
  container.replaceChildren(...step.proposals.map((p) => {
    const state = refused ? "skipped" : p.accepted ? "kept" : "refused";
    if (!p.accepted) refused = true;
    const rText = p.r === null || p.r === undefined ? t("greedy_r") : `r = ${num(p.r, 2)}`;
    return h("li", { class: `gauge-item gauge-item--${state}`, "data-verdict": state },
      gaugeSvg(p),
      h("span", { class: "gauge-tok", text: p.token }),
      h("span", { class: "gauge-num", text: `p = ${prob(p.p)}` }),
      h("span", { class: "gauge-num", text: `q = ${prob(p.q)}` }),
      h("span", { class: "gauge-num", text: `p/q = ${num(p.ratio, 2)}` }),
      h("span", { class: "gauge-num", text: rText }),
      h("span", { class: "gauge-verdict", text: t(state) }));
  }));
}

function bar(value, scale, cls) {
  const w = scale > 0 ? Math.max(0, Math.min(1, value / scale)) * 100 : 0;
  return s("svg", { class: "rbar", viewBox: "0 0 100 10", preserveAspectRatio: "none", "aria-hidden": "true" },
    s("rect", { class: cls, x: 0, y: 1, width: w, height: 8 }));
}

// rows: [{token, p, q, residual}], from the server (exact distributions at that position).
export function renderResidual(table, rows, replacement) {
  const scale = Math.max(...rows.flatMap((r) => [r.p, r.q, r.residual]), 1e-9);
  table.tBodies[0].replaceChildren(...rows.map((r) =>
    h("tr", { class: r.token === replacement ? "is-drawn" : null },
      h("th", { scope: "row", text: r.token }),
      ...[["p", "bar-p"], ["q", "bar-q"], ["residual", "bar-res"]].map(([k, cls]) =>
        h("td", {}, bar(r[k], scale, cls), h("span", { class: "rnum", text: prob(r[k]) }))))));
}

export function mount(el, ctx) {
  const t = (k, vars) => ctx.t(k, vars);
  const gauges = el.querySelector(".gauges");
  const resBox = el.querySelector(".residual");
  const table = el.querySelector(".residual table");
  const status = el.querySelector("[data-out=status]");
  let run = null;
  let pass = 0;

  const draw = () => {
    const step = run.steps[pass];
    renderGauges(gauges, step, t);
    const rows = step.residual_rows;
    const showResidual = step.replacement !== null && step.replacement !== undefined && rows && rows.length;
    resBox.hidden = !showResidual;
    if (showResidual) renderResidual(table, rows, step.replacement);
    el.querySelector("[data-out=pass]").textContent = num(pass + 1);
    el.querySelector("[data-out=passes]").textContent = num(run.steps.length);
    status.textContent = step.bonus !== null && step.bonus !== undefined
      ? t("status_bonus", { token: step.bonus })
      : step.greedy ? t("status_greedy", { token: step.replacement ?? "" })
      : t(`status_${step.rule}`, { token: step.replacement ?? "" });
  };
  const canStep = () => run && pass < run.steps.length - 1;
  const step = () => { if (canStep()) { pass += 1; draw(); } };
  // Reset goes to the first pass with a refusal, where the server-rendered view also starts.
  const firstRefusal = () => Math.max(0, run.steps.findIndex((st) => st.replacement !== null && st.replacement !== undefined));
  const reset = () => { if (run) { pass = firstRefusal(); draw(); } };
  const back = () => { if (run && pass > 0) { pass -= 1; draw(); } };
  player(el, ctx, { step, reset, back, canStep, interval: 1400 });
  el.querySelector("[data-act=next-refusal]")?.addEventListener("click", () => {
    if (!run) return;
    const i = run.steps.findIndex((st, j) => j > pass && st.replacement !== null && st.replacement !== undefined);
    if (i >= 0) { pass = i; draw(); }
  });

  const load = (a) => { run = a.run; reset(); };
  load(ctx.answer());
  ctx.onAnswer(load);
}
