// The `rule` section "The rule for passing": one gauge per guess, the column at p/q (full scale 1) and a
// line at the random r; on a refusal, the residual max(0, p − q) the replacement is drawn from.
// Under greedy decoding a guess is checked by comparing the two favourites, so each card sets the
// draft's likeliest token (with q) beside the target's (with p): "=" kept, "≠" refused.
// renderGauges / renderResidual are exported for the bench (the `bench` section). The server draws the
// same first view (templates/plate/widgets/_gauges.html).
import { h, storyT, svg as s } from "../dom.js";
import { num, prob } from "../format.js";
import { player } from "../player.js";

const present = (x) => x !== null && x !== undefined;

// One gauge: column height min(1, p/q), a line at r.
export function gaugeSvg(proposal) {
  const H = 100;
  const col = Math.min(1, proposal.ratio ?? 0);
  const svg = s("svg", { class: "gauge", viewBox: `0 0 40 ${H}`, "aria-hidden": "true", focusable: "false" },
    s("rect", { class: "gauge-bg", x: 8, y: 0, width: 24, height: H }),
    s("rect", { class: "gauge-col", x: 8, y: H * (1 - col), width: 24, height: H * col }));
  if (present(proposal.r)) {
    svg.append(s("line", { class: "gauge-r", x1: 2, x2: 38, y1: H * (1 - proposal.r), y2: H * (1 - proposal.r) }));
  }
  return svg;
}

// p/q as the gauge reads it: "≥ 1" when the guess is kept for certain (however tiny q was),
// otherwise with its significant figures (never 0.00 from two small numbers).
export function ratioText(p) {
  return p.ratio >= 1 ? "p/q ≥ 1" : `p/q = ${prob(p.ratio)}`;
}

function greedyCard(gc, state, t) {
  const side = (who, tok, label, value) => h("span", { class: "greedy-side" },
    h("span", { class: "greedy-who", text: who }),
    h("span", { class: "greedy-tok", text: tok }),
    h("span", { class: "gauge-num", text: `${label} = ${prob(value)}` }));
  return h("li", { class: `gauge-item gauge-item--${state} gauge-item--greedy`, "data-verdict": state },
    side(t("draft_top"), gc.draft_top, "q", gc.q),
    h("span", { class: "greedy-sign", "aria-hidden": "true", text: gc.agree ? "=" : "≠" }),
    h("span", { class: "sr-only", text: t(gc.agree ? "same" : "not_same") }),
    side(t("target_top"), gc.target_top, "p", gc.p),
    h("span", { class: "gauge-verdict", text: t(state) }));
}

export function renderGauges(container, step, t) {
  let refused = false;
  container.replaceChildren(...step.proposals.map((p) => {
    const state = refused ? "skipped" : p.accepted ? "kept" : "refused";
    if (!p.accepted) refused = true;
    if (p.greedy_check) return greedyCard(p.greedy_check, state, t);
    return h("li", { class: `gauge-item gauge-item--${state}`, "data-verdict": state },
      gaugeSvg(p),
      h("span", { class: "gauge-tok", text: p.token }),
      h("span", { class: "gauge-num", text: `p = ${prob(p.p)}` }),
      h("span", { class: "gauge-num", text: `q = ${prob(p.q)}` }),
      h("span", { class: "gauge-num", text: ratioText(p) }),
      present(p.r) ? h("span", { class: "gauge-num", text: `r = ${prob(p.r)}` }) : null,
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
      h("th", { scope: "row" }, h("span", { class: "tok-box", text: r.token })),
      ...[["p", "bar-p"], ["q", "bar-q"], ["residual", "bar-res"]].map(([k, cls]) =>
        h("td", {}, bar(r[k], scale, cls), h("span", { class: "rnum", text: prob(r[k]) }))))));
}

const refusedAt = (st) => present(st.replacement);

export function mount(el, ctx) {
  const t = (k, vars) => ctx.t(k, vars);
  const gauges = el.querySelector(".gauges");
  const resBox = el.querySelector(".residual");
  const table = el.querySelector(".residual table");
  const status = el.querySelector("[data-out=status]");
  const resetBtn = el.querySelector("[data-act=reset]");
  let run = null;
  let pass = 0;

  const statusFor = (step) => {
    if (present(step.bonus)) return t("status_bonus", { token: step.bonus });
    if (!refusedAt(step)) return t("status_none");
    return step.greedy ? t("status_greedy", { token: step.replacement })
      : storyT(t, `status_${step.rule}`, { token: step.replacement });
  };
  const draw = () => {
    const step = run.steps[pass];
    renderGauges(gauges, step, t);
    const rows = step.residual_rows;
    const showResidual = refusedAt(step) && rows && rows.length;
    resBox.hidden = !showResidual;
    if (showResidual) renderResidual(table, rows, step.replacement);
    el.querySelector("[data-out=pass]").textContent = num(pass + 1);
    el.querySelector("[data-out=passes]").textContent = num(run.steps.length);
    status.textContent = statusFor(step);
  };
  const canStep = () => run && pass < run.steps.length - 1;
  const step = () => { if (canStep()) { pass += 1; draw(); } };
  // The widget opens on the first pass with a refusal, as the server's first view does (that is
  // where the residual shows); Reset says so on its button and goes back there.
  const firstRefusal = () => Math.max(0, run.steps.findIndex(refusedAt));
  const reset = () => { if (run) { pass = firstRefusal(); draw(); } };
  const back = () => { if (run && pass > 0) { pass -= 1; draw(); } };
  const api = player(el, ctx, { step, reset, back, canStep, interval: 1400 });
  el.querySelector("[data-act=back]")?.addEventListener("click", api.back);
  el.querySelector("[data-act=next-refusal]")?.addEventListener("click", () => {
    if (!run) return;
    api.pause();
    const i = run.steps.findIndex((st, j) => j > pass && refusedAt(st));
    if (i >= 0) { pass = i; draw(); return; }
    // Nothing further: say so rather than do nothing.
    status.textContent = run.steps.some(refusedAt) ? t("no_refusal_after", { n: num(pass + 1) }) : t("no_refusal");
  });

  const load = (a) => {
    run = a.run;
    resetBtn.textContent = t(run.steps.some(refusedAt) ? "reset_refusal" : "reset_first");
    reset();
  };
  load(ctx.answer());
  ctx.onAnswer(load);
  // The Story depth words the status without formulas: say it again when the depth changes.
  ctx.state.subscribe((names) => { if (names.has("depth") && run) status.textContent = statusFor(run.steps[pass]); });
}
