// Section 7 "The acceptance rate α": α measured from a 200-token run for the chosen draft,
// tokens per pass from the formula next to the count, and a strip colouring each written
// position by how easy it was to guess (Σ min(p, q) there).
import { bindControls, fetchRun, fmt, h, onState, showError, stateValue } from "./spec-shared.js";

const STRIP = 80; // positions shown on the strip

export const bucket = (overlap) => Math.min(4, Math.floor(overlap * 5)); // 5 colour steps

export function renderStrip(list, run, t) {
  list.replaceChildren(...run.tokens.slice(0, STRIP).map((tok, i) => {
    const ov = run.overlap[i];
    return h("li", { class: `strip-cell ov-${bucket(ov)}`, title: `${tok}: Σ min(p, q) = ${fmt(ov, 2)}` },
      h("span", { class: "strip-tok", text: tok }),
      h("span", { class: "sr-only", text: ` (${fmt(ov, 2)})` }));
  }));
}

export function mount(el, ctx) {
  const t = (k) => ctx.t(k);
  const out = (name) => el.querySelector(`[data-out=${name}]`);
  const strip = el.querySelector(".strip");
  const load = () =>
    fetchRun(ctx, { tokens: 200, trace: 0 })  // counts only: no pass-by-pass trace
      .then((run) => {
        out("alpha").textContent = fmt(run.alpha, 3);
        out("acc").textContent = fmt(run.acceptance_rate, 3);
        out("formula").textContent = fmt(run.tokens_per_pass_formula, 2);
        out("counted").textContent = fmt(run.tokens_per_pass, 2);
        out("gamma").textContent = String(stateValue(ctx, "gamma"));
        renderStrip(strip, run, t);
        el.dataset.ready = "1";
      })
      .catch((e) => showError(el, e));
  bindControls(el, ctx);
  onState(["gamma", "draft", "greedy", "rule", "seed"], load);
  load();
}
