// The `onebyone` section: the sweep over the weights, one sweep per token written. The numbers around it are
// the section's live text (sections.js); this only counts the sweeps.
import { num } from "../format.js";

// The engine efficiency's presets (the ideal, the memory's measured bandwidth, the share SGLang
// measured) set the state;
// the slider beside them is bound like every control (controls.js).
function bindEfficiency(el, ctx) {
  // Delegated: the buttons are live text (the measured bandwidth's share depends on the GPU).
  el.addEventListener("click", (e) => {
    const b = e.target.closest("[data-act^='eff-']");
    if (b && el.contains(b)) ctx.state.set({ eff: Number(b.dataset.eff) });
  });
}

export function mount(el, ctx) {
  bindEfficiency(el, ctx);
  const sweep = el.querySelector(".rf-sweep");
  const out = el.querySelector('[data-out="tokens"]');
  if (ctx.reducedMotion || !sweep) {
    el.classList.add("is-still");
    return;
  }
  let n = 0;
  const show = () => { if (out) out.textContent = ctx.t("tokens_written", { n: num(n) }); };
  sweep.addEventListener("animationiteration", () => { n += 1; show(); });
  // The band moves on its own and would forever: a button stops it (and Space in the focused
  // widget), and it rests while the figure is off screen, where it only costs CPU.
  // On a page a teacher set to start paused, it waits for the reader's first click or key in
  // the widget (main.js), which that same click or key then starts.
  const btn = el.querySelector("[data-act=sweep]");
  let moving = !(document.documentElement.dataset.paused === "1" && !el.dataset.started);
  const label = () => { if (btn) btn.textContent = ctx.t(moving ? "pause" : "play"); };
  const toggle = () => {
    moving = !moving;
    el.classList.toggle("is-paused", !moving);
    el.dataset.paused = moving ? "0" : "1";
    label();
  };
  if (btn) { label(); btn.hidden = false; btn.addEventListener("click", toggle); }
  if ("IntersectionObserver" in window) {
    new IntersectionObserver(([e]) => el.classList.toggle("is-away", !e.isIntersecting))
      .observe(sweep.ownerSVGElement || sweep);
  }
  const reset = () => {
    n = 0;
    show();
    sweep.style.animation = "none";
    void sweep.getBoundingClientRect();  // restart the CSS animation from its first frame
    sweep.style.animation = "";
  };
  if (!el.hasAttribute("tabindex")) el.tabIndex = 0;
  ctx.onKey({ play: toggle, reset });
}
