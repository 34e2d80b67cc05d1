// The `selfdraft` section: pick Medusa, EAGLE or lookahead to see its one-pass diagram and its facts (the WAI-ARIA
// tabs pattern).
export function mount(el, ctx) {
  const tabs = [...el.querySelectorAll('[role="tab"]')];
  const panels = [...el.querySelectorAll("[data-panel]")];
  const rows = [...el.querySelectorAll("[data-row]")];
  const select = (key, focus = false) => {
    for (const t of tabs) {
      const on = t.dataset.method === key;
      t.setAttribute("aria-selected", on ? "true" : "false");
      t.tabIndex = on ? 0 : -1;
      if (on && focus) t.focus();
    }
    for (const p of panels) p.hidden = p.dataset.panel !== key;
    for (const r of rows) r.classList.toggle("is-current", r.dataset.row === key);
  };
  el.classList.add("is-tabbed");
  select(tabs[0].dataset.method);
  tabs.forEach((t, k) => {
    t.addEventListener("click", () => select(t.dataset.method));
    t.addEventListener("keydown", (e) => {
      // Arrow keys move between tabs (the WAI-ARIA tabs pattern).
      const step = e.key === "ArrowRight" ? 1 : e.key === "ArrowLeft" ? -1 : 0;
      if (!step) return;
      e.preventDefault();
      e.stopPropagation();
      select(tabs[(k + step + tabs.length) % tabs.length].dataset.method, true);
    });
  });
  for (const r of rows) r.addEventListener("click", () => select(r.dataset.row));
}
