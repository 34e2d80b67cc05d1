// The `parts` section: the labelled diagram. Each part is already a link; this only lights the part in
// the drawing while its entry in the list below has the pointer or the focus, and vice versa.
// The part is drawn twice (wide: .parts-part, phones: .parts-tile; CSS shows one), so both light.
import { benchAnswer, benchKey, machineView, onBenchChange, shippedBench, startPartViews } from "../machine.js";

export function mount(el, ctx) {
  const host = el.querySelector(".machine");
  if (host) {
    // The bench's run, for the exploded machine to show one pass of: as the page shipped it, then
    // for the state as it is (asked for when the section is near, after a change of the state);
    // a page or embed without the `bench` section shows the machine at rest.
    let a = shippedBench(), key = benchKey();
    const v = machineView(host, { mode: "parts", lang: ctx?.lang, answer: () => a });
    const show = () => { v.pass = a?.run?.steps?.length ? 1 : 0; v.f = 1; host.dataset.sceneState = key; v.request?.(); };
    show();
    const follow = () => {
      const want = benchKey();
      if (!v.near || want === key) return;
      benchAnswer().then((b) => {
        if (benchKey() !== want) return;
        a = b; key = want; show();
      }).catch((err) => console.error("machine:", err));
    };
    v.onNear = follow;
    onBenchChange(follow);
  }
  // The sections' small views of the machine, each with its part lit (the plate's, not an embed's).
  startPartViews(ctx?.lang);
  const pairs = [...el.querySelectorAll(".parts-list a")].map((a) => {
    const anchor = a.getAttribute("href").split("#")[1];
    return [a, [...el.querySelectorAll(`.parts-part--${anchor}, .parts-tile--${anchor}`)]];
  });
  for (const [a, parts] of pairs) {
    if (!parts.length) continue;
    const on = () => { for (const node of [a, ...parts]) node.classList.add("is-lit"); };
    const off = () => { for (const node of [a, ...parts]) node.classList.remove("is-lit"); };
    for (const node of [a, ...parts]) {
      node.addEventListener("pointerenter", on);
      node.addEventListener("pointerleave", off);
      node.addEventListener("focus", on);
      node.addEventListener("blur", off);
    }
  }
}
