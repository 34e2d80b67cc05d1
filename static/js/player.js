// Step / play / reset for a widget that moves through something (a run's passes, a sweep).
// Buttons [data-act=step|play|reset] inside the widget; the page's keys (main.js) reach it as
// ctx.onKey actions: → step, ← back, space play or pause, R reset.
export function player(el, ctx, { step, reset, canStep, back, interval = 900 }) {
  let timer = null;
  const playBtn = el.querySelector("[data-act=play]");
  const setPlaying = (on) => {
    if (!playBtn) return;
    playBtn.textContent = on ? ctx.t("pause") : ctx.t("play");
    playBtn.setAttribute("aria-pressed", on ? "true" : "false");
  };
  const pause = () => {
    if (timer) clearInterval(timer);
    timer = null;
    setPlaying(false);
  };
  const tick = () => {
    if (canStep && !canStep()) return pause();
    step();
  };
  const play = () => {
    if (timer) return pause();
    if (canStep && !canStep()) reset();
    setPlaying(true);
    tick();
    // interval may be a function: a widget whose steps animate (the bench's machine) sets its own pace.
    const ms = typeof interval === "function" ? interval() : interval;
    timer = setInterval(tick, ctx.reducedMotion ? ms * 1.5 : ms);
  };
  const api = {
    step: () => { pause(); if (!canStep || canStep()) step(); },
    play,
    pause,
    reset: () => { pause(); reset(); },
    back: () => { pause(); if (back) back(); },
    playing: () => timer !== null,
  };
  el.querySelector("[data-act=step]")?.addEventListener("click", api.step);
  playBtn?.addEventListener("click", play);
  el.querySelector("[data-act=reset]")?.addEventListener("click", api.reset);
  if (!el.hasAttribute("tabindex")) el.tabIndex = 0;
  ctx.onKey({ step: api.step, play, reset: api.reset, ...(back ? { back: api.back } : {}) });
  return api;
}
