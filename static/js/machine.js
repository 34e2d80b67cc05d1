// The moving bench, shared by the `parts` section (exploded, each part linked to its section) and 14 (the
// bench, playing the traced run). One scene and one WebGL context for the page, made only when a
// view comes within a screen of the viewport: nothing of three.js loads before (machine3d.js is
// imported then, and it imports three from our own /vendor/). The canvas sits in the view most
// on screen; a view it has left keeps a still of its last frame.
//
// Without WebGL, with prefers-reduced-motion, in print and without scripts the views stay hidden
// and the page keeps the server's 2D diagram of the parts (the `parts` section).
import { state, toUrl } from "./state.js";
import { answerFor } from "./sections.js";

const reducedMotion = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

// WebGL at all, and whether it is a software renderer (SwiftShader, llvmpipe): those draw every
// pixel on the CPU, so the machine draws without multisampling there.
let probe = null;
export function webgl() {
  if (probe) return probe.ok;
  probe = { ok: false, soft: false };
  try {
    const c = document.createElement("canvas");
    const gl = c.getContext("webgl2") || c.getContext("webgl");
    if (gl) {
      const info = gl.getExtension("WEBGL_debug_renderer_info");
      probe = { ok: true, soft: Boolean(info) && /swiftshader|llvmpipe|software/i.test(gl.getParameter(info.UNMASKED_RENDERER_WEBGL)) };
      gl.getExtension("WEBGL_lose_context")?.loseContext();
    }
  } catch { /* no WebGL */ }
  return probe.ok;
}

// Can this page show the machine at all? (The test hooks read the reason.)
export function unavailable() {
  if (reducedMotion()) return "reduced-motion";
  if (!("IntersectionObserver" in window)) return "no-observer";
  if (!webgl()) return "no-webgl";
  return "";
}

let enginePromise = null;
const afterEngine = [];
function engine() {
  // In steps, each its own task, so no one task holds the page for long: the module, the scene,
  // the shaders (compiled asynchronously where the browser can), then the first frame.
  const pause = () => new Promise((ok) => setTimeout(ok, 0));
  // Marks (machine:imported, …) let a measurement see where the start-up time goes.
  const mark = (name) => performance.mark(`machine:${name}`);
  enginePromise ||= import("./machine3d.js").then(async (m) => {
    mark("imported");
    await pause();
    const e = await m.create({ antialias: !probe?.soft }, pause);
    mark("created");
    await pause();
    await e.compile(pause, mark);
    mark("compiled");
    await pause();
    setTimeout(() => afterEngine.forEach((fn) => fn()), 0);
    return { mod: m, e };
  });
  return enginePromise;
}

// The bench's run as the page shipped it (the `bench` section's answer): what the exploded view and
// the sections' small views show when no view has loaded another.
let shipped;
export function shippedBench() {
  if (shipped !== undefined) return shipped;
  const s = document.querySelector('script[data-answer="bench"]');
  try { shipped = s ? JSON.parse(s.textContent) : null; } catch { shipped = null; }
  return shipped;
}

// The state the scene shows: the bench's run for the parameters the bench's answer reads, as the
// page's state has them now. Its key (name=value of each, in the declaration's order) is what a
// still records it was drawn for (data-still-state), so a still can tell it is out of date.
export function benchKey() {
  return state.reads("bench").map((n) => `${n}=${toUrl(state.get(n) ?? "")}`).join("&");
}
// The bench's answer for that state (the page's one cache: the shipped answer, or the one the
// bench section asked for, is not asked again).
export function benchAnswer() {
  return answerFor("bench");
}
// fn() after every change of the state that changes what the scene shows.
export function onBenchChange(fn) {
  const reads = new Set(state.reads("bench"));
  state.subscribe((names) => { if ([...names].some((n) => reads.has(n))) fn(); });
}

const views = new Set();
let active = null;
let frame = 0;
let last = 0;

function schedule() {
  if (frame) return;
  frame = requestAnimationFrame(tick);
}

function tick(now) {
  frame = 0;
  const dt = last ? Math.min(0.1, (now - last) / 1000) : 0;
  last = now;
  if (!active) return;
  const moving = active.advance(dt);
  active.draw();
  if (moving) schedule(); else last = 0;
}

function choose() {
  let best = null;
  for (const v of views) if (v.ratio > 0 && (!best || v.ratio > best.ratio)) best = v;
  if (!best || best === active) return;
  if (active) active.leave();
  active = best;
  active.enter();
  schedule();
}

// One view of the machine in `host` (a .machine element the server rendered). opts: mode "bench"
// or "parts"; answer(): the bench answer to draw; onReady(view).
export function machineView(host, { mode, answer, lang, onReady }) {
  const stage = host.querySelector(".machine-stage");
  const tip = host.querySelector(".machine-tip");
  const labels = host.querySelector(".machine-labels");
  const v = {
    host, mode, ratio: 0, e: null, pass: 0, f: 1, explode: mode === "parts" ? 1 : 0, playing: false,
    onPassEnd: null, loaded: null, still: null, lit: null,
  };
  const why = unavailable();
  host.dataset.machine = why || "waiting";
  if (why) return v;

  const nameOf = (id) => {
    const li = host.querySelector(`.machine-legend [data-part="${id}"]`);
    if (!li) return id;
    // The name the page's depth shows (Story names at the Story depth).
    const shown = [...li.querySelectorAll(".machine-name")].find((s) => s.offsetParent !== null || s.getClientRects().length);
    return (shown || li.querySelector(".machine-name") || li).textContent.trim();
  };

  v.apply = () => {
    const e = v.e;
    const a = answer();
    // The engine is shared: a still or another view may have loaded another run since.
    if (a !== v.loaded || e.loaded() !== a) { e.load(a, lang); v.loaded = a; }
    e.seek(v.pass, v.f);
    e.view.explode = v.explode;
    e.view.lit = v.lit;
  };
  v.enter = () => {
    const e = v.e;
    if (e.canvas.parentNode !== stage) stage.prepend(e.canvas);
    v.still?.remove(); v.still = null;
    v.loaded = null;
    v.resize();
  };
  v.leave = () => {
    // Keep what this view showed as a picture, so it does not go blank while the other view plays.
    try {
      v.draw();
      const img = document.createElement("img");
      img.className = "machine-still"; img.alt = ""; img.src = v.e.canvas.toDataURL("image/png");
      stage.prepend(img); v.still = img;
    } catch { /* a still is only a nicety */ }
  };
  v.resize = () => {
    const w = Math.max(200, stage.clientWidth);
    const h = Math.round(w < 560 ? w * 0.85 : Math.min(w * 0.56, 560));
    stage.style.height = `${h}px`;
    v.e.size(w, h);
  };
  v.advance = (dt) => {
    if (!v.playing) return false;
    v.f = Math.min(1, v.f + dt / v.e_mod.PASS_SECONDS);
    if (v.f >= 1) { v.playing = false; v.onPassEnd?.(); }
    return v.playing;
  };
  v.draw = () => {
    if (active !== v) return;
    v.apply();
    v.e.render();
    host.dataset.pass = String(v.pass);
    host.dataset.f = v.f.toFixed(4);
    if (mode === "parts" && labels) placeLabels();
  };
  v.request = () => { if (active === v) schedule(); };
  // Play the current pass from its start (the bench's Step).
  v.play = (pass) => { v.pass = pass; v.f = 0; v.playing = true; v.request(); };
  v.seek = (pass, f) => { v.pass = pass; v.f = f; v.playing = false; v.request(); };

  function placeLabels() {
    for (const a of v.e.anchors()) {
      const tag = labels.querySelector(`[data-part="${a.id}"]`);
      if (!tag) continue;
      tag.style.left = `${(a.x * 100).toFixed(2)}%`;
      tag.style.top = `${(a.y * 100).toFixed(2)}%`;
    }
  }

  // Pointing: the part's name in a tip; a drag turns the bench a little.
  let drag = null;
  const point = (ev) => {
    const r = v.e.canvas.getBoundingClientRect();
    return [((ev.clientX - r.left) / r.width) * 2 - 1, -(((ev.clientY - r.top) / r.height) * 2 - 1), ev.clientX - r.left, ev.clientY - r.top];
  };
  const light = (id) => {
    if (id === v.lit) return;
    v.lit = id;
    host.querySelectorAll(".machine-legend [data-part]").forEach((li) => li.classList.toggle("is-lit", li.dataset.part === id));
    v.request();
  };
  stage.addEventListener("pointerdown", (ev) => {
    if (!v.e || ev.target !== v.e.canvas) return;
    drag = { x: ev.clientX, y: ev.clientY, az: v.e.view.az, el: v.e.view.el, moved: false };
    v.e.canvas.setPointerCapture?.(ev.pointerId);
  });
  stage.addEventListener("pointermove", (ev) => {
    if (!v.e || active !== v) return;
    if (drag) {
      const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      v.e.view.az = Math.max(-0.7, Math.min(0.7, drag.az - dx * 0.005));
      v.e.view.el = Math.max(0.12, Math.min(0.75, drag.el + dy * 0.004));
      v.request();
      return;
    }
    const [x, y, px, py] = point(ev);
    const id = v.e.partAt(x, y);
    light(id);
    if (tip) {
      tip.hidden = !id;
      if (id) { tip.textContent = nameOf(id); tip.style.left = `${px}px`; tip.style.top = `${py}px`; }
    }
  });
  stage.addEventListener("pointerleave", () => { light(null); if (tip) tip.hidden = true; });
  stage.addEventListener("pointerup", (ev) => {
    const was = drag; drag = null;
    if (!was || was.moved || mode !== "parts") return;
    // In the exploded view a part is a link to its section.
    const [x, y] = point(ev);
    const id = v.e.partAt(x, y);
    host.querySelector(`.machine-legend [data-part="${id}"] a`)?.click();
  });
  host.querySelectorAll(".machine-legend [data-part]").forEach((li) => {
    for (const [ev, on] of [["pointerenter", true], ["pointerleave", false], ["focusin", true], ["focusout", false]]) {
      li.addEventListener(ev, () => light(on ? li.dataset.part : null));
    }
  });

  const io = new IntersectionObserver((entries) => {
    // The host is hidden until the scene draws, so nearness is the widget's around it.
    for (const en of entries) v.near = en.isIntersecting;
    if (v.near) v.onNear?.();
    if (v.near && v.redraw && active === v) { v.redraw = false; schedule(); }
    if (v.near && !v.e) {
      host.dataset.machine = "loading";
      engine().then(({ mod, e }) => {
        v.e = e; v.e_mod = mod;
        views.add(v);
        host.dataset.machine = "live";
        host.classList.add("is-live");
        host.closest(".widget")?.classList.add("has-machine");
        new ResizeObserver(() => { if (active === v) { v.resize(); schedule(); } }).observe(stage);
        seen.observe(host);
        onReady?.(v);
        choose();
        if (!active) { active = v; v.enter(); schedule(); }
      }).catch((err) => {
        console.error("machine:", err);
        host.dataset.machine = "failed";
      });
    }
  }, { rootMargin: "100% 0px 100% 0px" });
  io.observe(host.closest(".widget") || host.parentElement);
  v.io = io;
  // How much of the view is on screen decides which view holds the canvas.
  const seen = new IntersectionObserver((entries) => {
    for (const en of entries) v.ratio = en.isIntersecting ? en.intersectionRatio : 0;
    choose();
  }, { threshold: [0, 0.1, 0.25, 0.5, 0.75, 1] });

  // For tests: the scene graph read back, exact seeking, and one frame's pixels.
  // The scene is shared: a readback poses it as this view's state, whichever view shows now (the
  // page's layout can make another view the more visible one between two calls), then puts the
  // shown view's state back.
  const own = () => {
    if (!v.e) return null;
    const other = active && active !== v ? active : null;
    if (other) v.loaded = null;          // the engine holds the other view's run: load this one
    v.apply();
    const read = JSON.parse(JSON.stringify(v.e.readback()));
    if (other) { other.loaded = null; other.apply(); }
    return read;
  };
  host.machine = {
    view: v,
    readback: own,
    seek: (pass, f) => { v.seek(pass, f); if (active !== v) { if (active) active.leave(); active = v; v.enter(); } v.draw(); return own(); },
    step: (dt) => { v.playing = true; v.advance(dt); v.draw(); return own(); },
    pixels: () => { v.draw(); return v.e.canvas.toDataURL("image/png"); },
  };
  return v;
}

// ---- the small views at the head of the sections that hang on a part ---------------------------
// Each is a link (server-rendered, with the part's 2D picture); once the scene is loaded, a still of
// the machine with that part lit is drawn over the picture, one still per task, from the page's one
// WebGL context. A small view does not load three.js by coming near: only by staying in sight for
// a moment (a reader stopping at the section), or once the bench or the exploded view has loaded it.
// The moment of a pass each part is shown at: where it is at work.
const MOMENT = { bigdrum: 0.45, reader: 0.45, cabinet: 0.45, mill: 0.45, smalldrum: 0.3, carriage: 0.3, gauges: 0.8 };
// What a still frames, where not the lit parts themselves: the tape runs the bench's length, so its
// view closes in on the type head printing onto it.
const FRAMED = { tape: ["typehead"] };
const DWELL_MS = 700;
let partViewsStarted = false;
export function startPartViews(lang) {
  if (partViewsStarted) return;
  partViewsStarted = true;
  const links = [...document.querySelectorAll(".machine-part[data-parts]")];
  if (!links.length || unavailable()) return;
  const want = new Set();
  let loading = false;
  // link -> the state key its still was drawn for. A still is out of date when the state the
  // scene shows has changed since: it is drawn again when it is next near (within a screen of the
  // view), not before, so a change of the state costs a still only where a reader may see it.
  const drawnFor = new WeakMap();
  const near = new Set();
  const stale = (link) => drawnFor.get(link) !== benchKey();
  const pause = () => new Promise((ok) => setTimeout(ok, 0));
  async function drain() {
    if (loading) return;
    loading = true;
    try {
      const { e } = await engine();
      for (const link of [...want]) {
        want.delete(link);
        if (!stale(link)) continue;
        const key = benchKey();
        const a = await benchAnswer();
        // The state moved on while its answer came: the newest state's answer is drawn instead.
        if (benchKey() !== key) { want.add(link); continue; }
        drawStill(e, link, a, key);
        await pause();
      }
    } catch (err) {
      // The answer could not be had (the server away): the stills stay as they are until the
      // state changes again or they come near again.
      console.error("machine:", err);
      want.clear();
    } finally {
      loading = false;
      if (want.size && enginePromise) drain();
    }
  }
  function drawStill(e, link, a, key) {
    const ids = link.dataset.parts.split(" ");
    if (e.loaded() !== a) e.load(a, lang);
    const w = Math.max(60, link.clientWidth), h = Math.max(40, link.clientHeight);
    const dpr = Math.min(2, window.devicePixelRatio || 1);
    let img = link.querySelector("canvas.machine-part__still");
    if (!img) {
      img = document.createElement("canvas"); img.className = "machine-part__still"; img.setAttribute("aria-hidden", "true");
      link.prepend(img);
    }
    const pass = e.passes() ? 1 : 0;
    const scene = e.still(ids, pass, MOMENT[ids[0]] ?? 1, w, h, dpr, (gl) => {
      img.width = Math.round(w * dpr); img.height = Math.round(h * dpr);
      img.getContext("2d").drawImage(gl, 0, 0, img.width, img.height);
    }, FRAMED[ids[0]] || ids);
    drawnFor.set(link, key);
    link.classList.add("is-drawn");
    link.dataset.still = ids.join(" ");
    link.dataset.stillState = key;
    // For tests: the scene graph as this still posed it, and how many times it has been drawn.
    link.machineStill = { state: key, scene, draws: (link.machineStill?.draws || 0) + 1 };
    // The shared canvas was resized for the still: the view it sits in draws again, at once if it
    // is within a screen, else when it comes that near (a full frame drawn for nobody would also
    // make the next still's copy wait for it: SwiftShader draws it on the CPU).
    if (active) { if (active.near) active.draw(); else active.redraw = true; }
  }
  const timers = new WeakMap();
  // Near (within a screen): drawn, or drawn again for a changed state, if the scene is there already.
  const io = new IntersectionObserver((entries) => {
    for (const en of entries) {
      if (en.isIntersecting) near.add(en.target); else near.delete(en.target);
      if (en.isIntersecting && enginePromise && stale(en.target)) { want.add(en.target); drain(); }
    }
  }, { rootMargin: "100% 0px 100% 0px" });
  // In sight, and staying there a moment: the scene is loaded for it.
  const sight = new IntersectionObserver((entries) => {
    for (const en of entries) {
      const link = en.target;
      clearTimeout(timers.get(link));
      if (!en.isIntersecting || drawnFor.has(link)) continue;
      timers.set(link, setTimeout(() => {
        const q = link.getBoundingClientRect();
        if (q.bottom > 0 && q.top < window.innerHeight) { want.add(link); drain(); }
      }, DWELL_MS));
    }
  });
  links.forEach((l) => sight.observe(l));
  links.forEach((l) => io.observe(l));
  // Once the bench or the exploded view has loaded the scene, the near views get their stills.
  afterEngine.push(() => {
    for (const l of links) {
      const r = l.getBoundingClientRect();
      if (stale(l) && r.bottom > -window.innerHeight && r.top < 2 * window.innerHeight) want.add(l);
    }
    drain();
  });
  // The state the scene shows changed: the near stills are drawn again, the others when they come near.
  onBenchChange(() => {
    if (!enginePromise) return;
    for (const l of near) if (stale(l)) want.add(l);
    drain();
  });
}
