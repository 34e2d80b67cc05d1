// "Embed" links: without scripts they open the embed itself; with scripts they open a dialog with
// a ready <iframe> snippet and a copy button. The dialog
//   - shows the embed as it will look (a preview at the width the teacher picks for their page),
//   - measures the height the embed takes at that width and writes it into the snippet, so a
//     course site that strips scripts still shows the whole section,
//   - says which settings the snippet carries (those the section reads that differ from the
//     defaults, named in the reader's language), and can start from the defaults instead.
//
// The height is measured live, not read from a table measured in advance: it depends on the
// settings (the depth, the lab's adaptive γ, greedy checks), on the language, on the reader's
// fonts and on templates that change with every edit of a section. The preview is the real
// embed at the chosen width, so its height is the height. Charts are drawn lazily (charts.js):
// in a frame out of view the server's fallback table stands until the reader scrolls to it, so
// the preview asks for every chart ("specdec:draw-charts") and the snippet takes the greatest
// height the frame reported, before and after its charts were drawn.
import { params } from "../state.js";
import { colon, num } from "../format.js";
import { depth, interpolate, readJSON } from "../dom.js";
import { pageShow, showQuery } from "../show.js";

const WIDTHS = [390, 640, 800, 1000];   // px; 390: a phone
const SETTLE_MS = 1000;                 // no change of height for this long: measured
const SLACK = 1.02;                     // 2% over the measured height: other fonts, other wraps

let dialog = null;
let width = 800;          // the last width chosen, kept while the page is open
let current = null;       // {el, ctx, reads}: the link the dialog was opened from, what it reads

// The dialog's own words (page.html ships them with the names of the settings).
let text = null;
function words(ctx) {
  text = text || readJSON("embed-dialog-i18n");
  return (key, vars) => {
    const s = text.strings?.[key];
    return s === undefined ? ctx.t(key, vars) : interpolate(s, vars);
  };
}

const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

// The frame: allowed to go full screen (the embed's own button), lazy below the fold.
export function frameTag(src, title, height, maxWidth = null) {
  const style = maxWidth ? `border:0;width:100%;max-width:${maxWidth}px` : "border:0;max-width:100%";
  return `<iframe src="${esc(src)}" title="${esc(title)}" width="100%" height="${height}" ` +
    `style="${style}" loading="lazy" allow="fullscreen" allowfullscreen></iframe>`;
}

export function snippet(src, title, height, maxWidth = null) {
  const host = new URL("/static/js/embed-host.js", location.origin).href;
  return `${frameTag(src, title, height, maxWidth)}\n<script src="${esc(host)}" async></script>`;
}

// For a site that strips scripts: a frame exactly this wide and as tall as the embed measured at
// this width, so nothing is clipped and nothing scrolls inside (at this width; narrower, it scrolls).
export function fixedSnippet(src, title, height, width) {
  return `<iframe src="${esc(src)}" title="${esc(title)}" width="${width}" height="${height}" ` +
    `style="border:0;width:${width}px;height:${height}px" loading="lazy" allow="fullscreen" allowfullscreen></iframe>`;
}

// A setting as a reader would say it: "Draft model: unigram (reads nothing)". At the Story depth the
// label leaves its symbol out ("Guesses per pass, γ" is "Guesses per pass"), as the controls do.
const SYMBOL = /(?:,\s*|\s+|，)[γαnkdc](?=$|\s|[(（])/;
function describe(name, raw, t) {
  const full = text.labels?.[name] ?? name;
  const label = depth() === "story" ? full.replace(SYMBOL, "") : full;
  const p = params[name] || {};
  let value = text.choices?.[name]?.[raw];
  if (name === "sections") {
    // The sections by their numbers, as the contents list them.
    const nums = text.sections || {};
    value = raw.split(",").map((a) => String(nums[a] ?? a).padStart(2, "0")).join(t("list_sep"));
  }
  if (value === undefined) {
    if (p.kind === "bool") value = raw === "1" ? t("on") : t("off");
    else if (p.kind === "int" && name !== "seed") value = num(Number(raw));
    else if (p.kind === "text") value = `${raw.slice(0, 8)}…`;
    else value = raw;
  }
  return t("setting", { name: label, value });
}

// The embed's height as it reports it (main.js reportHeight): the body's, with its margins.
function bodyHeight(doc) {
  const b = doc?.body;
  if (!b) return 0;
  const cs = doc.defaultView.getComputedStyle(b);
  return Math.ceil(b.getBoundingClientRect().height + parseFloat(cs.marginTop) + parseFloat(cs.marginBottom));
}

function buildDialog(ctx) {
  const t = words(ctx);
  const d = document.createElement("dialog");
  d.className = "embed-dialog";
  d.setAttribute("aria-labelledby", "embed-dialog-title");
  d.innerHTML = `
    <form method="dialog" class="embed-dialog__form">
      <h2 id="embed-dialog-title"></h2>
      <p class="embed-dialog__help"></p>
      <div class="embed-dialog__options">
        <label class="control" for="embed-dialog-width"><span class="control__label" data-t="width"></span>
          <select id="embed-dialog-width"></select></label>
        <label class="control control--check" for="embed-dialog-defaults"><input type="checkbox" id="embed-dialog-defaults">
          <span data-t="defaults"></span></label>
      </div>
      <div class="embed-dialog__settings">
        <p class="embed-dialog__carries"></p>
        <ul class="embed-dialog__list"></ul>
      </div>
      <p class="embed-dialog__prose" hidden></p>
      <label class="embed-dialog__label" for="embed-dialog-code"></label>
      <textarea id="embed-dialog-code" rows="5" readonly spellcheck="false"></textarea>
      <label class="embed-dialog__label" for="embed-dialog-fixed" data-t="fixed_label"></label>
      <p class="embed-dialog__fixed-help"></p>
      <textarea id="embed-dialog-fixed" rows="3" readonly spellcheck="false"></textarea>
      <p class="embed-dialog__status" role="status" aria-live="polite"></p>
      <div class="embed-dialog__buttons">
        <button type="button" class="btn btn--primary" data-act="copy"></button>
        <button type="submit" class="btn" value="close"></button>
      </div>
      <figure class="embed-dialog__preview">
        <figcaption><span data-t="preview"></span> · <span class="embed-dialog__height"></span></figcaption>
        <div class="embed-dialog__viewport"><div class="embed-dialog__sizer"><iframe tabindex="-1" loading="eager" scrolling="no"></iframe></div></div>
      </figure>
    </form>`;
  d.querySelector("h2").textContent = ctx.t("embed_title");
  d.querySelector(".embed-dialog__help").textContent = ctx.t("embed_help");
  d.querySelector(".embed-dialog__label").textContent = ctx.t("embed_code");
  d.querySelector("[data-act=copy]").textContent = ctx.t("copy");
  d.querySelector("button[type=submit]").textContent = ctx.t("close");
  for (const el of d.querySelectorAll("[data-t]")) el.textContent = t(el.dataset.t);
  const select = d.querySelector("#embed-dialog-width");
  for (const w of WIDTHS) {
    const o = document.createElement("option");
    o.value = String(w);
    o.textContent = t(w === WIDTHS[0] ? "width_phone" : "width_px", { px: num(w) });
    select.append(o);
  }
  // The preview is a picture of the embed, not a second place to work: keys and clicks stay in
  // the dialog. It never scrolls inside (scrolling="no"): a scroll bar would narrow the embed
  // while the frame is shorter than its content, and the height measured then would be wrong.
  d.querySelector(".embed-dialog__viewport").inert = true;

  const code = d.querySelector("textarea");
  const status = d.querySelector(".embed-dialog__status");
  d.querySelector("[data-act=copy]").addEventListener("click", async () => {
    code.select();
    try {
      await navigator.clipboard.writeText(code.value);
      status.textContent = ctx.t("copied");
    } catch {
      status.textContent = ctx.t("copy_failed");
    }
  });
  select.addEventListener("change", () => { width = Number(select.value); render(); });
  d.querySelector("#embed-dialog-defaults").addEventListener("change", render);
  // Click on the backdrop closes, as people expect of a small dialog.
  d.addEventListener("click", (e) => { if (e.target === d) d.close(); });
  // Closed: the preview stops (its animations, its requests).
  d.addEventListener("close", () => { preview().removeAttribute("src"); measure = null; });
  window.addEventListener("message", onMessage);
  document.body.appendChild(d);
  return d;
}

const preview = () => dialog.querySelector(".embed-dialog__preview iframe");

// ---- one measurement: a URL at a width ------------------------------------------------------------
// {url, width, ready, max, timer, done}; replaced whenever the URL or the width changes.
let measure = null;

function scale() {
  const box = dialog.querySelector(".embed-dialog__viewport");
  return Math.min(1, (box.clientWidth || measure.width) / measure.width);
}

function showHeight(h) {
  const frame = preview();
  frame.style.height = `${h}px`;
  dialog.querySelector(".embed-dialog__sizer").style.height = `${Math.ceil(h * scale())}px`;
}

function note(h) {
  if (!measure?.ready || !(h > 0)) return;
  if (h > measure.max) {
    measure.max = h;
    writeSnippet();
  }
  // Measured once the height has stood still for a moment and plotly, if asked for, has come.
  clearTimeout(measure.timer);
  const m = measure;
  m.timer = setTimeout(function settle() {
    if (m !== measure) return;
    const win = preview().contentWindow;
    const waiting = win?.document.querySelector('script[src*="plotly"]') && !win.Plotly;
    if (waiting) { m.timer = setTimeout(settle, SETTLE_MS); return; }
    m.done = true;
    writeStatus();
  }, SETTLE_MS);
  writeStatus();
}

// A message says the height changed; the height itself is read from the frame (same origin)
// as it is now: a message posted before the widgets mounted may arrive after, with an old height.
function onMessage(e) {
  if (!measure || !dialog?.open || e.source !== preview().contentWindow) return;
  const d = e.data;
  if (!d || d.type !== "specdec:height") return;
  const h = bodyHeight(preview().contentDocument) || d.height;
  showHeight(h);
  note(h);
}

function started(m) {
  const frame = preview();
  const doc = frame.contentDocument;
  if (m !== measure || !doc) return;
  const go = () => {
    if (m !== measure || m.ready) return;
    m.ready = true;
    const h = bodyHeight(doc);
    showHeight(h);
    note(h);
    doc.dispatchEvent(new Event("specdec:draw-charts"));
  };
  if (doc.documentElement.dataset.ready === "1") go();
  else doc.addEventListener("specdec:ready", go, { once: true });
}

// ---- the dialog's contents ---------------------------------------------------------------------------
function query() {
  const { el, ctx, reads } = current;
  const fromDefaults = dialog.querySelector("#embed-dialog-defaults").checked;
  const url = new URL(el.getAttribute("href"), location.href);
  // The whole plate also carries how this page is shown (its sections, settings locked or
  // hidden, paused, the projector), written as the teacher's page writes its link; "from the
  // defaults" leaves out the settings moved, not how the teacher chose to show the page.
  const show = reads ? {} : showQuery(pageShow(), true);
  url.search = new URLSearchParams({ ...(fromDefaults ? {} : ctx.state.query(reads)), ...show }).toString();
  return url;
}

function snippetHeight() {
  return measure?.max ? Math.ceil((measure.max * SLACK) / 10) * 10 : 600;
}

function writeSnippet() {
  const { el } = current;
  const title = el.dataset.title || document.title;
  dialog.querySelector("#embed-dialog-code").value = snippet(measure.url, title, snippetHeight(), measure.width);
  dialog.querySelector("#embed-dialog-fixed").value = fixedSnippet(measure.url, title, snippetHeight(), measure.width);
}

function writeStatus() {
  const t = words(current.ctx);
  dialog.querySelector(".embed-dialog__height").textContent = measure.done
    ? t("measured", { px: num(measure.width), h: num(snippetHeight()) })
    : t("measuring", { px: num(measure.width) });
  dialog.querySelector(".embed-dialog__preview").dataset.measured = measure.done ? "1" : "0";
  dialog.querySelector(".embed-dialog__fixed-help").textContent =
    t("fixed_help", { px: num(measure.width), h: num(snippetHeight()) });
}

function render() {
  const t = words(current.ctx);
  const url = query();
  // A one-section embed is its interactive: say so, so no teacher expects the prose in it.
  const prose = dialog.querySelector(".embed-dialog__prose");
  prose.hidden = !current.el.dataset.section;
  prose.textContent = current.el.dataset.section ? t("no_prose") : "";
  // What the snippet carries, by name.
  const carried = [...url.searchParams.entries()];
  dialog.querySelector(".embed-dialog__carries").textContent = carried.length ? t("carries") : t("carries_none");
  const list = dialog.querySelector(".embed-dialog__list");
  list.textContent = "";
  for (const [name, value] of carried) {
    const li = document.createElement("li");
    li.dataset.param = name;
    li.textContent = describe(name, value, t);
    list.append(li);
  }
  // A new measurement for this URL at this width.
  if (measure) clearTimeout(measure.timer);
  measure = { url: url.href, width, ready: false, max: 0, timer: null, done: false };
  const m = measure;
  const frame = preview();
  frame.title = `${t("preview")}${colon()}${current.el.dataset.title || document.title}`;
  frame.style.width = `${width}px`;
  frame.style.transform = `scale(${scale()})`;
  dialog.querySelector(".embed-dialog__sizer").style.width = `${Math.floor(width * scale())}px`;
  showHeight(400);
  frame.onload = () => started(m);
  frame.src = url.href;
  writeSnippet();
  writeStatus();
  dialog.querySelector(".embed-dialog__status").textContent = "";
}

export function mount(el, ctx) {
  el.setAttribute("role", "button");
  el.setAttribute("aria-haspopup", "dialog");
  el.addEventListener("click", (e) => {
    if (typeof HTMLDialogElement === "undefined") return; // old browser: follow the link
    e.preventDefault();
    dialog = dialog || buildDialog(ctx);
    // The settings as they are now: for one section only those it reads, where not the defaults.
    // A section's reads as its server-rendered link has them (the depth included: state.reads of
    // an anchor that is also a unit gives the unit's, without it).
    const section = el.dataset.section;
    current = { el, ctx, reads: section ? (readJSON("params").sections?.[section] ?? ctx.state.reads(section)) : undefined };
    dialog.querySelector("#embed-dialog-width").value = String(width);
    dialog.querySelector("#embed-dialog-defaults").checked = false;
    dialog.showModal();   // first, so the preview's box has its width
    render();
    const code = dialog.querySelector("textarea");
    code.focus();
    code.select();
  });
  // Space activates it like a button (it is styled and announced as one).
  el.addEventListener("keydown", (e) => { if (e.key === " ") { e.preventDefault(); el.click(); } });
}
