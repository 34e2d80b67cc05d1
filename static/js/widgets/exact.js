// Section 6 "The same distribution": two tubes filled from one context, plain sampling from p
// (left) and speculative decoding's first token (right), 50 trials a round; a chi-square readout.
// renderTube is exported for the bench (section 13).
import { svg } from "../dom.js";
import { params } from "../state.js";

const SHOWN = 7;        // tokens with their own column; the rest share "other"
const ROUNDS_MAX = params.rounds?.hi ?? 20;
const SEED_MAX = params.seed?.hi ?? 2147483647;
const W = 360, H = 170, BASE = 22;

const s = (tag, attrs = {}, text) => svg(tag, attrs, text ?? null);

// columns: [{label, p, balls: ["kept"|"put-in"|"plain", ...]}]; total = trials so far.
export function renderTube(svg, columns, total, t) {
  const slot = W / columns.length;
  const maxBalls = Math.max(1, ...columns.map((c) => Math.max(c.balls.length, c.p * total)));
  // Ball size: as large as lets the fullest column (or its p mark) fit the tube.
  let best = { d: 0, per: 1 };
  for (let per = 1; per <= 24; per++) {
    const d = Math.min((slot - 6) / per, (H - BASE - 4) / Math.ceil(maxBalls / per));
    if (d > best.d) best = { d, per };
  }
  const { d, per } = best;
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.replaceChildren(s("rect", { class: "tube-glass", x: 0.5, y: 0.5, width: W - 1, height: H - BASE }));
  columns.forEach((c, j) => {
    const x0 = j * slot + (slot - per * d) / 2;
    c.balls.forEach((kind, i) => {
      const row = Math.floor(i / per), col = i % per;
      const cx = x0 + (col + 0.5) * d, cy = H - BASE - (row + 0.5) * d, r = d * 0.45;
      // Put-in tokens are diamonds, as on the tape, so they differ from kept guesses by shape too.
      svg.append(kind === "put-in"
        ? s("path", { class: `ball ball--${kind}`, d: `M${cx} ${cy - r * 1.1}L${cx + r * 1.1} ${cy}L${cx} ${cy + r * 1.1}L${cx - r * 1.1} ${cy}Z` })
        : s("circle", { class: `ball ball--${kind}`, cx, cy, r }));
    });
    const yp = H - BASE - (c.p * total / per) * d;
    svg.append(s("line", { class: "p-mark", x1: x0 - 3, x2: x0 + per * d + 3, y1: yp, y2: yp }));
    svg.append(s("text", { class: "tube-label", x: j * slot + slot / 2, y: H - 8, "text-anchor": "middle" }, c.label));
  });
  svg.append(s("title", {}, t("tube_title")));
}

// Columns from the API's answer: the SHOWN likeliest tokens under p, then "other".
export function tubeColumns(data, which, t) {
  const byP = Object.entries(data.p).sort((a, b) => b[1] - a[1]);
  const shown = byP.slice(0, SHOWN).map(([tok]) => tok);
  const index = new Map(shown.map((tok, i) => [tok, i]));
  const cols = shown.map((tok) => ({ label: tok, p: data.p[tok], balls: [] }));
  cols.push({ label: t("other"), p: 1 - shown.reduce((a, tok) => a + data.p[tok], 0), balls: [] });
  for (const round of data.samples) {
    const draws = which === "plain" ? round.plain.map((tok) => [tok, "plain"])
      : round.speculative.map(([tok, kept]) => [tok, kept ? "kept" : "put-in"]);
    for (const [tok, kind] of draws) cols[index.has(tok) ? index.get(tok) : cols.length - 1].balls.push(kind);
  }
  // Kept balls settle first, so each column reads as "kept below, put in above".
  for (const c of cols) c.balls.sort((a, b) => (a === b ? 0 : a === "kept" ? -1 : 1));
  return cols;
}

export function mount(el, ctx) {
  const t = (k, vars) => ctx.t(k, vars);
  const plainSvg = el.querySelector("svg.tube--plain");
  const specSvg = el.querySelector("svg.tube--spec");
  const addBtn = el.querySelector("[data-act=add]");
  const { state } = ctx;

  const draw = (a) => {
    const data = a.tubes;
    const total = data.rounds * data.trials;
    renderTube(plainSvg, tubeColumns(data, "plain", t), total, t);
    renderTube(specSvg, tubeColumns(data, "speculative", t), total, t);
    el.dataset.rule = data.rule;
    el.dataset.rounds = String(data.rounds);
    addBtn.disabled = data.rounds >= a.rounds_max;
  };

  // A round more, or the tubes emptied and filled again with new draws (the next seed).
  const add = () => { if (state.get("rounds") < ROUNDS_MAX) state.set({ rounds: state.get("rounds") + 1 }); };
  const refill = () => state.set({ rounds: 1, seed: (state.get("seed") + 1) % (SEED_MAX + 1) });
  addBtn.addEventListener("click", add);
  el.querySelector("[data-act=refill]").addEventListener("click", refill);
  if (!el.hasAttribute("tabindex")) el.tabIndex = 0;
  ctx.onKey({ step: add, play: add, reset: () => state.set({ rounds: 1 }) });
  draw(ctx.answer());
  ctx.onAnswer(draw);
}
