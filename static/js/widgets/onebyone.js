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
  sweep.addEventListener("animationiteration", () => {
    n += 1;
    if (out) out.textContent = ctx.t("tokens_written", { n: new Intl.NumberFormat(ctx.lang === "zh" ? "zh-CN" : "en").format(n) });
  });
}
