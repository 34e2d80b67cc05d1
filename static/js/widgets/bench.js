// The `bench` section, the bench: presets, every control together, the tape and the gauges of the current
// pass (helpers from the tape and rule widgets). The answer-driven numbers (α, the formula, the
// speed on paper) are the section's live text; this steps through the run.
import { num } from "../format.js";
import { player } from "../player.js";
import { tapePlayer } from "./tape.js";
import { renderGauges } from "./rule.js";
import { machineView } from "../machine.js";

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

// One pass in words, for the live region: which guesses were kept, which refused, what the target
// wrote itself ("Pass 3: guesses 1–2 kept, guess 3 refused; the target wrote “the”.").
export function said(step, n, t) {
  const kept = step.written.filter((w) => w.kind === "kept").length;
  const own = step.written[step.written.length - 1];
  const tok = own && own.kind !== "kept" ? own.token : "";
  const g = step.guesses.length;
  if (kept === g) return t(g === 1 ? "said_all_one" : "said_all", { n, k: g, tok });
  if (kept === 0) return t("said_none", { n, tok });
  if (kept === 1) return t("said_one", { n, tok });
  return t("said_some", { n, k: kept, i: kept + 1, tok });
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
  // The machine (static/js/machine.js) plays each pass the tape writes; its time slider scrubs
  // through the pass shown. Without it (no WebGL, reduced motion) the tape steps as before.
  const time = el.querySelector("[data-machine-time]");
  const host = el.querySelector(".machine");
  let current = ctx.answer();
  let m = null;
  const setTime = () => { if (time && m) { time.value = String(Math.round(m.f * 1000)); time.disabled = tp.passes === 0; } };
  if (host) {
    m = machineView(host, { mode: "bench", lang: ctx.lang, answer: () => current });
    if (m.host.dataset.machine !== "waiting") m = null;
  }
  const live = () => Boolean(m && m.e);
  if (m) {
    m.onPassEnd = setTime;
    const sync = m.draw;
    m.draw = () => { sync(); setTime(); };
  }
  const say = () => {
    const s = tp.run?.steps[tp.passes - 1];
    out("said").textContent = s ? said(s, tp.passes, t) : "";
  };
  const step = () => {
    if (!tp.step()) return;
    say();
    if (m) m.play(tp.passes);
  };
  const reset = () => { tp.reset(); say(); if (m) m.seek(0, 1); };
  const back = () => { tp.back(); say(); if (m) m.seek(tp.passes, 1); };
  const pl = player(el, ctx, { step, reset, back, canStep: tp.canStep,
    interval: () => (live() ? m.e_mod.PASS_SECONDS * 1000 + 500 : 700) });
  time?.addEventListener("input", () => {
    if (!m) return;
    pl.pause();
    m.seek(tp.passes, Number(time.value) / 1000);
  });

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

  const load = (a) => { current = a; tp.load(a.run); say(); if (m) m.seek(0, 1); };
  load(ctx.answer());
  ctx.onAnswer(load);
}
