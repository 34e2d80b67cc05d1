// "Go further" folds (issue 22): each section's material beyond its one point sits in a
// <details class="further"> closed by default. They open at the Frontier depth; a fold the reader
// opens at another depth is written into the state's `more` (so the URL keeps it); a link to a
// fold's id (#trees-budget), or to anything inside one, opens it. Without scripts they are plain
// <details>, opened by the server for the Frontier depth and for the URL's `more`.

const folds = () => [...document.querySelectorAll("details.further[data-further]")];

function opened(state) {
  const raw = state.get("more") || "";
  return new Set(raw.split(",").filter(Boolean));
}

// Open every closed fold around the element with this id (and the fold itself, if it is one).
export function openFor(id) {
  const target = id && document.getElementById(id);
  if (!target) return false;
  let any = false;
  for (let d = target.closest("details"); d; d = d.parentElement?.closest("details")) {
    if (!d.open) { d.open = true; any = true; }
  }
  return any;
}

export function startFolds(state) {
  let applying = false;   // toggles made here (depth, hash) are not the reader's choice
  const apply = () => {
    applying = true;
    const frontier = state.get("depth") === "frontier";
    const want = opened(state);
    for (const d of folds()) d.open = frontier || want.has(d.dataset.further);
    applying = false;
  };

  const write = () => {
    if (state.get("depth") === "frontier") return;    // there every fold is open anyway
    const open = folds().filter((d) => d.open).map((d) => d.dataset.further);
    state.set({ more: open.length ? open.join(",") : null });
  };

  for (const d of folds()) {
    d.addEventListener("toggle", () => {
      // The toggle event comes a task later; by then `applying` is over, so compare with the state.
      const want = opened(state).has(d.dataset.further);
      if (state.get("depth") !== "frontier" && d.open !== want && !applying) write();
    });
  }

  state.subscribe((names) => { if (names.has("depth")) apply(); });

  const fromHash = () => openFor(decodeURIComponent(location.hash.slice(1)));
  window.addEventListener("hashchange", () => {
    if (fromHash()) document.getElementById(decodeURIComponent(location.hash.slice(1)))?.scrollIntoView();
  });
  fromHash();
  // A link inside the page to something in a closed fold: open it before the browser jumps.
  document.addEventListener("click", (e) => {
    const a = e.target instanceof Element ? e.target.closest("a[href^='#']") : null;
    if (a) openFor(decodeURIComponent(a.getAttribute("href").slice(1)));
  }, true);
}
