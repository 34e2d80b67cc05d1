// The `trees` section "Many guesses at once": one tree pass stepped through (the tree with q and p at every
// node, the walk with each check and its random number, the residual after each refused sibling,
// the tokens written, the attention mask); tubes for a tree pass's first token, the rule a choice;
// tokens per pass and speed-up against the node budget, and the best chain and tree against the
// batch (plotly, fetched when the charts come near). Everything drawn comes from the parts' answers
// (views/sections/trees.py), the nodes' coordinates included, so this drawing and the server's
// (the first view, and the view without scripts) agree.
import { depth, h, storyT, svg as s } from "../dom.js";
import { colon, comma, count, gap, num, paren, prob, times } from "../format.js";
import { player } from "../player.js";
import { colours, lazyChart, PLOT_CONFIG } from "../charts.js";
import { params } from "../state.js";
import { renderTube } from "./exact.js";

const ROUNDS_MAX = params.trounds?.hi ?? 4;
const SEED_MAX = params.tpass?.hi ?? 2147483647;
const DRAWN = ["chain", "topk", "dynamic", "best", "sequoia"];   // views/sections/trees.py: CHART_METHODS

// As Jinja's truncate(n, true, "…", 0) on the server.
const cut = (text, n) => (text.length <= n ? text : `${text.slice(0, n - 1)}…`);

// ---- one pass, as it stands after event `at` ------------------------------------------------------

function viewAt(pass, at) {
  const events = pass.events;
  const nodes = pass.tree.nodes;
  const status = new Map();           // node -> kept | refused (checked so far)
  const written = [];
  let current = null;                 // the node being checked (or drawn at)
  for (let i = 0; i <= at; i++) {
    const e = events[i];
    if (e.kind === "check") {
      status.set(e.node, e.accepted ? "kept" : "refused");
      if (e.accepted) written.push({ token: e.token, kind: "kept" });
      current = e.node;
    } else if (e.kind === "draw") {
      for (const c of nodes[e.at].children) status.set(c, c === e.to ? "kept" : "refused");
      if (e.written) written.push({ token: e.y, kind: e.written });
      else written.push({ token: nodes[e.to].token, kind: "kept" });
      current = e.at;
    } else if (e.kind === "final") {
      written.push({ token: e.token, kind: e.written });
      current = e.at;
    }
  }
  const done = events[at].kind === "done";
  if (done) for (const nd of nodes.slice(1)) status.set(nd.id, nd.status);
  return { event: events[at], status, written: done ? pass.written : written, current, showP: at >= 1, done };
}

function drawTree(el, a, view) {
  const pass = a.pass;
  const lay = pass.layout;
  const nodes = pass.tree.nodes;
  el.setAttribute("viewBox", `0 0 ${lay.width} ${lay.height}`);
  el.setAttribute("width", lay.width);
  el.setAttribute("height", lay.height);
  el.classList.toggle("is-small", lay.small);
  const mid = lay.box_h / 2;
  const parts = [];
  for (const nd of nodes.slice(1)) {
    const par = nodes[nd.parent];
    const st = view.status.get(nd.id) ?? "pending";
    parts.push(s("path", {
      class: `tedge tedge--${st}`,
      d: `M${par.px + lay.box_w} ${par.py + mid} C${par.px + lay.box_w + 8} ${par.py + mid} ${nd.px - 8} ${nd.py + mid} ${nd.px} ${nd.py + mid}`,
    }));
  }
  for (const nd of nodes) {
    const st = nd.id ? view.status.get(nd.id) ?? "pending" : "root";
    const chances = depth() === "story"   // in words at the Story depth
      ? a.t(view.showP ? "node_title_p_story" : "node_title_story", { q: prob(nd.q), p: prob(nd.p) })
      : `q = ${prob(nd.q)}${view.showP ? `${comma()}p = ${prob(nd.p)}` : ""}`;
    // What a node says is its tip (nodeTips below), reached by hover, tap and focus alike; no
    // <title>, whose hover-only tooltip would come up beside it.
    const tip = nd.id ? `${nd.token}${colon()}${chances}` : a.t("root_title");
    const g = s("g", { class: `tnode tnode--${st}${nd.id === view.current ? " is-current" : ""}`,
                       "data-node": nd.id, transform: `translate(${nd.px} ${nd.py})`,
                       tabindex: "-1", role: "img", "aria-label": tip, "data-tip": tip });
    g.append(s("rect", { width: lay.box_w, height: lay.box_h, rx: 5 }));
    g.append(s("text", { class: "tnode-tok", x: 6, y: 14 }, cut(nd.id ? nd.token : a.rootLabel, 11)));
    if (nd.id && !lay.small) {
      g.append(s("text", { class: "tnode-num", x: 6, y: 31 },
        view.showP ? `q ${prob(nd.q)} · p ${prob(nd.p)}` : `q ${prob(nd.q)}`));
    }
    parts.push(g);
  }
  el.replaceChildren(...parts);
}

function drawMask(el, pass, current) {
  const m = pass.tree.mask;
  const n = m.length;
  const cell = n <= 20 ? 14 : 6;
  const lab = n <= 20 ? 64 : 0;
  const size = lab + n * cell + 2;
  // Room on the right for the last column's slanted label (as the server draws it).
  el.setAttribute("viewBox", `0 0 ${size + Math.floor(lab / 2)} ${size}`);
  const parts = [];
  if (lab) {
    pass.tree.nodes.forEach((nd, i) => {
      const text = cut(nd.id ? nd.token : pass.root_token, 7);
      parts.push(s("text", { class: "tmask-lab", x: lab - 4, y: lab + i * cell + cell - 3, "text-anchor": "end" }, text));
      // A one-character label (a 汉字 above all) stands upright over its column; longer ones slant.
      parts.push([...text].length === 1
        ? s("text", { class: "tmask-lab", x: lab + i * cell + (cell + 1) / 2, y: lab - 4, "text-anchor": "middle" }, text)
        : s("text", { class: "tmask-lab", transform: `translate(${lab + i * cell + cell - 3} ${lab - 4}) rotate(-60)` }, text));
    });
  }
  m.forEach((row, i) => row.forEach((v, j) => {
    if (v) parts.push(s("rect", { class: `tmask-cell${i === current ? " is-current" : ""}`,
                                  x: lab + j * cell + 1, y: lab + i * cell + 1, width: cell - 1, height: cell - 1 }));
  }));
  el.replaceChildren(...parts);
}

// At the Story depth the sentences that are formulas have words instead (storyT: `key_story`).
function eventText(e, pass, t0) {
  const t = (key, vars) => storyT(t0, key, vars);
  const nodes = pass.tree.nodes;
  const at = e.at ? nodes[e.at].token : t("root");
  switch (e.kind) {
    case "draft": return t("ev_draft", { n: num(pass.tree.n) });
    case "target": return t("ev_target");
    case "check":
      return `${t("ev_check", { at, tok: e.token, chance: num(e.accept_prob, 2), R: prob(e.residual_p), q: prob(e.q), r: num(e.r, 2) })}${gap()}${t(e.accepted ? "ev_kept" : "ev_refused")}`;
    case "draw":
      return `${t("ev_draw", { at, y: e.y })}${gap()}${t(e.to !== null && e.to !== undefined ? "ev_down" : "ev_stop")}`;
    case "final":
      return e.written === "bonus" ? t("ev_bonus", { at, tok: e.token }) : t("ev_final", { at, tok: e.token });
    default: return t("ev_done", { n: num(pass.written.length), text: pass.writtenText });
  }
}

function drawResidual(fig, e) {
  const show = e && e.kind === "check" && e.after;
  fig.hidden = !show;
  if (!show) return;
  fig.querySelector(".trees-res-tok")?.remove();
  fig.querySelector("figcaption").append(h("span", { class: "trees-res-tok", text: `${gap()}“${e.token}”` }));
  const rows = Math.max(e.before.length, e.after.length);
  const cellOf = (side, i) => {
    const row = side[i];
    return h("td", { class: row && row[0] === e.token ? "is-checked" : null },
      row ? [h("span", { class: "rtok", text: row[0] }), " ", h("span", { class: "rnum", text: prob(row[1]) })] : []);
  };
  fig.querySelector("tbody").replaceChildren(...Array.from({ length: rows }, (_, i) =>
    h("tr", {}, cellOf(e.before, i), cellOf(e.after, i))));
}

function drawWritten(ol, written) {
  ol.replaceChildren(...written.map((w) => h("li", { class: `tape-cell tape-cell--${w.kind}` },
    h("span", { class: "tape-tok", text: w.token }),
    h("span", { class: "tape-mark", "aria-hidden": "true", text: w.kind === "kept" ? "●" : "◆" }))));
}

// ---- the nodes' tips: by hover, tap or keyboard ------------------------------------------------------
// One node of the tree is in the page's Tab order (the first, or the one last looked at); ↑ ↓ Home
// End move between nodes (← → keep stepping the pass, as everywhere in the widget). A node focused,
// tapped or hovered shows its tip (its whole token, q and p) beside it; Escape, or a tap elsewhere,
// puts it away. Redrawing the tree (a step) keeps the node looked at and its tip.
function nodeTips(box, svgEl) {
  // Beside the scrolling box, not in it: a tip below the last row is not cut off by its edge.
  const place = box.parentElement;
  const tip = h("p", { class: "tnode-tip", role: "tooltip", id: `${box.closest("[id]")?.id || "trees"}-tip`, hidden: true });
  place.append(tip);
  let at = 0;             // the node in the Tab order
  let pinned = null;      // the node whose tip a tap or focus opened
  const nodes = () => [...svgEl.querySelectorAll("g.tnode")];
  const byId = (id) => svgEl.querySelector(`g.tnode[data-node="${id}"]`);

  function show(g) {
    tip.textContent = g.dataset.tip;
    tip.hidden = false;
    const b = place.getBoundingClientRect();
    const r = g.getBoundingClientRect();
    // Below the node, within the column's width.
    tip.style.left = `${Math.max(0, Math.min(r.left - b.left, place.clientWidth - tip.offsetWidth))}px`;
    tip.style.top = `${r.bottom - b.top + 4}px`;
    g.setAttribute("aria-describedby", tip.id);
  }
  function hide() { tip.hidden = true; pinned = null; }
  function roving() {
    const all = nodes();
    at = Math.min(at, all.length - 1);
    all.forEach((g, i) => g.setAttribute("tabindex", i === at ? "0" : "-1"));
  }

  svgEl.addEventListener("focusin", (e) => {
    const g = e.target.closest("g.tnode");
    if (!g) return;
    at = nodes().indexOf(g);
    roving();
    pinned = g.dataset.node;
    show(g);
  });
  svgEl.addEventListener("focusout", (e) => {
    if (!e.relatedTarget?.closest?.("g.tnode")) hide();
  });
  svgEl.addEventListener("keydown", (e) => {
    const all = nodes();
    const i = all.indexOf(e.target.closest?.("g.tnode"));
    if (i < 0) return;
    const to = { ArrowDown: i + 1, ArrowUp: i - 1, Home: 0, End: all.length - 1 }[e.key];
    if (e.key === "Escape") { hide(); return; }
    if (to === undefined) return;
    e.preventDefault();
    all[Math.max(0, Math.min(all.length - 1, to))].focus();
  });
  // A tap (or a click) opens the node's tip, a second one closes it (the tap's own focus opens
  // it first: what counts is whether it was open before the tap).
  let openBefore = null;
  svgEl.addEventListener("click", (e) => {
    const g = e.target.closest("g.tnode");
    if (!g) return;
    if (openBefore === g.dataset.node) { hide(); openBefore = null; return; }
    pinned = g.dataset.node;
    show(g);
  });
  document.addEventListener("pointerdown", (e) => {
    openBefore = !tip.hidden && pinned !== null ? pinned : null;
    if (!svgEl.contains(e.target)) hide();
  }, true);
  svgEl.addEventListener("pointerover", (e) => {
    const g = e.target.closest("g.tnode");
    if (g && e.pointerType === "mouse") show(g);
  });
  svgEl.addEventListener("pointerout", (e) => {
    const g = e.target.closest("g.tnode");
    if (!g || e.pointerType !== "mouse" || g.contains(e.relatedTarget)) return;
    const keep = pinned && byId(pinned);
    if (keep) show(keep); else tip.hidden = true;
  });

  // After a redraw: the same node in the Tab order, focused again if it was, its tip again.
  return function redrawn(focusedId) {
    roving();
    const g = pinned !== null && byId(pinned);
    if (focusedId !== null && byId(focusedId)) byId(focusedId).focus({ preventScroll: true });
    else if (g) show(g);
    else if (pinned !== null) hide();
  };
}

// ---- charts ---------------------------------------------------------------------------------------

const STYLE = {
  chain: (c) => ({ color: c.muted, dash: "dot" }),
  topk: (c) => ({ color: c.kept }),
  dynamic: (c) => ({ color: getComputedStyle(document.documentElement).getPropertyValue("--focus").trim() || "#1a5fb4" }),
  best: (c) => ({ color: c.ink, dash: "dash" }),
  sequoia: (c) => ({ color: c.putIn }),
};

function plotBudget(Plotly, node, a, t) {
  const c = colours();
  const traces = [];
  // The method's name, then the budget ("n = 4", in words at the Story depth), then the value.
  const story = depth() === "story";
  const at = story ? t("budget_story", { n: "%{x}" }) : "n = %{x}";
  for (const m of DRAWN) {
    const me = { ...a.methods[m] };
    if (story && me.name_story) me.name = me.name_story;   // no "top-k" before k is met
    const line = { ...STYLE[m](c), width: 2 };
    traces.push({ x: a.budgets, y: me.tokens, mode: "lines", name: me.name, legendgroup: m, line,
                  hovertemplate: `${me.name}${comma()}${at}${colon()}%{y:.2f}<extra></extra>` });
    traces.push({ x: a.budgets, y: me.speedup, mode: "lines", name: me.name, legendgroup: m, showlegend: false,
                  xaxis: "x", yaxis: "y2", line, connectgaps: false,
                  hovertemplate: `${me.name}${comma()}${at}${colon()}${times("%{y:.2f}")}<extra></extra>` });
  }
  const mark = { type: "line", x0: a.n, x1: a.n, yref: "paper", y0: 0, y1: 1, line: { color: c.accent, width: 1, dash: "dot" } };
  const narrow = node.clientWidth < 520;   // a phone: smaller titles, the legend in a column above
  const title = (text) => ({ text, font: { size: narrow ? 10 : 12 } });
  Plotly.react(node, traces, {
    margin: { l: narrow ? 44 : 56, r: 8, t: narrow ? 110 : 40, b: 44 }, height: narrow ? 560 : 460,
    paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)",
    font: { color: c.ink, size: narrow ? 11 : 12 }, legend: { orientation: "h", x: 0, y: 1.02, yanchor: "bottom" },
    xaxis: { title: title(storyT(t, "x_budget")), range: [0.5, 64.5], gridcolor: c.line, anchor: "y2" },
    yaxis: { title: title(t("y_tokens")), domain: [0.56, 1], gridcolor: c.line, rangemode: "tozero" },
    yaxis2: { title: title(t("y_speedup")), domain: [0, 0.46], gridcolor: c.line, rangemode: "tozero" },
    shapes: [mark, { type: "line", xref: "paper", x0: 0, x1: 1, yref: "y2", y0: 1, y1: 1, line: { color: c.ink, width: 1, dash: "dot" } }],
    annotations: [{ x: a.n, yref: "paper", y: 1, text: storyT(t, "your_n"), showarrow: false, yanchor: "bottom", font: { size: 11, color: c.accent } }],
  }, PLOT_CONFIG);
}

function plotScan(Plotly, node, a, t) {
  const c = colours();
  const rows = a.scan.rows;
  const x = rows.map((r) => r.batch);
  const ticks = x.filter((b, i) => i % 2 === 0);
  const narrow = node.clientWidth < 520;
  const title = (text) => ({ text, font: { size: narrow ? 10 : 12 } });
  // The method and its budget ("n = 4"), in words at the Story depth as in the budget chart.
  const story = depth() === "story";
  const how = (b) => `${(story && b.name_story) || b.name}${comma()}${story ? t("budget_story", { n: b.n }) : `n = ${b.n}`}`;
  Plotly.react(node, [
    { x, y: rows.map((r) => r.best_chain.speedup), mode: "lines+markers", name: t("best_chain"),
      line: { color: c.muted, dash: "dot" }, customdata: rows.map((r) => how(r.best_chain)),
      hovertemplate: `${times("%{y:.2f}")}${paren("%{customdata}")}<extra></extra>` },
    { x, y: rows.map((r) => r.best_tree.speedup), mode: "lines+markers", name: t("best_tree"),
      line: { color: c.accent }, customdata: rows.map((r) => how(r.best_tree)),
      hovertemplate: `${times("%{y:.2f}")}${paren("%{customdata}")}<extra></extra>` },
  ], {
    margin: { l: narrow ? 44 : 56, r: 8, t: 36, b: 44 }, height: 300, paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)",
    font: { color: c.ink, size: narrow ? 11 : 12 }, legend: { orientation: "h", x: 0, y: 1.02, yanchor: "bottom" },
    xaxis: { title: title(t("x_batch")), type: "log", tickvals: ticks, ticktext: ticks.map((b) => count(b)), gridcolor: c.line },
    yaxis: { title: title(t("y_speedup")), gridcolor: c.line, rangemode: "tozero" },
    shapes: [{ type: "line", x0: a.batch, x1: a.batch, yref: "paper", y0: 0, y1: 1, line: { color: c.accent, width: 1, dash: "dot" } },
             { type: "line", xref: "paper", x0: 0, x1: 1, y0: 1, y1: 1, line: { color: c.ink, width: 1, dash: "dot" } }],
    annotations: [{ x: Math.log10(a.batch), yref: "paper", y: 1, text: t("your_batch"), showarrow: false, yanchor: "bottom", font: { size: 11, color: c.accent } }],
  }, PLOT_CONFIG);
}

// ---- mounting -------------------------------------------------------------------------------------

// The events the walk list has an item for (as the server's list).
const walked = (e) => ["check", "draw", "final"].includes(e.kind);

export function mount(el, ctx) {
  const t = (k, vars) => ctx.t(k, vars);
  const { state } = ctx;
  const treeSvg = el.querySelector("svg.trees-tree");
  const maskSvg = el.querySelector("svg.trees-mask-svg");
  const statusEl = el.querySelector("[data-out=status]");
  const residual = el.querySelector(".trees-residual");
  const writtenEl = el.querySelector("ol.trees-written");
  const walkEl = el.querySelector("ol.trees-walk");
  let pa = null;
  let at = 0;

  const tips = treeSvg ? nodeTips(el.querySelector(".trees-tree-box"), treeSvg) : null;
  const draw = () => {
    if (!pa || !treeSvg) return;
    const pass = pa.pass;
    const view = viewAt(pass, at);
    const focused = treeSvg.contains(document.activeElement) ? document.activeElement.closest("g.tnode")?.dataset.node ?? null : null;
    drawTree(treeSvg, { pass, t, rootLabel: pass.root_token }, view);
    tips(focused);
    drawMask(maskSvg, pass, view.event.kind === "check" ? view.event.node : view.current);
    drawResidual(residual, view.event);
    drawWritten(writtenEl, view.written);
    statusEl.textContent = t("step_of", { i: num(at + 1), n: num(pass.events.length),
                                          text: eventText(view.event, { ...pass, writtenText: pa.written_text }, t) });
    const item = pass.events.slice(0, at + 1).filter(walked).length - 1;
    for (const [i, li] of [...walkEl.children].entries()) li.classList.toggle("is-current", i === item);
  };
  const canStep = () => pa && at < pa.pass.events.length - 1;
  const step = () => { if (canStep()) { at += 1; draw(); } };
  const back = () => { if (pa && at > 0) { at -= 1; draw(); } };
  const reset = () => { at = 0; draw(); };
  const api = player(el, ctx, { step, back, reset, canStep, interval: 1300 });
  el.querySelector("[data-act=back]")?.addEventListener("click", api.back);
  // The pass's and the tubes' own draw counters, not the page-wide seed (every speculative section
  // and embed reads that).
  const next = (name) => (state.get(name) + 1) % (SEED_MAX + 1);
  el.querySelector("[data-act=new-pass]")?.addEventListener("click", () => state.set({ tpass: next("tpass") }));

  const loadPass = (a) => {
    if (!walkEl) return;   // the part failed when the page was made: its place says so
    pa = a;
    writeWalk();
    at = 0;
    draw();
  };
  // The walk list is the server's rendering of this answer's events, swapped in with it when a
  // control changes (it is not live text: redraw it here from the events).
  function writeWalk() {
    walkEl.replaceChildren(...pa.pass.events.filter(walked).map((e) => h("li", { class: `tw tw--${e.kind}${e.kind === "check" ? ` tw--${e.accepted ? "kept" : "refused"}` : ""}`,
                            text: eventText(e, { ...pa.pass, writtenText: pa.written_text }, t) })));
  }

  // Tubes: a round more, or emptied and filled again with new draws (the next seed).
  const plainSvg = el.querySelector("svg.trees-tube--plain");
  const treeTube = el.querySelector("svg.trees-tube--tree");
  const addBtn = el.querySelector("[data-act=add]");
  const loadTubes = (a) => {
    if (!plainSvg) return;
    const data = a.tubes;
    const total = data.rounds * data.trials;
    // The server's columns (views/sections/trees.py: tube_cols), drawn as the `exact` section draws its tubes.
    renderTube(plainSvg, a.cols, "plain", total, t);
    renderTube(treeTube, a.cols, "tree", total, t);
    el.dataset.trule = data.rule;
    el.dataset.rounds = String(data.rounds);
    el.dataset.exact = a.check.exact ? "1" : "0";
    addBtn.disabled = data.rounds >= a.rounds_max;
  };
  addBtn?.addEventListener("click", () => {
    if (state.get("trounds") < ROUNDS_MAX) state.set({ trounds: state.get("trounds") + 1 });
  });
  el.querySelector("[data-act=refill]")?.addEventListener("click", () => state.set({ trounds: 1, tdraw: next("tdraw") }));

  const chartEl = el.querySelector(".trees-chart");
  const budgetChart = chartEl ? lazyChart(chartEl, ctx, (P, node, a) => plotBudget(P, node, a, t)) : null;
  const scanChart = chartEl ? lazyChart(el.querySelector(".trees-scan"), ctx, (P, node, a) => plotScan(P, node, a, t)) : null;
  const loadBudget = (a) => {
    if (!budgetChart) return;
    budgetChart(a);
    if (a.scan.rows.length) scanChart(a);
    el.dataset.batch = String(a.batch);
  };

  const load = { "trees.pass": loadPass, "trees.tubes": loadTubes, "trees.budget": loadBudget };
  for (const [unit, fn] of Object.entries(load)) {
    const a = ctx.answer(unit);
    if (a) fn(a);
  }
  ctx.onAnswer((data, unit) => load[unit]?.(data));
  // The Story depth words the walk without formulas: write it again when the depth changes.
  state.subscribe((names) => { if (names.has("depth") && pa && walkEl) { writeWalk(); draw(); } });
}
