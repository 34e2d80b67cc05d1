// The `bench` section, the bench: presets, every control together, the tape and the gauges of the current
// pass (helpers from the tape and rule widgets). The answer-driven numbers (α, the formula, the
// speed on paper) are the section's live text; this steps through the run.
import { num } from "../format.js";
import { player } from "../player.js";
import { tapePlayer } from "./tape.js";
import { renderGauges } from "./rule.js";

// Tokens of `run` repeat with some period ≥ 1 at the end: the sign of a greedy loop.
export function loops(tokens, minRepeats = 2) {
  const n = tokens.length;
  for (let period = 1; period <= Math.floor(n / (minRepeats + 1)); period++) {
    let ok = true;
    for (let i = n - period * (minRepeats + 1); i < n - period && ok; i++) {
      if (tokens[i] !== tokens[i + period]) ok = false;
    }
    if (ok) return period;
  }
  return 0;
}

export function mount(el, ctx) {
  const t = (k, vars) => ctx.t(k, vars);
  const list = el.querySelector(".bench-tape");
  const gauges = el.querySelector(".bench-gauges");
  const out = (name) => el.querySelector(`[data-out="${name}"]`);
  let presetNote = "";
  let applying = false;  // a preset is setting its values; a change by hand drops its note

  const readout = () => {
    const { run, passes } = tp;
    const done = run.steps.slice(0, passes);
    const written = done.reduce((n, s) => n + s.written.length, 0);
    out("per-pass").textContent = num(passes ? written / passes : null, 2);
    const last = done[done.length - 1];
    if (last) {
      renderGauges(gauges, last, t);
      out("pass-label").textContent = t("pass_of", { n: passes, total: run.steps.length });
    } else {
      gauges.replaceChildren();
      out("pass-label").textContent = t("no_pass");
    }
    const tokens = [...list.querySelectorAll(".tape-tok")].map((x) => x.textContent);
    out("status").textContent = ctx.state.get("greedy") && loops(tokens) ? t("loop") : presetNote;
  };

  const tp = tapePlayer(list, t, readout);
  player(el, ctx, { step: tp.step, reset: tp.reset, back: tp.back, canStep: tp.canStep, interval: 700 });

  // A preset sets several values at once (one change of the state), then says which point it makes.
  const reads = ctx.state.reads("bench");
  el.querySelectorAll("[data-preset]").forEach((btn) => {
    btn.addEventListener("click", () => {
      const values = btn.dataset.preset === "defaults"
        ? Object.fromEntries(reads.map((n) => [n, ctx.state.defaults[n]]))
        : JSON.parse(btn.dataset.preset);
      applying = true;
      ctx.state.set(values);
      applying = false;
      presetNote = t("preset_done", { name: btn.textContent.trim() });
      out("status").textContent = presetNote;
    });
  });
  ctx.state.subscribe(() => { if (!applying) presetNote = ""; });

  const load = (a) => tp.load(a.run);
  load(ctx.answer());
  ctx.onAnswer(load);
}
