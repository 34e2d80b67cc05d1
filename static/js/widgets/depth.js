// The depth switch (issue 7): Story, Picture or Frontier for every section at once.
// Without scripts the switch is three links and the server renders the chosen depth; here the
// links switch in place (no reload) and write depth=… into the URL, which the language switch
// and reloads then keep. ("Predict first" is static/js/predict.js.)

const DEPTHS = ["story", "picture", "frontier"];

function setDepth(depth) {
  for (const m of document.querySelectorAll("main[data-depth]")) m.dataset.depth = depth;
  for (const n of document.querySelectorAll("[data-depth-show]")) n.hidden = n.dataset.depthShow !== depth;
}

// The href each choice should have now: the current query (other widgets may have changed it),
// with depth replaced; picture is the default, so it leaves depth out.
function hrefFor(depth) {
  const url = new URL(location.href);
  if (depth === "picture") url.searchParams.delete("depth");
  else url.searchParams.set("depth", depth);
  url.hash = "";
  return url.pathname + url.search;
}

export function mount(el, ctx) {
  const links = [...el.querySelectorAll("a[data-depth-choice]")];
  const status = el.querySelector(".depth-switch__status");

  const mark = (depth) => {
    for (const a of links) {
      if (a.dataset.depthChoice === depth) a.setAttribute("aria-current", "true");
      else a.removeAttribute("aria-current");
    }
  };
  const refreshHrefs = () => { for (const a of links) a.href = hrefFor(a.dataset.depthChoice); };

  el.addEventListener("click", (e) => {
    const a = e.target.closest("a[data-depth-choice]");
    // A modified click (new tab, new window) follows the link as it is.
    if (!a || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const depth = a.dataset.depthChoice;
    if (!DEPTHS.includes(depth)) return;
    e.preventDefault();
    // Keep the switch where it was on screen: the text below it changes length.
    const before = el.getBoundingClientRect().top;
    setDepth(depth);
    mark(depth);
    ctx.state.set({ depth });
    const shift = el.getBoundingClientRect().top - before;
    if (shift) window.scrollBy(0, shift);
    if (status) status.textContent = ctx.t(`now_${depth}`);
  });

  // Another part of the page (or a test) may change the depth through the state.
  ctx.state.subscribe((names) => {
    const value = ctx.state.get("depth");
    if (names.has("depth") && DEPTHS.includes(value)) { setDepth(value); mark(value); }
    refreshHrefs();
  });
  refreshHrefs();
}
