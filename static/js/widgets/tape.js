// The `tape` section "Until the first wrong guess": the token tape grows one pass of the target at a time.
// A dot marks a kept guess; a diamond marks a token the target wrote itself (replacement or bonus).
// renderTape / tapeCell are exported for the bench (the `bench` section).
import { h } from "../dom.js";
import { num, paren } from "../format.js";
import { player } from "../player.js";

const WRITTEN_BY_TARGET = new Set(["replaced", "bonus"]);

// One cell of the tape. kind: "context" | "kept" | "replaced" | "bonus".
export function tapeCell(token, kind, passIndex, t) {
  const mark = kind === "context" ? null : WRITTEN_BY_TARGET.has(kind) ? "◆" : "●";
  const label = kind === "context" ? null : t(`mark_${kind}`);
  return h(
    "li",
    { class: `tape-cell tape-cell--${kind}${passIndex % 2 ? " tape-cell--odd" : ""}`, "data-kind": kind,
      "data-pass": kind === "context" ? null : passIndex, title: label },
    h("span", { class: "tape-tok", text: token }),
    h("span", { class: "tape-mark", "aria-hidden": "true", text: mark || "" }),
    label ? h("span", { class: "sr-only", text: paren(label) }) : null,
  );
}

// Fill `list` with the context and the tokens written by the first `passes` steps of `run`.
export function renderTape(list, run, passes, t) {
  list.replaceChildren(...run.context.map((tok) => tapeCell(tok, "context", 0, t)));
  run.steps.slice(0, passes).forEach((step, i) => appendPass(list, step, i, t));
}

export function appendPass(list, step, passIndex, t) {
  for (const w of step.written) list.append(tapeCell(w.token, w.kind, passIndex, t));
}

// The tape as a player over a fixed run: step appends one pass, back replays all but the last,
// reset returns to the context. onChange runs after every change (the widget's readout).
export function tapePlayer(list, t, onChange) {
  const tp = { run: null, passes: 0 };
  tp.canStep = () => Boolean(tp.run) && tp.passes < tp.run.steps.length;
  tp.step = () => {
    if (!tp.canStep()) return false;
    appendPass(list, tp.run.steps[tp.passes], tp.passes, t);
    tp.passes += 1;
    onChange();
    return true;
  };
  tp.reset = () => {
    if (!tp.run) return;
    tp.passes = 0;
    renderTape(list, tp.run, 0, t);
    onChange();
  };
  tp.back = () => {
    if (!tp.run || tp.passes === 0) return;
    const k = tp.passes - 1;
    tp.reset();
    while (tp.passes < k) tp.step();
  };
  tp.load = (run) => { tp.run = run; tp.reset(); };
  return tp;
}

export function mount(el, ctx) {
  const t = (k, vars) => ctx.t(k, vars);
  const list = el.querySelector(".tape");
  const out = (name) => el.querySelector(`[data-out=${name}]`);
  const readout = () => {
    const { run, passes } = tp;
    const written = run.steps.slice(0, passes).reduce((n, s) => n + s.written.length, 0);
    const kept = run.steps.slice(0, passes)
      .reduce((n, s) => n + s.written.filter((w) => w.kind === "kept").length, 0);
    out("passes").textContent = num(passes);
    out("tokens").textContent = num(written);
    out("kept").textContent = num(kept);
    out("per-pass").textContent = num(passes ? written / passes : null, 2);
    const status = el.querySelector("[data-out=status]");
    if (status) {
      const last = run.steps[passes - 1];
      status.textContent = !last ? t("status_start")
        : last.bonus !== null && last.bonus !== undefined ? t("status_bonus")
        // "0 guesses kept, then one refused" says nothing a reader can use.
        : last.written.length === 1 ? t("status_first_refused")
        : t("status_replaced", { n: last.written.length - 1 });
    }
  };

  const tp = tapePlayer(list, t, readout);
  const step = () => {
    if (tp.step() && !ctx.reducedMotion) list.lastElementChild?.scrollIntoView({ block: "nearest", inline: "nearest" });
  };
  player(el, ctx, { step, reset: tp.reset, back: tp.back, canStep: tp.canStep });
  const load = (a) => tp.load(a.run);
  load(ctx.answer());
  ctx.onAnswer(load);
}
