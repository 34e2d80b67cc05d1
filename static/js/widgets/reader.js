// Section 11: lanes lit in one read of the weights, and how busy that keeps the arithmetic.
import { bind, liveNumbers, format } from "./roofline-shared.js";

export function mount(el, ctx) {
  const lanes = [...el.querySelectorAll("[data-lane]")];
  const more = el.querySelector('[data-out="more"]');
  const refresh = liveNumbers(el, ctx, (data) => {
    const n = data.reader.lanes;
    for (const lane of lanes) lane.classList.toggle("is-lit", Number(lane.dataset.lane) < n);
    const extra = n - lanes.length;
    if (more) {
      more.hidden = extra <= 0;
      if (extra > 0) more.textContent = ctx.t("more_lanes", { n: format(extra, "num:0") });
    }
    el.classList.toggle("keeps-up", data.reader.busy >= 1);
  });
  bind(el, ctx, refresh);
}
