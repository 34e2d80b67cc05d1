// Section 1: model and GPU pickers, the per-token numbers, and the sweep over the weights.
import { bind, liveNumbers } from "./roofline-shared.js";

export function mount(el, ctx) {
  const refresh = liveNumbers(el, ctx);
  bind(el, ctx, refresh);

  // Count the sweeps: each one stands for one token written (one full read of the weights).
  const sweep = el.querySelector(".rf-sweep");
  const out = el.querySelector('[data-out="tokens"]');
  if (ctx.reducedMotion || !sweep) {
    el.classList.add("is-still");
    return;
  }
  let n = 0;
  const show = () => {
    if (out) out.textContent = ctx.t("tokens_written", { n: new Intl.NumberFormat(ctx.lang === "zh" ? "zh-CN" : "en").format(n) });
  };
  sweep.addEventListener("animationiteration", () => { n += 1; show(); });
  // Space pauses or resumes the sweep; R starts the count again from the first token.
  ctx.onKey?.((action) => {
    if (action === "play") el.classList.toggle("is-paused");
    else if (action === "reset") {
      n = 0;
      show();
      sweep.style.animation = "none";
      void sweep.getBoundingClientRect();  // restart the CSS animation from its first frame
      sweep.style.animation = "";
    } else return false;
    el.dataset.paused = el.classList.contains("is-paused") ? "1" : "0";
    return true;
  });
}
