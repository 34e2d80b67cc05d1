// Section 12: the labelled diagram. Each part is already a link; this only lights the part in
// the drawing while its entry in the list below has the pointer or the focus, and vice versa.
export function mount(el) {
  const pairs = [...el.querySelectorAll(".parts-list a")].map((a) => {
    const anchor = a.getAttribute("href").split("#")[1];
    return [a, el.querySelector(`.parts-part--${anchor}`)];
  });
  for (const [a, part] of pairs) {
    if (!part) continue;
    const on = () => { part.classList.add("is-lit"); a.classList.add("is-lit"); };
    const off = () => { part.classList.remove("is-lit"); a.classList.remove("is-lit"); };
    for (const node of [a, part]) {
      node.addEventListener("pointerenter", on);
      node.addEventListener("pointerleave", off);
      node.addEventListener("focus", on);
      node.addEventListener("blur", off);
    }
  }
}
