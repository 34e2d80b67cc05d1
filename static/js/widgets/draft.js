// The `draft` section "Let a small model guess": the draft runs γ times, writing one guess (with its q)
// each time; then the target runs once with γ + 1 positions lit. Each Step is one phase. It opens
// on the pass the server chose (`open`), and Step goes on through the passes after it.
import { h, storyT } from "../dom.js";
import { prob } from "../format.js";
import { player } from "../player.js";

const CONTEXT_SHOWN = 8; // tokens of context shown before the guesses

export function mount(el, ctx) {
  const t = (k, vars) => ctx.t(k, vars);
  const slots = el.querySelector(".draft-slots");
  const lanes = el.querySelector(".target-lanes");
  const ctxBox = el.querySelector(".draft-context");
  const status = el.querySelector("[data-out=status]");
  let run = null;
  let open = 0;   // the pass it opens on (the answer's choice) and Reset goes back to
  let pass = 0;   // which step of the run
  let phase = 0;  // 0: nothing yet; 1..γ: guesses written; γ + 1: target lit

  const contextTokens = () => {
    const toks = [...run.context];
    for (const s of run.steps.slice(0, pass)) toks.push(...s.written.map((w) => w.token));
    return toks.slice(-CONTEXT_SHOWN);
  };

  const draw = () => {
    const step = run.steps[pass];
    const guesses = step.guesses || [];
    const gamma = guesses.length;
    const checked = step.proposals.length; // guesses after the first refusal are never tested
    ctxBox.replaceChildren(...contextTokens().map((tok) => h("span", { class: "draft-ctx-tok", text: tok })));
    slots.replaceChildren(
      ...guesses.map((g, i) =>
        h("li", { class: `draft-slot${i < phase ? " is-written" : ""}${i === phase - 1 ? " is-new" : ""}` },
          h("span", { class: "draft-tok", text: i < phase ? g.token : "…" }),
          h("span", { class: "draft-q", text: i < phase ? `q = ${prob(g.q)}` : "" }))),
    );
    const lit = phase > gamma;
    lanes.replaceChildren(
      ...Array.from({ length: gamma + 1 }, (_, i) => {
        const g = guesses[i];
        const pr = i < checked ? step.proposals[i] : null;
        let cls = "target-lane";
        let note = "";
        if (lit) {
          cls += " is-lit";
          if (pr) {
            cls += pr.accepted ? " is-kept" : " is-refused";
            // A refusal names what the target wrote there instead, as the bonus lane names its token.
            note = pr.accepted ? t("kept") : step.replacement != null ? t("refused_token", { token: step.replacement }) : t("refused");
          }
          else if (!g && step.bonus !== null && step.bonus !== undefined) note = t("bonus_token", { token: step.bonus });
          else { cls += " is-discarded"; note = t("discarded"); }
        }
        return h("li", { class: cls },
          h("span", { class: "lane-num", text: String(i + 1) }),
          h("span", { class: "lane-p", text: lit && g ? `p = ${prob(g.p)}` : "" }),
          h("span", { class: "lane-note", text: note }));
      }),
    );
    status.textContent = phase === 0 ? t("status_ready", { k: pass + 1 })
      : phase <= gamma ? storyT(t, "status_draft", { i: phase, gamma })
      : t("status_target", { positions: gamma + 1, n: step.written.length });
  };

  const canStep = () => run && !(pass >= run.steps.length - 1 && phase > (run.steps[pass].guesses || []).length);
  const step = () => {
    if (!run) return;
    if (phase > (run.steps[pass].guesses || []).length) {
      if (pass >= run.steps.length - 1) return;
      pass += 1;
      phase = 1;
    } else phase += 1;
    draw();
  };
  const reset = () => { if (run) { pass = open; phase = 0; draw(); } };
  // Back one phase: the previous guess, or the previous pass's check, or the start.
  const back = () => {
    if (!run) return;
    if (phase > 1) phase -= 1;
    else if (pass > 0) { pass -= 1; phase = (run.steps[pass].guesses || []).length + 1; }
    else phase = 0;
    draw();
  };
  player(el, ctx, { step, reset, back, canStep, interval: 700 });
  const load = (a) => { run = a.run; open = a.open || 0; reset(); };
  load(ctx.answer());
  ctx.onAnswer(load);
  // The Story depth words the status without q: say it again when the depth changes.
  ctx.state.subscribe((names) => { if (names.has("depth") && run) draw(); });
}
