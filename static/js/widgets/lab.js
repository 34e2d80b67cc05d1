// Section 14, the lab: the bench on the reader's own text, the copy-from-the-text draft, adaptive γ
// and the break-even map. The text stays in this browser (memory and sessionStorage); the server
// keeps only its models under the text's sha256, and answers 404 naming "text" when it has
// forgotten them (another worker, a restart): then the text is sent again and the call retried.
import { bindControls, fmt, h, onState, setMathText, showError } from "./spec-shared.js";
import { tapeCell } from "./tape.js";
import { formatCount } from "./numbers.js";

const STORE = "specdec-lab-text:";   // sessionStorage key prefix, + sha256
const NAMES = ["gamma", "ldraft", "adapt", "seed", "c", "text", "tlang"];
const DRAFTS = ["bigram", "unigram", "trigram", "lookup"];

function remember(hash, lang, text) {
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
      method: "POST", body, headers: { "Content-Type": type,
                                       Accept: "application/json", "Accept-Language": ctx.lang },
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

export function mount(el, ctx) {
  const t = (k, vars) => ctx.t(k, vars);
  const out = (name) => el.querySelector(`[data-out="${name}"]`);
  const area = el.querySelector("#lab-textarea");
  const file = el.querySelector("#lab-file");
  const status = out("text-status");
  const maxBytes = Number(el.dataset.maxBytes) || 2097152;
  const memory = new Map();   // sha256 -> {lang, text}
  let seq = 0;                // only the latest request may draw

  const tlang = () => {
    const v = ctx.state.get("tlang");
    return v === "en" || v === "zh" ? v : ctx.lang;
  };
  const textHash = () => String(ctx.state.get("text") || "");

  // ---- sending the text ------------------------------------------------------------------------
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
    status.textContent = [t("counted", {
      tokens: formatCount(info.tokens), vocab: formatCount(info.vocab_size), ms: fmt(info.count_ms, 0) }),
    t("encoding", { encoding: info.encoding })].join(ctx.lang === "zh" ? "" : " ");
    return info;
  }

  // The chosen file's name, in place of the browser's own (English) words.
  const fileName = out("file-name");
  file.addEventListener("change", () => {
    if (fileName) fileName.textContent = file.files && file.files[0] ? file.files[0].name : t("no_file");
  });

  async function readInput() {
    if (file.files && file.files[0]) {
      const f = file.files[0];
      if (f.size > maxBytes) throw new Error(t("too_big"));
      return f;
    }
    return area.value;
  }

  el.querySelector("form").addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const text = await readInput();
      if (typeof text === "string" ? !text.trim() : !text.size) { status.textContent = t("no_text"); return; }
      const lang = tlang();
      const info = await send(text, lang);
      if (ctx.state.get("tlang") === "auto") ctx.state.set("tlang", lang);
      ctx.state.set("text", info.text);
      refresh();
    } catch (err) {
      status.textContent = err.message;
    }
  });
  el.querySelector("[data-act=use-book]").addEventListener("click", () => {
    ctx.state.set("text", "");
    status.textContent = "";
    refresh();
  });

  // A call that answers "text unknown" re-sends the text it names, once, then retries.
  async function withText(call) {
    try {
      return await call();
    } catch (err) {
      if (err.status !== 404 || err.param !== "text") throw err;
      const hash = textHash();
      const kept = memory.get(hash) || recall(hash);
      if (!kept) throw new Error(t("lost"));
      status.textContent = t("resending");
      await send(kept.text, kept.lang);
      return call();
    }
  }

  // ---- drawing ----------------------------------------------------------------------------------
  function drawRun(run) {
    const tape = out("tape");
    tape.replaceChildren(...run.context.map((tok) => tapeCell(tok, "context", 0, t)),
                         ...run.tape.map((c) => tapeCell(c.token, c.kind, c.pass, t)));
    out("alpha").textContent = fmt(run.alpha, 2);
    out("tpp").textContent = fmt(run.tokens_per_pass, 2);
    out("passes").textContent = fmt(run.passes, 0);
    out("speedup").textContent = `${fmt(run.speedup, 2)}×`;
    const g = run.gammas.slice(0, 40).join(" ") + (run.gammas.length > 40 ? " …" : "");
    out("gammas").textContent = `${out("gammas").textContent.split(":")[0]}: ${g}`;
    const rows = DRAFTS.map((d) => {
      const r = run.drafts[d];
      return h("tr", { "data-draft": d, class: d === run.draft ? "is-current" : null },
        h("th", { scope: "row", text: t(`draft_${d}`) }),
        h("td", { text: fmt(r.alpha, 2) }), h("td", { text: fmt(r.tokens_per_pass, 2) }),
        h("td", { text: `${fmt(r.speedup, 2)}×` }));
    });
    out("drafts").querySelector("tbody").replaceChildren(...rows);
    out("adapt-note").hidden = !(run.draft === "lookup" && run.adapt !== "off");
    const cmp = out("compare");
    cmp.hidden = !run.compare;
    if (run.compare) {
      const c = run.compare;
      const row = (label, s) => h("tr", {}, h("th", { scope: "row", text: label }),
        h("td", { text: fmt(s.tokens_per_pass, 2) }), h("td", { text: `${fmt(s.speedup, 2)}×` }));
      out("compare-rows").replaceChildren(
        row(t(`adaptive_${run.adapt}`), c.adaptive),
        row(`${t("fixed_start")} = ${run.gamma}`, c.start_fixed),
        row(`${t("fixed_best")} = ${c.best_fixed_gamma}`, c.best_fixed));
    }
  }

  function drawTubes(tb) {
    const pct = (x) => `${Math.min(100, x * 100).toFixed(1)}%`;
    const bar = (cls, x) => h("span", { class: "lab-bar-track" }, h("span", { class: cls, style: { width: pct(x) } }));
    out("tubes").replaceChildren(...tb.bars.map((b) => h("div", { class: "lab-bar" },
      h("span", { class: "lab-bar-tok", text: b.token }),
      bar("lab-bar-p", b.p), bar("lab-bar-plain", b.plain), bar("lab-bar-spec", b.speculative))));
    const note = out("tubes-note");
    const joiner = tb.context.some((s) => s.length > 1) ? " " : "";
    note.textContent = note.textContent.replace(/“[^”]*”/, `“${tb.context.join(joiner)}”`);
  }

  let mapDrawn = false;
  async function drawMap() {
    const gamma = Number(ctx.state.get("gamma")) || 4;
    const c = Number(ctx.state.get("c"));
    const m = await ctx.api("/api/lab/breakeven", { gamma, c: Number.isFinite(c) ? c : 0.1 });
    const Plotly = await ctx.loadPlotly();
    const box = out("map");
    if (!mapDrawn) box.replaceChildren();
    const hover = t("map_hover").replace("{x}", "%{x}").replace("{y}", "%{y}").replace("{z}", "%{z:.2f}");
    const data = [
      { type: "heatmap", x: m.gammas, y: m.cs, z: m.alpha, zmin: 0, zmax: 1, colorscale: "YlOrRd",
        hovertemplate: `${hover}<extra></extra>`, colorbar: { title: { text: "α" }, thickness: 12 } },
      { type: "scatter", mode: "markers", x: [m.gamma], y: [m.c], name: t("map_here"),
        marker: { symbol: "x-thin-open", size: 14, color: "#111", line: { width: 3 } },
        hovertemplate: `${t("map_here")}: α = ${fmt(m.break_even_alpha, 2)}<extra></extra>` },
    ];
    const layout = {
      margin: { l: 56, r: 8, t: 8, b: 44 }, height: 320, showlegend: false,
      xaxis: { title: { text: t("map_x") }, dtick: box.clientWidth < 500 ? 3 : 1, tick0: 1 }, yaxis: { title: { text: t("map_y") } },
      paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)",
      font: { family: getComputedStyle(document.body).fontFamily },
    };
    await Plotly.react(box, data, layout, { displayModeBar: false, responsive: true });
    mapDrawn = true;
    const note = out("map-note");
    if (note) {
      const vars = { g: m.gamma, c: fmt(m.c, 2), a: fmt(m.break_even_alpha, 2) };
      setMathText(note, m.break_even_alpha === null ? t("map_never", vars) : t("map_note", vars));
    }
  }

  // ---- loading ----------------------------------------------------------------------------------
  async function refresh() {
    const mine = ++seq;
    const text = textHash();
    const lang = text ? tlang() : ctx.lang;
    const params = {
      text: text || undefined, lang,
      draft: ctx.state.get("ldraft") || "bigram", gamma: ctx.state.get("gamma"),
      adapt: ctx.state.get("adapt") || "off", seed: ctx.state.get("seed"), c: ctx.state.get("c"),
    };
    el.dataset.loading = "1";
    try {
      // The run first (it re-sends a text the server lost), then the rest side by side: each
      // request stays small (the server caps the work of one), the table of drafts and the
      // comparison with fixed γ are requests of their own.
      const run = await withText(() => ctx.api("/api/lab/run", params));
      const { draft: _d, adapt: _a, ...common } = params;
      const [tubes, drafts, compare] = await Promise.all([
        withText(() => ctx.api("/api/lab/tubes", { text: params.text, lang, seed: params.seed })),
        withText(() => ctx.api("/api/lab/drafts", common)),
        params.adapt !== "off" && params.draft !== "lookup"
          ? withText(() => ctx.api("/api/lab/compare", params)) : null,
      ]);
      if (mine !== seq) return;
      drawRun({ ...run, drafts: drafts.drafts, compare });
      drawTubes(tubes);
      el.querySelector(".spec-error")?.remove();
      el.dataset.source = text ? "text" : "book";
    } catch (err) {
      if (mine === seq) {
        if (err.status === 404 || err.message === t("lost")) {
          status.textContent = err.message;
          ctx.state.set("text", "");
          return refresh();
        }
        showError(el, err);
      }
    } finally {
      if (mine === seq) delete el.dataset.loading;
    }
  }

  bindControls(el, ctx);
  onState(NAMES, (d) => {
    if (d.name === "tlang" || d.name === "text") return;  // a text change refreshes after sending
    refresh();
    if (d.name === "gamma" || d.name === "c") drawMap().catch((e) => showError(el, e));
  });
  // A link naming a text this server lost: the server fell back to the book; send it if we can.
  const hash = textHash();
  if (hash && el.dataset.textMissing === "1") {
    const kept = memory.get(hash) || recall(hash);
    if (kept) {
      area.value = kept.text.length < 200000 ? kept.text : "";
      send(kept.text, kept.lang).then(refresh).catch((e) => { status.textContent = e.message; });
    }
  } else if (hash) {
    const kept = recall(hash);
    if (kept && kept.text.length < 200000) area.value = kept.text;
  }
  drawMap().catch((e) => showError(el, e));
  el.dataset.ready = "1";
}
