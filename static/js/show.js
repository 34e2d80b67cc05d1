// How a teacher has a page shown (views/teach.py; sim/params.py SHOW): which sections, the
// interactives' settings shown, locked or hidden, paused, the projector view. The teacher's page
// and the Embed dialog write their links with the same function, so a link carries the same
// options whichever of them made it.
import { readJSON } from "./dom.js";

// A lesson's show options as URL values: `whole` for a page or a whole-plate embed (which take
// `sections=`; a one-section embed shows its own section whatever the link says).
// {picked: [anchor], all: [anchor], controls: "shown" | "locked" | "hidden", paused, projector}
export function showQuery({ picked = [], all = [], controls = "shown", paused = false, projector = false }, whole) {
  const q = {};
  if (whole && picked.length && picked.length < all.length) q.sections = picked.join(",");
  if (controls !== "shown") q.controls = controls;
  if (paused) q.paused = "1";
  if (projector) q.view = "projector";
  return q;
}

// How this page is shown, as the server rendered it (<html data-controls, data-paused, data-view>
// and the sections it holds).
export function pageShow(doc = document) {
  const html = doc.documentElement;
  const all = Object.keys(readJSON("params").sections || {});
  const picked = [...doc.querySelectorAll(".plate-section[id]")].map((s) => s.id).filter((id) => all.includes(id));
  return {
    picked, all,
    controls: html.dataset.controls || "shown",
    paused: html.dataset.paused === "1",
    projector: html.dataset.view === "projector",
  };
}

// "?a=1&b=2", or "" for no values.
export function search(obj) {
  const s = new URLSearchParams(obj).toString();
  return s ? `?${s}` : "";
}
