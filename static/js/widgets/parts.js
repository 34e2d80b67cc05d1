// The `parts` section: the labelled diagram. Each part is already a link; this only lights the part in
// the drawing while its entry in the list below has the pointer or the focus, and vice versa.
// The part is drawn twice (wide: .parts-part, phones: .parts-tile; CSS shows one), so both light.
export function mount(el) {
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
