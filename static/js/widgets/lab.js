// The `lab` section, the lab: the bench on the reader's own text. The text stays in this browser (memory
// and sessionStorage); the server keeps its models under the text's sha256 (the `text` parameter).
// Everything the lab shows is the section's live text, answered part by part (sections.js); this
// sends the text, sends it again when an answer says the server no longer has it, and draws the
// break-even map with plotly once it comes near the view.
import { colon, count, num } from "../format.js";
import { lazyChart } from "../charts.js";
import { storyT } from "../dom.js";
import { languageOf, languages } from "../language.js";

const STORE = "specdec-lab-text:";   // sessionStorage key prefix, + sha256
const TEXT_UNITS = ["lab.run", "lab.drafts", "lab.compare", "lab.tubes"];

// A text is kept as it was sent (a file's bytes in this page only); its text also goes to
// sessionStorage, so a reload can send it again.
function remember(hash, lang, text) {
  if (typeof text !== "string") return;
  try { sessionStorage.setItem(STORE + hash, JSON.stringify({ lang, text })); } catch { /* full or off */ }
}
function recall(hash) {
  try { return JSON.parse(sessionStorage.getItem(STORE + hash) || "null"); } catch { return null; }
}

// body: a string (sent as UTF-8) or a file's own bytes (the server finds their encoding). A
// server busy counting other texts answers 503 with Retry-After: wait that long and send again,
// for up to about half a minute (a class uploading at once is counted a few texts at a time).
async function postText(ctx, body, lang) {
  const type = typeof body === "string" ? "text/plain; charset=utf-8" : "application/octet-stream";
  for (let attempt = 0; ; attempt++) {
    const resp = await fetch(`/api/lab/text?lang=${encodeURIComponent(lang)}`, {
      method: "POST", body, headers: { "Content-Type": type, Accept: "application/json", "Accept-Language": ctx.lang },
    });
    let json = null;
    try { json = await resp.json(); } catch { json = null; }
    const wait = Number(resp.headers.get("Retry-After"));
    if (resp.status === 503 && attempt < 15 && wait > 0 && wait <= 30) {
      await new Promise((ok) => setTimeout(ok, wait * 1000));
      continue;
    }
    if (!resp.ok) throw new Error(json?.error?.message || `${resp.status}`);
    return json;
  }
}

// The map as one bar a cell (γ across, c up, coloured by the break-even α on a heat map's scale
// and colour bar): the page loads plotly.js's basic bundle, which has no heatmap trace and is a
// third of the size of one that has. Cells where no α pays (null) are left empty, as a heat map
// leaves them.
export function mapCells(m) {
  const dc = m.cs.length > 1 ? m.cs[1] - m.cs[0] : 1;
  const x = [], base = [], color = [], custom = [];
  m.cs.forEach((c, i) => m.gammas.forEach((g, j) => {
    const a = m.alpha[i][j];
    if (a === null || a === undefined) return;
    x.push(g); base.push(c - dc / 2); color.push(a); custom.push([c, a]);
  }));
  return { x, y: x.map(() => dc), base, color, custom };
}

function drawMap(Plotly, box, m, ctx) {
  const hover = storyT((k, v) => ctx.t(k, v), "map_hover", { x: "%{x}", y: "%{customdata[0]}", z: "%{customdata[1]:.2f}" });
  const cells = mapCells(m);
  return Plotly.react(box, [
    { type: "bar", x: cells.x, y: cells.y, base: cells.base, width: 1, customdata: cells.custom,
      marker: { color: cells.color, cmin: 0, cmax: 1, colorscale: "YlOrRd", line: { width: 0 }, showscale: true,
        colorbar: { title: { text: storyT((k, v) => ctx.t(k, v), "map_z") }, thickness: 12 } },
      hovertemplate: `${hover}<extra></extra>` },
    { type: "scatter", mode: "markers", x: [m.gamma], y: [m.c], name: storyT((k, v) => ctx.t(k, v), "map_here"),
      marker: { symbol: "x-thin-open", size: 14, color: "#111", line: { width: 3 } },
      hovertemplate: `${storyT((k, v) => ctx.t(k, v), "map_here")}${colon()}${storyT((k, v) => ctx.t(k, v), "map_here_alpha", { a: num(m.break_even_alpha, 2) })}<extra></extra>` },
  ], {
    margin: { l: 56, r: 8, t: 8, b: 44 }, height: 320, showlegend: false, barmode: "overlay", bargap: 0,
    xaxis: { title: { text: storyT((k, v) => ctx.t(k, v), "map_x") }, dtick: box.clientWidth < 500 ? 3 : 1, tick0: 1,
      range: [m.gammas[0] - 0.5, m.gammas[m.gammas.length - 1] + 0.5] },
    yaxis: { title: { text: storyT((k, v) => ctx.t(k, v), "map_y") }, zeroline: false,
      range: [m.cs[0] - (m.cs[1] - m.cs[0]) / 2, m.cs[m.cs.length - 1] + (m.cs[1] - m.cs[0]) / 2] },
    paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)",
    font: { family: getComputedStyle(document.body).fontFamily },
  }, { displayModeBar: false, responsive: true });
}

export function mount(el, ctx) {
  const t = (k, vars) => ctx.t(k, vars);
  const area = el.querySelector("#lab-textarea");
  const file = el.querySelector("#lab-file");
  const status = el.querySelector('[data-out="text-status"]');
  let noted = null;   // the text and split the status line's count describes ("hash|lang")
  const maxBytes = Number(el.dataset.maxBytes) || 2097152;
  const memory = new Map();   // sha256 -> {lang, text}
  const { state } = ctx;

  const splitLang = () => {
    const v = state.get("tlang");
    return Object.hasOwn(languages, v) ? v : ctx.lang;   // "auto": the page's
  };

  // input: the pasted text, or a chosen file (a Blob), sent as its bytes so the server can tell
  // its encoding (a GBK file read here as UTF-8 would arrive already garbled).
  async function send(input, lang) {
    status.textContent = t("sending");
    const info = await postText(ctx, input, lang);
    let text = input;
    if (typeof input !== "string") {
      try { text = new TextDecoder(info.encoding).decode(await input.arrayBuffer()); } catch { text = null; }
    }
    memory.set(info.text, { lang, text: text ?? input });
    if (text !== null) remember(info.text, lang, text);
    // Two sentences: a space between them in English, none after a Chinese full stop.
    status.textContent = [t("counted", { tokens: count(info.tokens), vocab: count(info.vocab_size), ms: num(info.count_ms) }),
      t("encoding", { encoding: info.encoding })].join(languageOf(ctx.lang).gap);
    noted = `${info.text}|${lang}`;
    return info;
  }

  // The chosen file's name, in place of the browser's own (English) words. Typing in the box
  // afterwards means the typed text is wanted: the file is let go.
  const fileName = el.querySelector('[data-out="file-name"]');
  const showFile = () => { fileName.textContent = file.files && file.files[0] ? file.files[0].name : t("no_file"); };
  // Whichever the reader touched last is counted, and the status line says which.
  file.addEventListener("change", () => {
    showFile();
    if (file.files?.length && area.value.trim()) status.textContent = t("file_wins", { name: file.files[0].name });
  });
  area.addEventListener("input", () => {
    if (file.files?.length) { file.value = ""; showFile(); status.textContent = t("file_dropped"); }
  });

  async function readInput() {
    if (file.files && file.files[0]) {
      const f = file.files[0];
      if (f.size > maxBytes) throw new Error(t("too_big"));
      return f;   // sent as bytes: the server finds the encoding
    }
    return area.value;
  }

  el.querySelector("form").addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const body = await readInput();
      if (typeof body === "string" ? !body.trim() : !body.size) { status.textContent = t("no_text"); return; }
      const lang = splitLang();
      const info = await send(body, lang);
      state.set({ text: info.text, tlang: lang });
    } catch (err) {
      status.textContent = err.message;
    }
  });
  el.querySelector("[data-act=use-book]").addEventListener("click", () => {
    status.textContent = "";
    state.set({ text: "" });
  });

  // An answer drawn from the book because the server no longer has the text (another worker, a
  // restart): send the text again if this browser has it, then ask for the parts once more.
  let resending = false;
  async function recover() {
    if (resending) return;
    const hash = state.get("text");
    const kept = memory.get(hash) || recall(hash);
    if (!kept) { status.textContent = t("lost"); return; }
    resending = true;
    try {
      status.textContent = t("resending");
      // The section stays busy from the book's answer until the text's: the parts are asked for
      // again before the hold ends, so "not busy" never shows the stand-in as the last word.
      await ctx.section.busyWhile(async () => {
        await send(kept.text, kept.lang);
        for (const unit of TEXT_UNITS) ctx.section.refresh(unit, { again: true });
      });
    } catch (err) {
      status.textContent = err.message;
    } finally {
      resending = false;
    }
  }

  const map = lazyChart(el.querySelector('[data-plot="map"]'), ctx, (P, box, m) => drawMap(P, box, m, ctx));
  const draw = (a, unit) => {
    if (unit === "lab.map") map(a);
    if (unit === "lab.run" && a) el.dataset.source = a.text ? "text" : "book";
    if (a?.text_missing && state.get("text")) recover();
  };
  for (const unit of ["lab.run", "lab.map"]) draw(ctx.answer(unit), unit);
  ctx.onAnswer(draw);
  // A new run's status from the server (what is counted now, in what split) replaces this
  // script's note about the last count, which would otherwise stand beside it, stale.
  ctx.onAnswer((a, unit) => {
    if (unit !== "lab.run" || !a || resending || noted === `${a.text}|${a.tlang}`) return;
    status.textContent = "";
    noted = null;
  });

  const hash = state.get("text");
  const kept = hash && (memory.get(hash) || recall(hash));
  if (kept && typeof kept.text === "string" && kept.text.length < 200000) area.value = kept.text;
}
