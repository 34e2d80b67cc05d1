// The `exact` section "The same distribution": two tubes filled from one context, plain sampling from p
// (left) and speculative decoding's first token (right); the readouts, the chance of catching a
// wrong rule and the greedy comparison are the section's live text. This draws the tubes from the
// answer's columns (views/sections/speculative.py: tube_view: p and the counts per token): one ball per
// draw while balls stay big enough to see, stacked bars past that (as the server draws them).
import { svg } from "../dom.js";
import { params } from "../state.js";
import { language } from "../language.js";

const ROUNDS_MAX = params.rounds.hi;
const ROUNDS_START = params.rounds?.default ?? 5;
const SEED_MAX = params.draw.hi;
const W = 360, H = 170, BASE = 22;
const MIN_BALL = 5;   // viewBox units (about 6 px on a laptop): smaller balls read as noise

const s = (tag, attrs = {}, text) => svg(tag, attrs, text ?? null);

// The balls of one column, kept guesses below and tokens put in above.
function balls(c, which) {
  if (which === "plain") return Array(c.plain).fill("plain");
  return [...Array(c.kept).fill("kept"), ...Array(c.put_in).fill("put-in")];
}

// The largest ball that lets the fullest column (or its p mark) fit the tube, and balls per row.
function ballSize(cols, which, total) {
  const slot = W / cols.length;
  const most = Math.max(1, ...cols.map((c) => Math.max(balls(c, which).length, c.p * total)));
  let best = { d: 0, per: 1 };
  for (let per = 1; per <= 24; per++) {
    const d = Math.min((slot - 6) / per, (H - BASE - 4) / Math.ceil(most / per));
    if (d > best.d) best = { d, per };
  }
  return best;
}

// A token's label under its column, in a box (so 一 reads as a character, not a dash); the box is
// as wide as the label needs at 11px: the language record's width of a character (glyph_em: a Han
// character about one em, a Latin letter about 0.6 em).
function label(svgEl, c, j, slot, t) {
  const text = c.other ? t("other") : c.token;
  const x = j * slot + slot / 2;
  if (!c.other) {
    const w = Math.max(14, [...text].length * language.glyph_em * 11 + 6);
    svgEl.append(s("rect", { class: "tube-label-box", x: x - w / 2, y: H - 19, width: w, height: 15, rx: 2 }));
  }
  svgEl.append(s("text", { class: "tube-label", x, y: H - 8, "text-anchor": "middle" }, text));
}

// One tube. cols: the answer's tube_cols; which: "plain" | "spec"; total: draws per tube.
export function renderTube(svgEl, cols, which, total, t) {
  const slot = W / cols.length;
  const { d, per } = ballSize(cols, which, total);
  svgEl.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svgEl.replaceChildren(s("rect", { class: "tube-glass", x: 0.5, y: 0.5, width: W - 1, height: H - BASE }));
  const bars = d < MIN_BALL;
  svgEl.dataset.draw = bars ? "bars" : "balls";
  svgEl.dataset.total = String(total);
  if (bars) {
    // Heights as the server draws them: fractions of the tube's tallest column or p mark.
    const top = H - BASE - 4;
    cols.forEach((c, j) => {
      const x = j * slot + 8, w = slot - 16;
      if (which === "plain") {
        svgEl.append(s("rect", { class: "ball--plain", x, y: H - BASE - top * c.h_plain, width: w, height: top * c.h_plain }));
      } else {
        svgEl.append(s("rect", { class: "ball--kept", x, y: H - BASE - top * c.h_kept, width: w, height: top * c.h_kept }));
        svgEl.append(s("rect", { class: "ball--put-in ball--hatched", fill: `url(#tube-hatch-${which})`, x,
          y: H - BASE - top * (c.h_kept + c.h_put_in), width: w, height: top * c.h_put_in }));
      }
      const yp = H - BASE - top * c.h_p;
      svgEl.append(s("line", { class: "p-mark", x1: x - 3, x2: x + w + 3, y1: yp, y2: yp }));
      label(svgEl, c, j, slot, t);
    });
    if (which !== "plain") {
      const pat = svg("pattern", { id: `tube-hatch-${which}`, class: "tube-hatch", width: 6, height: 6,
        patternUnits: "userSpaceOnUse", patternTransform: "rotate(45)" },
      s("rect", { width: 6, height: 6, class: "hatch-bg" }), s("line", { x1: 0, y1: 0, x2: 0, y2: 6, class: "hatch-line" }));
      svgEl.prepend(s("defs", {}, pat));
    }
  } else {
    cols.forEach((c, j) => {
      const x0 = j * slot + (slot - per * d) / 2;
      balls(c, which).forEach((kind, i) => {
        const row = Math.floor(i / per), col = i % per;
        const cx = x0 + (col + 0.5) * d, cy = H - BASE - (row + 0.5) * d, r = d * 0.45;
        // Put-in tokens are diamonds, as on the tape, so they differ from kept guesses by shape too.
        svgEl.append(kind === "put-in"
          ? s("path", { class: `ball ball--${kind}`, d: `M${cx} ${cy - r * 1.1}L${cx + r * 1.1} ${cy}L${cx} ${cy + r * 1.1}L${cx - r * 1.1} ${cy}Z` })
          : s("circle", { class: `ball ball--${kind}`, cx, cy, r }));
      });
      const yp = H - BASE - (c.p * total / per) * d;
      svgEl.append(s("line", { class: "p-mark", x1: x0 - 3, x2: x0 + per * d + 3, y1: yp, y2: yp }));
      label(svgEl, c, j, slot, t);
    });
  }
  svgEl.append(s("title", {}, t("tube_title")));
}

export function mount(el, ctx) {
  const t = (k, vars) => ctx.t(k, vars);
  const plainSvg = el.querySelector("svg.tube--plain");
  const specSvg = el.querySelector("svg.tube--spec");
  const addBtn = el.querySelector("[data-act=add]");
  const { state } = ctx;

  const draw = (a) => {
    const total = a.draws;
    renderTube(plainSvg, a.tube_cols, "plain", total, t);
    renderTube(specSvg, a.tube_cols, "spec", total, t);
    el.dataset.rule = a.tubes.rule;
    el.dataset.rounds = String(a.tubes.rounds);
    addBtn.disabled = a.tubes.rounds >= a.rounds_max;
  };

  // A round more, or the tubes emptied and filled again with new draws from the starting number of
  // rounds: the section's own draw counter counts up, not the page-wide seed (every other section
  // and embed reads that).
  const add = () => { if (state.get("rounds") < ROUNDS_MAX) state.set({ rounds: state.get("rounds") + 1 }); };
  const refill = () => state.set({ rounds: ROUNDS_START, draw: (state.get("draw") + 1) % (SEED_MAX + 1) });
  addBtn.addEventListener("click", add);
  el.querySelector("[data-act=refill]").addEventListener("click", refill);
  if (!el.hasAttribute("tabindex")) el.tabIndex = 0;
  ctx.onKey({ step: add, play: add, reset: () => state.set({ rounds: ROUNDS_START }) });
  draw(ctx.answer());
  ctx.onAnswer(draw);
}
