// Section 13, the bench: every control together, the tape and the gauges of the current pass
// (helpers imported from the tape and rule widgets), measured α, tokens per pass, and the
// speed-up on paper at the chosen batch (from /api/roofline with the measured α).
import { bindControls, fetchRun, fmt, onState, player, showError, stateValue } from "./spec-shared.js";
import { tapePlayer } from "./tape.js";
import { renderGauges } from "./rule.js";
import { formatCount } from "./numbers.js";

const RUN_TOKENS = 60;   // long enough for a greedy loop to show, within the API's cap of 200

// Tokens of `run` repeat with some period ≥ 2 at the end: the sign of a greedy loop.
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
  let rooflineSeq = 0;
  let presetNote = "";
  let applying = false;  // true while a preset sets its values; a hand-made change drops the note

  const readout = () => {
    const { run, passes } = tp;
    const done = run.steps.slice(0, passes);
    const written = done.reduce((n, s) => n + s.written.length, 0);
    out("per-pass").textContent = passes ? fmt(written / passes, 2) : "—";
    out("alpha").textContent = fmt(run.alpha, 2);
    out("formula").textContent = fmt(run.tokens_per_pass_formula, 2);
    const last = done[done.length - 1];
    if (last) {
      renderGauges(gauges, last, t);
      out("pass-label").textContent = t("pass_of", { n: passes, total: run.steps.length });
    } else {
      gauges.replaceChildren();
      out("pass-label").textContent = t("no_pass");
    }
    const tokens = [...list.querySelectorAll(".tape-tok")].map((x) => x.textContent);
    // The loop warning wins; otherwise the last preset's note stays (reloading the run after a
    // preset used to wipe it before anyone could read it).
    out("status").textContent = stateValue(ctx, "greedy") && loops(tokens) ? t("loop") : presetNote;
  };

  const tp = tapePlayer(list, t, readout);
  player(el, ctx, { step: tp.step, reset: tp.reset, back: tp.back, canStep: tp.canStep, interval: 700 });
  bindControls(el, ctx);

  const paper = async () => {
    const { run } = tp;
    if (!run) return;
    const seq = ++rooflineSeq;
    const params = { batch: ctx.state.get("batch") ?? 64, gamma: stateValue(ctx, "gamma"),
                     alpha: Math.min(1, Math.max(0, run.alpha)), c: stateValue(ctx, "c") };
    for (const k of ["gpu", "model", "ctx"]) if (ctx.state.get(k) !== null) params[k] = ctx.state.get(k);
    try {
      const r = await ctx.api("/api/roofline", params);
      if (seq !== rooflineSeq) return;       // a newer request has been made meanwhile
      out("speedup").textContent = `${fmt(r.idle.speedup, 2)}×`;
      out("tps").textContent = `${formatCount(r.idle.tokens_per_s_plain)} → ${formatCount(r.idle.tokens_per_s_spec)}`;
    } catch (e) { showError(el, e); }
  };

  // A preset changes several values at once, so several loads may be in flight: the last wins.
  let loadSeq = 0;
  const load = () => {
    const seq = ++loadSeq;
    return fetchRun(ctx, { tokens: RUN_TOKENS })
      .then((r) => { if (seq !== loadSeq) return; tp.load(r); paper(); el.dataset.ready = "1"; })
      .catch((e) => showError(el, e));
  };

  // Presets: set several state values at once, then announce which point they make.
  el.querySelectorAll("[data-preset]").forEach((btn) => {
    btn.addEventListener("click", () => {
      applying = true;
      for (const k of ["draft", "greedy", "gamma", "batch", "ctx", "seed"]) {
        if (btn.dataset[k] !== undefined) {
          const v = btn.dataset[k];
          ctx.state.set(k, k === "draft" ? v : Number(v));
        }
      }
      applying = false;
      presetNote = t("preset_done", { name: btn.textContent.trim() });
      out("status").textContent = presetNote;
    });
  });

  const batchOut = out("batch-value");
  onState(["batch"], (d) => { if (batchOut) batchOut.textContent = fmt(Number(d.value ?? ctx.state.get("batch")), 0); paper(); });
  onState(["gamma", "draft", "greedy", "rule", "seed", "batch", "c", "ctx"], () => { if (!applying) presetNote = ""; });
  onState(["gamma", "draft", "greedy", "rule", "seed"], load);
  onState(["c", "gpu", "model", "ctx"], paper);
  load();
}
