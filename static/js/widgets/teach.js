// The teacher's page (templates/plate/teach.html): the choices build the lesson's link, its QR
// code (drawn by the server: /<lang>/specdec/teach/qr.svg) and a snippet per section. The
// preview is the one-section embed itself; moving its controls sets where that section starts
// (its URL, as state.js writes it, is read back), so no teacher types a parameter's key.
import { snippet } from "./embed.js";
import { interpolate as fill, readJSON } from "../dom.js";
import { search, showQuery as query } from "../show.js";

export function mount(el, ctx) {
  const t = readJSON("teach-i18n");
  const start = readJSON("state");          // what the teacher's page was opened with
  const shipped = readJSON("params");
  const defaults = Object.fromEntries(Object.entries(shipped.params || {}).map(([k, p]) => [k, p.default]));
  const boxes = [...el.querySelectorAll('input[name="pick"]')];
  const anchors = boxes.map((b) => b.value);
  const form = el.querySelector(".teach-form");
  const preview = el.querySelector(".teach-preview");
  const frame = el.querySelector(".teach-preview__frame");
  const select = el.querySelector("#teach-edit");
  const carries = el.querySelector(".teach-preview__carries");
  const qrBox = el.querySelector("#teach-qr");

  // Each section's starting state: {name: text as the URL writes it}, only what it reads.
  const starts = new Map();
  for (const b of boxes) {
    const own = {};
    for (const name of b.dataset.reads.split(" ")) {
      if (!name || name === "depth") continue;
      const v = start[name];
      if (v !== undefined && v !== null && v !== defaults[name]) own[name] = typeof v === "boolean" ? (v ? "1" : "0") : String(v);
    }
    starts.set(b.value, own);
  }
  const setOrder = [];   // [anchor, name] in the order they were set, for "the value set last"

  const value = (name) => form.querySelector(`input[name="${name}"]:checked`)?.value ?? "";
  const lesson = () => ({
    picked: boxes.filter((b) => b.checked).map((b) => b.value),
    depth: value("depth") || "picture",
    lang: value("for") || ctx.lang,
    controls: value("controls") || "shown",
    paused: form.querySelector('input[name="paused"]').checked,
    projector: form.querySelector('input[name="view"]').checked,
  });

  const showQuery = (l, whole) => query({ ...l, all: anchors }, whole);

  function pageState(l) {
    // One state for the page: each chosen section's start, in the plate's order; a name set for
    // two sections takes the value set last.
    const merged = {};
    const clash = [];
    for (const a of l.picked) {
      for (const [k, v] of Object.entries(starts.get(a))) {
        if (k in merged && merged[k] !== v) clash.push(k);
        merged[k] = v;
      }
    }
    for (const [a, k] of setOrder) if (l.picked.includes(a) && starts.get(a)[k] !== undefined) merged[k] = starts.get(a)[k];
    return { merged, clash };
  }

  let qrTimer = null;
  function render() {
    const l = lesson();
    for (const b of boxes) b.closest("li").classList.toggle("is-picked", b.checked);
    // The notes of the chosen sections open, once, when a section is first chosen.
    for (const a of l.picked) {
      const note = el.querySelector(`#note-${a}`);
      if (note && !note.dataset.seen) { note.open = true; note.dataset.seen = "1"; }
    }
    const depth = l.depth === "picture" ? {} : { depth: l.depth };
    const { merged, clash } = pageState(l);
    const path = `/${l.lang}/specdec/${search({ ...merged, ...depth, ...showQuery(l, true) })}`;
    const link = new URL(path, location.origin).href;
    el.querySelector("#teach-link").value = l.picked.length ? link : "";
    el.querySelector("#teach-open").href = link;
    el.querySelector(".teach-shared").textContent = !l.picked.length ? t.none_chosen
      : clash.length ? fill(t.shared, { name: clash[0], value: merged[clash[0]] }) : "";
    // The snippets: each section with its own start.
    for (const li of el.querySelectorAll("#teach-snippets li")) {
      const a = li.dataset.anchor;
      li.hidden = !l.picked.includes(a);
      const box = boxes.find((b) => b.value === a);
      const src = new URL(`/embed/${l.lang}/specdec/${a}/${search({ ...starts.get(a), ...depth, ...showQuery(l, false) })}`, location.origin).href;
      li.querySelector("textarea").value = snippet(src, box.dataset.frameTitle, 800);
      li.querySelector("[data-open-embed]").href = src;
    }
    // The QR code, drawn by the server once the choices rest for a moment.
    clearTimeout(qrTimer);
    qrTimer = setTimeout(() => {
      const img = new Image();
      img.alt = t.qr_title;
      img.className = "qr";
      img.onload = () => { qrBox.replaceChildren(img); qrBox.dataset.link = path; };
      img.src = `/${ctx.lang}/specdec/teach/qr.svg?link=${encodeURIComponent(path)}`;
    }, 250);
    // This page's own URL keeps the choices (reload, bookmark, the language switch).
    const own = new URLSearchParams({ ...merged, ...depth, ...showQuery(l, false), sections: l.picked.join(",") });
    if (l.lang !== ctx.lang) own.set("for", l.lang);
    history.replaceState(history.state, "", `${location.pathname}?${own}`);
    // The sections one can set up in the preview.
    const was = select.value;
    select.replaceChildren(...l.picked.map((a) => {
      const b = boxes.find((x) => x.value === a);
      const o = document.createElement("option");
      o.value = a;
      o.textContent = `${String(b.dataset.num).padStart(2, "0")} ${b.dataset.title}`;
      return o;
    }));
    preview.hidden = !l.picked.length;
    if (l.picked.includes(was)) select.value = was;
    if (select.value && (select.value !== frame.dataset.anchor || frame.dataset.lang !== l.lang || frame.dataset.depth !== l.depth)) load();
    else describe();
  }

  function describe() {
    const a = select.value;
    if (!a) return;
    const own = starts.get(a);
    const list = Object.entries(own).map(([k, v]) => `${k}=${v}`).join(", ");
    carries.textContent = list ? fill(t.carries, { list }) : t.carries_none;
  }

  // The preview: the section's embed with its start, its controls free (the teacher drives them).
  function load() {
    const a = select.value;
    const l = lesson();
    frame.dataset.anchor = a;
    frame.dataset.lang = l.lang;
    frame.dataset.depth = l.depth;
    frame.dataset.ready = "0";
    const depth = l.depth === "picture" ? {} : { depth: l.depth };
    frame.src = `/embed/${l.lang}/specdec/${a}/${search({ ...starts.get(a), ...depth })}`;
    describe();
  }
  frame.addEventListener("load", () => {
    const doc = frame.contentDocument;
    const a = frame.dataset.anchor;
    if (!doc) return;
    const box = boxes.find((b) => b.value === a);
    const reads = box.dataset.reads.split(" ").filter((n) => n && n !== "depth");
    const ready = () => { frame.dataset.ready = "1"; };
    if (doc.documentElement.dataset.ready === "1") ready();
    else doc.addEventListener("specdec:ready", ready, { once: true });
    doc.addEventListener("specdec:state", () => {
      const q = new URLSearchParams(frame.contentWindow.location.search);
      const own = {};
      for (const n of reads) if (q.has(n)) own[n] = q.get(n);
      for (const n of reads) if ((own[n] ?? null) !== (starts.get(a)[n] ?? null)) setOrder.push([a, n]);
      starts.set(a, own);
      render();
    });
  });
  // The embed reports its height (main.js): the preview shows it whole.
  window.addEventListener("message", (e) => {
    if (e.source !== frame.contentWindow || e.data?.type !== "specdec:height") return;
    frame.style.height = `${Math.min(4000, Math.max(200, e.data.height))}px`;
  });

  form.addEventListener("change", render);
  form.addEventListener("submit", (e) => e.preventDefault());
  select.addEventListener("change", load);
  for (const btn of el.querySelectorAll("[data-copy]")) {
    btn.addEventListener("click", async () => {
      const box = el.querySelector(`#${btn.dataset.copy}`);
      box.select();
      try { await navigator.clipboard.writeText(box.value); btn.dataset.done = "1"; }
      catch { btn.title = t.copy_failed; }
    });
  }
  // A class: the server gives a code and the teacher's key; the class's screen opens in a new tab
  // with the lesson's settings, the key in its fragment.
  const classStatus = el.querySelector(".teach-class__status");
  el.querySelector("[data-act=open-class]")?.addEventListener("click", async () => {
    const screen = window.open("", "_blank");
    let resp = null;
    try {
      resp = await fetch("/api/class", { method: "POST", headers: { Accept: "application/json", "Accept-Language": ctx.lang } });
    } catch { resp = null; }
    const body = resp ? await resp.json().catch(() => null) : null;
    if (!resp?.ok) {
      screen?.close();
      classStatus.textContent = body?.error?.message || t.class_failed;
      return;
    }
    const l = lesson();
    const { merged } = pageState(l);
    const depth = l.depth === "picture" ? {} : { depth: l.depth };
    const q = search({ ...merged, ...depth, ...showQuery(l, true), sections: l.picked.join(",") });
    const url = `/${l.lang}/specdec/class/${body.code}/${q}#key=${body.key}`;
    if (screen) screen.location.href = url; else location.href = url;
    classStatus.textContent = fill(t.class_opened, { code: body.code });
    classStatus.dataset.code = body.code;
    classStatus.dataset.board = url;
  });
  render();
}
