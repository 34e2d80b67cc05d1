// Section 3 "Let a small model guess": the draft runs γ times, writing one guess (with its q)
// each time; then the target runs once with γ + 1 positions lit. Each Step is one phase.
import { bindControls, fetchRun, fmt, h, onState, player, showError } from "./spec-shared.js";

const CONTEXT_SHOWN = 8; // tokens of context shown before the guesses

export function mount(el, ctx) {
  const t = (k) => ctx.t(k);
  const slots = el.querySelector(".draft-slots");
  const lanes = el.querySelector(".target-lanes");
  const ctxBox = el.querySelector(".draft-context");
  const status = el.querySelector("[data-out=status]");
  let run = null;
  let pass = 0;   // which step of the run
  let phase = 0;  // 0: nothing yet; 1..γ: guesses written; γ + 1: target lit

  const contextTokens = () => {
    const toks = [...run.context];
    for (const s of run.steps.slice(0, pass)) toks.push(...s.written.map((w) => w.token));
    return toks.slice(-CONTEXT_SHOWN);
  };

  const draw = () => {
    const step = run.steps[pass];
    const gamma = step.proposals.length;
    ctxBox.replaceChildren(...contextTokens().map((tok) => h("span", { class: "draft-ctx-tok", text: tok })));
    slots.replaceChildren(
      ...step.proposals.map((p, i) =>
        h("li", { class: `draft-slot${i < phase ? " is-written" : ""}${i === phase - 1 ? " is-new" : ""}` },
          h("span", { class: "draft-tok", text: i < phase ? p.token : "…" }),
          h("span", { class: "draft-q", text: i < phase ? `q = ${fmt(p.q, 2)}` : "" }))),
    );
    const lit = phase > gamma;
    let refused = false;
    lanes.replaceChildren(
      ...Array.from({ length: gamma + 1 }, (_, i) => {
        const p = step.proposals[i];
        let cls = "target-lane";
        let note = "";
        if (lit) {
          cls += " is-lit";
          if (!p) note = refused ? t("discarded") : t("bonus_position");
          else if (refused) { cls += " is-discarded"; note = t("discarded"); }
          else if (p.accepted) { cls += " is-kept"; note = t("kept"); }
          else { cls += " is-refused"; note = t("refused"); refused = true; }
        }
        return h("li", { class: cls },
          h("span", { class: "lane-num", text: String(i + 1) }),
          h("span", { class: "lane-p", text: lit && p ? `p = ${fmt(p.p, 2)}` : "" }),
          h("span", { class: "lane-note", text: note }));
      }),
    );
    el.style.setProperty("--lanes", gamma + 1);
    status.textContent = phase === 0 ? t("status_ready")
      : phase <= gamma ? t("status_draft").replace("{i}", phase).replace("{gamma}", gamma)
      : t("status_target").replace("{n}", gamma + 1).replace("{w}", step.written.length);
  };

  const canStep = () => run && !(pass >= run.steps.length - 1 && phase > run.steps[pass].proposals.length);
  const step = () => {
    if (!run) return;
    if (phase > run.steps[pass].proposals.length) {
      if (pass >= run.steps.length - 1) return;
      pass += 1;
      phase = 1;
    } else phase += 1;
    draw();
  };
  const reset = () => { if (run) { pass = 0; phase = 0; draw(); } };
  player(el, ctx, { step, reset, canStep, interval: 700 });
  bindControls(el, ctx);

  const load = () =>
    fetchRun(ctx)
      .then((r) => { run = r; reset(); el.dataset.ready = "1"; })
      .catch((e) => showError(el, e));
  onState(["gamma", "draft", "greedy", "rule", "seed"], load);
  load();
}
