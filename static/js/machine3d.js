// The bench as one procedural three.js machine (the `parts` and `bench` sections). Everything is drawn from code:
// no model files, no textures but those painted here on a canvas. The machine has no clock of its
// own: its pose is a pure function of (pass, f) — the pass of the traced run shown and how far
// through it (0..1) — plus the view (camera, exploded share). Time moves only through step(dt),
// so a test can put it at any moment and read the scene graph back, or render one frame twice.
import * as THREE from "/vendor/three.min.js";
import { languageOf, pageLang } from "./language.js";

const TAU = Math.PI * 2;
// A pass, in shares of its length: the draft guesses, the target reads once (every lane lit),
// the gauges check each guess in turn, the type head prints what was written.
export const PHASES = { draft: [0, 0.34], target: [0.34, 0.56], gauges: [0.56, 0.82], type: [0.82, 1] };
export const PASS_SECONDS = 3.2;
const MAX_ROWS = 8;      // streams drawn as rows of lanes (the rest are counted beside)
const MAX_DRAWERS = 16;  // cache drawers drawn in the cabinet

const clamp = (x, lo = 0, hi = 1) => Math.min(hi, Math.max(lo, x));
const ease = (x) => { x = clamp(x); return x * x * (3 - 2 * x); };
const within = (f, [a, b]) => clamp((f - a) / (b - a));

// The parts: id -> section anchor, where it sits, and which way it lifts out in the exploded view.
export const PARTS = [
  { id: "bigdrum", anchor: "onebyone", explode: [-1.2, 2.6, -0.6] },
  { id: "reader", anchor: "reader", explode: [-1.0, 0.6, 1.2] },
  { id: "smalldrum", anchor: "draft", explode: [0.6, 2.4, -0.8] },
  { id: "carriage", anchor: "draft", explode: [-1.6, 0.5, 2.7] },
  { id: "gauges", anchor: "rule", explode: [0.9, 2.3, 1.4] },
  { id: "typehead", anchor: "tape", explode: [2.4, 1.2, 1.8] },
  { id: "tape", anchor: "tape", explode: [0, -0.4, 3.2] },
  { id: "mill", anchor: "idle", explode: [1.6, 2.2, -1.6] },
  { id: "cabinet", anchor: "batch", explode: [-2.6, 0.8, -1.6] },
  { id: "tubes", anchor: "exact", explode: [2.6, 0.8, 0.6] },
];

// Materials are matcaps painted here: each finish (polished metal, rough cast iron, satin paint)
// is a small picture of a lit sphere, looked up by the surface's normal. One texture read per pixel
// and no lights: the cheapest shading three.js has, so software WebGL (SwiftShader) keeps up, and
// the soft studio light is painted into the finish rather than computed.
function matcap(finish) {
  const N = 128, c = document.createElement("canvas"); c.width = c.height = N;
  const g = c.getContext("2d"), img = g.createImageData(N, N);
  const L = [-0.45, 0.6, 0.66], ln = Math.hypot(...L), l = L.map((x) => x / ln);
  const sky = (y, x) => {
    // A studio: bright softbox up and to the left, a darker band at the horizon, a warm floor.
    const box = Math.exp(-((x + 0.45) ** 2 + (y - 0.62) ** 2) * 9);
    if (y >= 0) return 0.5 + 0.35 * y + 0.9 * box;
    return 0.26 + 0.12 * Math.min(1, -y * 3);
  };
  for (let j = 0; j < N; j++) for (let i = 0; i < N; i++) {
    let x = (i + 0.5) / N * 2 - 1, y = 1 - (j + 0.5) / N * 2;
    const r2 = x * x + y * y;
    if (r2 > 1) { const r = Math.sqrt(r2); x /= r; y /= r; }
    const z = Math.sqrt(Math.max(0, 1 - x * x - y * y));
    const rx = 2 * z * x, ry = 2 * z * y, rz = 2 * z * z - 1;  // the view ray reflected
    const spec = Math.max(0, rx * l[0] + ry * l[1] + rz * l[2]);
    const diff = Math.max(0, x * l[0] + y * l[1] + z * l[2]);
    let v;
    if (finish === "metal") v = 0.15 + 0.85 * sky(ry, rx) + 1.1 * spec ** 60;
    else if (finish === "iron") v = 0.3 + 0.35 * diff + 0.25 * sky(ry, rx) + 0.25 * spec ** 12;
    else if (finish === "glass") v = 0.55 + 0.45 * sky(ry, rx) + 1.2 * spec ** 80;
    else v = 0.42 + 0.58 * diff + 0.28 * spec ** 24;  // satin paint, paper, wood
    const k = (j * N + i) * 4, b = Math.round(255 * Math.min(1, v));
    img.data[k] = b; img.data[k + 1] = Math.round(b * (finish === "iron" ? 1 : 0.985)); img.data[k + 2] = Math.round(b * 0.96); img.data[k + 3] = 255;
  }
  g.putImageData(img, 0, 0);
  const t = new THREE.CanvasTexture(c); t.colorSpace = THREE.SRGBColorSpace;
  return t;
}

function materials() {
  const caps = { metal: matcap("metal"), iron: matcap("iron"), satin: matcap("satin"), glass: matcap("glass") };
  const mc = (finish, color, extra = {}) => new THREE.MeshMatcapMaterial({ matcap: caps[finish], color, ...extra });
  const glow = (color) => new THREE.MeshBasicMaterial({ color });
  return {
    brass: mc("metal", 0xd6a94e),
    brassDark: mc("metal", 0x9c7634),
    steel: mc("metal", 0xc4ccd4),
    iron: mc("iron", 0x3d4044),
    ironLight: mc("iron", 0x565a60),
    wood: mc("satin", 0x7a5434),
    glass: mc("glass", 0xf4f8ff, { transparent: true, opacity: 0.26, depthWrite: false }),
    lane: mc("iron", 0x5f5a52),
    laneLit: glow(0xffb84a),
    red: glow(0xd8402c),
    kept: mc("satin", 0x2f9a68),
    refused: mc("satin", 0xd0402e),
    unchecked: mc("satin", 0x9a968f),
    column: mc("metal", 0xf0c060),
    paper: mc("satin", 0xfbf6ea),
    pencil: mc("satin", 0xf0c22a),
    graphite: mc("satin", 0x2a2a2a),
    lampOff: mc("satin", 0x6a3028),
  };
}

function gearShape(r, teeth, depth) {
  const s = new THREE.Shape();
  const n = teeth * 4;
  for (let i = 0; i <= n; i++) {
    const a = (i / n) * TAU;
    const rr = (i % 4 < 2) ? r : r - depth;
    const x = Math.cos(a) * rr, y = Math.sin(a) * rr;
    if (i === 0) s.moveTo(x, y); else s.lineTo(x, y);
  }
  const hole = new THREE.Path();
  hole.absarc(0, 0, r * 0.25, 0, TAU, true);
  s.holes.push(hole);
  return s;
}

// The tape's face: the context and the tokens written so far, each a cell with its mark
// (a dot: a kept guess; a diamond: written by the target). The newest cell sits under the head.
function paintTape(canvas, cells, lang) {
  // Painted at its logical size (2048 × 150) scaled to the canvas's (see TEXEL).
  const g = canvas.getContext("2d"), k = canvas.texel || 1;
  g.setTransform(k, 0, 0, k, 0, 0);
  const W = canvas.width / k, H = canvas.height / k;
  g.fillStyle = "#fbf6ea"; g.fillRect(0, 0, W, H);
  g.fillStyle = "#c9bfa8";
  for (let x = 0; x < W; x += 24) { g.fillRect(x + 8, 6, 8, 8); g.fillRect(x + 8, H - 14, 8, 8); }
  const cw = 150;
  const fits = Math.floor(W / cw);
  const shown = cells.slice(-fits);
  const x0 = W - shown.length * cw;
  g.textAlign = "center"; g.textBaseline = "middle";
  const font = languageOf(lang).canvas_font;   // the language record's size and family
  shown.forEach((c, i) => {
    const x = x0 + i * cw;
    g.fillStyle = c.kind === "context" ? "#eee6d2" : (i % 2 ? "#f6efdd" : "#fbf6ea");
    g.fillRect(x + 2, 22, cw - 4, H - 44);
    g.strokeStyle = "#d8ccb0"; g.lineWidth = 2; g.strokeRect(x + 2, 22, cw - 4, H - 44);
    g.fillStyle = c.kind === "context" ? "#6b645a" : "#1f1c18";
    let text = c.token; if (text.length > 9) text = text.slice(0, 8) + "…";
    g.font = `600 ${font}`;
    g.fillText(text, x + cw / 2, H / 2 - 8);
    const my = H - 36;
    if (c.kind === "kept") {
      g.fillStyle = "#2e7d5b"; g.beginPath(); g.arc(x + cw / 2, my, 9, 0, TAU); g.fill();
    } else if (c.kind === "replaced" || c.kind === "bonus") {
      g.fillStyle = "#b5452b"; g.beginPath();
      g.moveTo(x + cw / 2, my - 11); g.lineTo(x + cw / 2 + 11, my); g.lineTo(x + cw / 2, my + 11); g.lineTo(x + cw / 2 - 11, my);
      g.closePath(); g.fill();
    }
  });
}

// The carriage's slip: one slot per guess, each guess written in the reader's language once the
// small drum has turned for it; inked green when the gauges keep it, struck through in red when
// they refuse it, grey when the pass stopped before checking it.
const INK = { written: "#2a2622", kept: "#2e7d5b", refused: "#b5452b", unchecked: "#8f897e" };
function paintSlip(canvas, slots, lang, pad, tokens) {
  // pad: the share of the slip's width left blank at each end (the pencil's track is narrower);
  // tokens: every guess of the pass, so the letters keep one size while the guesses appear.
  const g = canvas.getContext("2d"), k = canvas.texel || 1;
  g.setTransform(k, 0, 0, k, 0, 0);
  const W = canvas.width / k, H = canvas.height / k, n = slots.length, sw = (W * (1 - 2 * pad)) / n;
  g.fillStyle = "#fbf6ea"; g.fillRect(0, 0, W, H);
  g.textAlign = "center"; g.textBaseline = "middle";
  // The language record's family (its canvas font without the size); a full-width script's
  // glyph fills more of its slot than a word's letters do.
  const rec = languageOf(lang);
  const family = (rec.canvas_font || "16px serif").replace(/^\S+\s+/, "");
  let px = Math.min(H * 0.5, sw * (rec.full_width ? 0.6 : 0.5));
  g.font = `600 ${px}px ${family}`;
  const widest = Math.max(1, ...tokens.map((t) => g.measureText(t).width));
  if (widest > sw - 16) px *= (sw - 16) / widest;
  g.font = `600 ${px}px ${family}`;
  slots.forEach((s, i) => {
    const x = W * pad + i * sw;
    g.strokeStyle = "#d8ccb0"; g.lineWidth = 3;
    g.beginPath(); g.moveTo(x + 10, H - 34); g.lineTo(x + sw - 10, H - 34); g.stroke();
    if (!s) return;
    g.fillStyle = INK[s.state];
    const y = H / 2 - 6;
    g.fillText(s.token, x + sw / 2, y);
    if (s.state === "refused") {
      g.strokeStyle = INK.refused; g.lineWidth = Math.max(4, px * 0.09);
      const half = Math.min(sw - 16, g.measureText(s.token).width) / 2 + 6;
      g.beginPath(); g.moveTo(x + sw / 2 - half, y); g.lineTo(x + sw / 2 + half, y); g.stroke();
    }
  });
}

// Static pieces that share a material are drawn as one mesh: a software renderer pays for every
// draw call, and a part of a dozen boxes is one draw. `keep` holds what moves on its own.
function merge(group, keep = new Set()) {
  group.updateMatrixWorld(true);
  const inv = new THREE.Matrix4().copy(group.matrixWorld).invert();
  const byMat = new Map();
  const visit = (o) => {
    for (const c of o.children) {
      if (keep.has(c)) continue;
      if (c.isMesh && !c.isInstancedMesh && !Array.isArray(c.material)) {
        if (!byMat.has(c.material)) byMat.set(c.material, []);
        byMat.get(c.material).push(c);
      }
      if (!c.isInstancedMesh) visit(c);
    }
  };
  visit(group);
  for (const [mat, list] of byMat) {
    if (list.length < 2) continue;
    const geos = list.map((m) => {
      const g = m.geometry.index ? m.geometry.toNonIndexed() : m.geometry.clone();
      return g.applyMatrix4(new THREE.Matrix4().multiplyMatrices(inv, m.matrixWorld));
    });
    const out = new THREE.BufferGeometry();
    for (const name of ["position", "normal", "uv"]) {
      if (!geos.every((g) => g.attributes[name])) continue;
      const size = geos[0].attributes[name].itemSize;
      const arr = new Float32Array(geos.reduce((n, g) => n + g.attributes[name].count * size, 0));
      let at = 0;
      for (const g of geos) { arr.set(g.attributes[name].array, at); at += g.attributes[name].array.length; }
      out.setAttribute(name, new THREE.BufferAttribute(arr, size));
    }
    const mesh = new THREE.Mesh(out, mat);
    mesh.userData.part = list[0].userData.part;
    for (const m of list) m.removeFromParent();
    group.add(mesh);
  }
}

export async function create(opts = {}, pause = async () => {}) {
  const canvas = document.createElement("canvas");
  canvas.className = "machine-canvas";
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: opts.antialias ?? true, alpha: true, preserveDrawingBuffer: false,
    powerPreference: "low-power" });
  // A software renderer (SwiftShader, llvmpipe) draws every pixel on the CPU: fewer pixels than CSS
  // pixels there (the browser scales the frame up). A GPU draws at most 1.5 pixels per CSS pixel:
  // on a 2× laptop screen that is 44 % fewer pixels than 2, with multisampling to smooth the edges.
  const gl = renderer.getContext(), info = gl.getExtension("WEBGL_debug_renderer_info");
  const soft = Boolean(info) && /swiftshader|llvmpipe|software/i.test(gl.getParameter(info.UNMASKED_RENDERER_WEBGL));
  renderer.setPixelRatio(opts.dpr ?? (soft ? 0.75 : Math.min(1.5, window.devicePixelRatio || 1)));
  renderer.outputColorSpace = THREE.SRGBColorSpace;
  // The tape's and the slip's canvases are uploaded again at each change (a few times a pass): a
  // software renderer, whose frame is drawn at 0.75 pixel per CSS pixel, gets them at half their
  // size (a quarter of the bytes; the tape still has more texels than it covers pixels there).
  const TEXEL = soft ? 0.5 : 1;
  const painted = (w, h) => {
    const c = document.createElement("canvas"); c.width = Math.round(w * TEXEL); c.height = Math.round(h * TEXEL); c.texel = TEXEL;
    return c;
  };
  await pause();
  const scene = new THREE.Scene();
  const M = materials();
  const camera = new THREE.PerspectiveCamera(32, 16 / 10, 0.5, 200);

  await pause();
  const root = new THREE.Group(); scene.add(root);
  const groups = {};
  for (const p of PARTS) {
    const g = new THREE.Group(); g.name = p.id; g.userData.part = p.id; groups[p.id] = g; root.add(g);
  }
  const add = (part, geom, mat, x = 0, y = 0, z = 0) => {
    const m = new THREE.Mesh(geom, mat); m.position.set(x, y, z); m.userData.part = part;
    (typeof part === "string" ? groups[part] : part).add(m); return m;
  };

  // The bed: cast iron on four feet, with a soft shadow under it.
  const bed = new THREE.Group(); root.add(bed);
  const bedTop = new THREE.Mesh(new THREE.BoxGeometry(13.4, 0.36, 6.2), M.iron); bedTop.position.y = 0.5; bed.add(bedTop);
  const rim = new THREE.Mesh(new THREE.BoxGeometry(13.6, 0.12, 6.4), M.ironLight); rim.position.y = 0.7; bed.add(rim);
  for (const [x, z] of [[-6.2, -2.7], [6.2, -2.7], [-6.2, 2.7], [6.2, 2.7]]) {
    const foot = new THREE.Mesh(new THREE.CylinderGeometry(0.28, 0.4, 0.5, 16), M.iron); foot.position.set(x, 0.1, z); bed.add(foot);
  }
  // The soft shadow under the bed is the stage's own background (machine.css): no blended plane to fill.
  const Y = 0.76;  // the bed's top

  // The big drum (the target): a brass drum studded with steel pins, one per weight, on two stands.
  const BIG = { x: -2.6, y: Y + 2.45, z: -0.6, r: 1.35, len: 3.4 };
  const bigRot = new THREE.Group(); bigRot.position.set(BIG.x, BIG.y, BIG.z); groups.bigdrum.add(bigRot);
  add(bigRot, new THREE.CylinderGeometry(BIG.r, BIG.r, BIG.len, 36, 1), M.brass).rotation.z = Math.PI / 2;
  for (const s of [-1, 1]) add(bigRot, new THREE.CylinderGeometry(BIG.r + 0.08, BIG.r + 0.08, 0.12, 36), M.brassDark, s * BIG.len / 2, 0, 0).rotation.z = Math.PI / 2;
  {
    // Each pin a four-sided stud (four triangles, where a box has twelve): software WebGL pays
    // for every small triangle, and the pins were most of the scene's.
    const cols = 16, rows = 22, pin = new THREE.ConeGeometry(0.065, 0.14, 4, 1, true);
    const inst = new THREE.InstancedMesh(pin, M.steel, cols * rows); inst.userData.part = "bigdrum";
    const o = new THREE.Object3D(); let k = 0;
    for (let i = 0; i < cols; i++) for (let j = 0; j < rows; j++) {
      const a = (j / rows) * TAU + (i % 2) * (Math.PI / rows);
      // Pins stand where the weights are: a hashed pattern, the same every time.
      const on = ((i * 73 + j * 151) % 7) < 4;
      const rr = BIG.r + (on ? 0.05 : -0.02);
      o.position.set(-BIG.len / 2 + 0.2 + i * ((BIG.len - 0.4) / (cols - 1)), Math.cos(a) * rr, Math.sin(a) * rr);
      o.rotation.set(-a, 0, 0); o.updateMatrix(); inst.setMatrixAt(k++, o.matrix);
    }
    bigRot.add(inst);
  }
  add(bigRot, new THREE.CylinderGeometry(0.12, 0.12, BIG.len + 1.2, 16), M.steel).rotation.z = Math.PI / 2;
  for (const s of [-1, 1]) {
    add("bigdrum", new THREE.BoxGeometry(0.3, BIG.y - Y + 0.2, 0.7), M.iron, BIG.x + s * (BIG.len / 2 + 0.45), (BIG.y + Y) / 2, BIG.z);
  }

  // The reader under the big drum: one lane per position the pass works out, a row per stream.
  const reader = { lanes: [], frame: null, rows: 0, cols: 0 };
  const READER = { x: BIG.x, y: Y + 0.32, z: BIG.z + 0.35, w: 3.2, d: 1.9 };
  reader.frame = add("reader", new THREE.BoxGeometry(READER.w + 0.3, 0.18, READER.d + 0.3), M.ironLight, READER.x, READER.y - 0.12, READER.z);
  const laneGroup = new THREE.Group(); groups.reader.add(laneGroup);

  // The small drum (the draft), its stands, and the pencil carriage in front that writes each guess.
  const SMALL = { x: 1.3, y: Y + 1.55, z: -0.9, r: 0.6, len: 1.5 };
  const smallRot = new THREE.Group(); smallRot.position.set(SMALL.x, SMALL.y, SMALL.z); groups.smalldrum.add(smallRot);
  add(smallRot, new THREE.CylinderGeometry(SMALL.r, SMALL.r, SMALL.len, 40), M.brass).rotation.z = Math.PI / 2;
  {
    const cols = 7, rows = 12, inst = new THREE.InstancedMesh(new THREE.ConeGeometry(0.05, 0.1, 4, 1, true), M.steel, cols * rows);
    inst.userData.part = "smalldrum";
    const o = new THREE.Object3D(); let k = 0;
    for (let i = 0; i < cols; i++) for (let j = 0; j < rows; j++) {
      const a = (j / rows) * TAU;
      o.position.set(-SMALL.len / 2 + 0.15 + i * ((SMALL.len - 0.3) / (cols - 1)), Math.cos(a) * (SMALL.r + 0.03), Math.sin(a) * (SMALL.r + 0.03));
      o.rotation.set(-a, 0, 0); o.updateMatrix(); inst.setMatrixAt(k++, o.matrix);
    }
    smallRot.add(inst);
  }
  // A spoke, so a reader can count the small drum's turns.
  add(smallRot, new THREE.BoxGeometry(SMALL.len + 0.1, 0.08, 0.2), M.red, 0, SMALL.r + 0.02, 0);
  add(smallRot, new THREE.CylinderGeometry(0.08, 0.08, SMALL.len + 0.8, 12), M.steel).rotation.z = Math.PI / 2;
  for (const s of [-1, 1]) add("smalldrum", new THREE.BoxGeometry(0.22, SMALL.y - Y + 0.1, 0.5), M.iron, SMALL.x + s * (SMALL.len / 2 + 0.32), (SMALL.y + Y) / 2, SMALL.z);
  // The big drum's marker: a red stripe along it, so its one turn per pass can be seen.
  add(bigRot, new THREE.BoxGeometry(BIG.len - 0.1, 0.06, 0.26), M.red, 0, BIG.r + 0.02, 0);

  // The carriage runs in front of the gauges' bridge, low, so its slip can be read from the front.
  const CARR = { x0: SMALL.x - 1.1, x1: SMALL.x + 1.1, y: Y + 0.5, z: 1.95 };
  add("carriage", new THREE.CylinderGeometry(0.04, 0.04, CARR.x1 - CARR.x0 + 0.6, 12), M.steel, SMALL.x, CARR.y + 0.2, CARR.z - 0.12).rotation.z = Math.PI / 2;
  // The slip the pencil writes each guess on (painted in paintSlip), tilted up toward the reader.
  const slipCanvas = painted(1024, 236);
  const slipTex = new THREE.CanvasTexture(slipCanvas); slipTex.colorSpace = THREE.SRGBColorSpace; slipTex.anisotropy = 4;
  const SLIP = { w: CARR.x1 - CARR.x0 + 0.5, d: 0.62 };
  const slip = add("carriage", new THREE.BoxGeometry(SLIP.w, 0.04, SLIP.d),
    [M.paper, M.paper, new THREE.MeshBasicMaterial({ map: slipTex }), M.paper, M.paper, M.paper], SMALL.x, Y + 0.17, CARR.z + 0.1);
  slip.rotation.x = 0.45;
  add("carriage", new THREE.BoxGeometry(SLIP.w, 0.3, 0.08), M.iron, SMALL.x, Y + 0.12, CARR.z - 0.16);
  const slider = new THREE.Group(); groups.carriage.add(slider);
  add(slider, new THREE.BoxGeometry(0.26, 0.2, 0.26), M.brassDark, 0, 0.2, -0.12);
  add(slider, new THREE.CylinderGeometry(0.045, 0.045, 0.34, 10), M.pencil, 0, 0.02, 0);
  add(slider, new THREE.ConeGeometry(0.045, 0.1, 10), M.graphite, 0, -0.2, 0).rotation.x = Math.PI;
  slider.position.set(CARR.x0, CARR.y, CARR.z);
  for (const s of [-1, 1]) add("carriage", new THREE.BoxGeometry(0.1, 0.72, 0.1), M.iron, SMALL.x + s * ((CARR.x1 - CARR.x0) / 2 + 0.3), Y + 0.36, CARR.z - 0.12);

  // The bridge and its gauges: one glass tube per guess, a brass column rising to min(1, p/q),
  // a red line at the random r.
  const BR = { x: 2.3, y: Y + 0.2, z: 1.3, w: 4.6, h: 1.6 };
  add("gauges", new THREE.BoxGeometry(BR.w + 0.4, 0.16, 0.4), M.iron, BR.x, BR.y + BR.h + 0.35, BR.z);
  for (const s of [-1, 1]) add("gauges", new THREE.BoxGeometry(0.18, BR.h + 0.5, 0.3), M.iron, BR.x + s * (BR.w / 2 + 0.1), BR.y + (BR.h + 0.35) / 2, BR.z);
  const gaugeGroup = new THREE.Group(); groups.gauges.add(gaugeGroup);
  const gauges = [];

  // The type head over the tape, and the tape along the front of the bed.
  const TAPE = { x: -0.6, y: Y + 0.05, z: 2.65, w: 11.2, d: 0.75 };
  const tapeCanvas = painted(2048, 150);
  const tapeTex = new THREE.CanvasTexture(tapeCanvas); tapeTex.colorSpace = THREE.SRGBColorSpace; tapeTex.anisotropy = 4;
  const tapeMesh = add("tape", new THREE.BoxGeometry(TAPE.w, 0.03, TAPE.d),
    [M.paper, M.paper, new THREE.MeshBasicMaterial({ map: tapeTex }), M.paper, M.paper, M.paper], TAPE.x, TAPE.y, TAPE.z);
  for (const s of [-1, 1]) add("tape", new THREE.CylinderGeometry(0.22, 0.22, TAPE.d + 0.1, 24), M.steel, TAPE.x + s * (TAPE.w / 2 + 0.2), TAPE.y + 0.12, TAPE.z).rotation.x = Math.PI / 2;
  const headX = TAPE.x + TAPE.w / 2 - (TAPE.w * 75 / 2048);
  const head = new THREE.Group(); groups.typehead.add(head);
  add(head, new THREE.BoxGeometry(0.5, 0.5, 0.6), M.steel, 0, 0.55, 0);
  add(head, new THREE.BoxGeometry(0.34, 0.16, 0.5), M.brassDark, 0, 0.22, 0);
  add("typehead", new THREE.BoxGeometry(0.14, 1.5, 0.14), M.iron, headX, Y + 0.75, TAPE.z - 0.55);
  add("typehead", new THREE.BoxGeometry(0.14, 0.14, 0.7), M.iron, headX, Y + 1.45, TAPE.z - 0.25);
  head.position.set(headX, TAPE.y + 0.3, TAPE.z);

  // The mill: gears turning as fast as the arithmetic is busy.
  const MILL = { x: 3.6, y: Y + 2.3, z: -1.6 };
  const gear1 = add("mill", new THREE.ExtrudeGeometry(gearShape(0.9, 18, 0.14), { depth: 0.22, bevelEnabled: false }), M.brass, MILL.x, MILL.y, MILL.z);
  const gear2 = add("mill", new THREE.ExtrudeGeometry(gearShape(0.55, 11, 0.14), { depth: 0.22, bevelEnabled: false }), M.steel, MILL.x + 1.38, MILL.y - 0.35, MILL.z);
  add("mill", new THREE.BoxGeometry(0.3, MILL.y - Y, 0.3), M.iron, MILL.x, (MILL.y + Y) / 2, MILL.z - 0.2);
  add("mill", new THREE.BoxGeometry(0.26, MILL.y - 0.35 - Y, 0.26), M.iron, MILL.x + 1.38, (MILL.y - 0.35 + Y) / 2, MILL.z - 0.2);

  // The cabinet: a drawer per stream (the KV cache); it overflows when the batch does not fit.
  const CAB = { x: -5.35, y: Y, z: -0.2, w: 1.9, h: 3.0, d: 2.2 };
  add("cabinet", new THREE.BoxGeometry(CAB.w, CAB.h, CAB.d), M.wood, CAB.x, CAB.y + CAB.h / 2, CAB.z);
  add("cabinet", new THREE.BoxGeometry(CAB.w + 0.14, 0.12, CAB.d + 0.14), M.brassDark, CAB.x, CAB.y + CAB.h + 0.06, CAB.z);
  const drawerGroup = new THREE.Group(); groups.cabinet.add(drawerGroup);
  const spillGroup = new THREE.Group(); groups.cabinet.add(spillGroup);
  const lamp = add("cabinet", new THREE.SphereGeometry(0.16, 10, 8), M.lampOff, CAB.x, CAB.y + CAB.h + 0.3, CAB.z + 0.6);
  let drawers = [];

  // The tubes at one end: plain sampling beside the speculative loop, the same p in both.
  const TUBES = { x: 5.9, y: Y, z: -0.2 };
  add("tubes", new THREE.BoxGeometry(1.0, 0.14, 1.5), M.iron, TUBES.x, TUBES.y + 0.07, TUBES.z);
  add("tubes", new THREE.BoxGeometry(1.0, 0.1, 1.5), M.brassDark, TUBES.x, TUBES.y + 2.7, TUBES.z);
  for (const [k, dz] of [[0, -0.38], [1, 0.38]]) {
    add("tubes", new THREE.CylinderGeometry(0.28, 0.28, 2.5, 24, 1, true), M.glass, TUBES.x, TUBES.y + 1.4, TUBES.z + dz);
    for (let b = 0; b < 8; b++) {
      const put = k === 1 && b % 3 === 2;
      const geo = put ? new THREE.OctahedronGeometry(0.16) : new THREE.SphereGeometry(0.15, 10, 6);
      add("tubes", geo, k === 0 ? M.steel : put ? M.refused : M.kept, TUBES.x, TUBES.y + 0.35 + b * 0.3, TUBES.z + dz);
    }
  }

  // What does not move, drawn in as few calls as it can be.
  const moving = new Set([bigRot, smallRot, slider, slip, head, gear1, gear2, laneGroup, gaugeGroup, drawerGroup, spillGroup, lamp]);
  for (const g of [bed, bigRot, smallRot, slider, head, ...Object.values(groups)]) merge(g, moving);

  // ---- the run --------------------------------------------------------------------------------
  let run = null, gamma = 4, batch = 1, busy = 0, fits = true, maxBatch = null, lang = pageLang;
  let guessesBefore = [0];  // guesses drafted before each pass (small drum turns)
  const view = { pass: 0, f: 1, explode: 0, az: 0.22, el: 0.36, lit: null, dim: false };

  // A run's lanes, gauges and drawers are built for it: the last run's geometry is let go (on the
  // GPU too), since a reader changing the settings loads run after run. Materials are shared.
  const drop = (g) => {
    g.traverse((o) => { if (o === g) return; o.geometry?.dispose(); if (o.isInstancedMesh) o.dispose(); });
    g.clear();
  };

  function buildLanes() {
    drop(laneGroup);
    const cols = gamma + 1, rows = Math.min(batch, MAX_ROWS);
    reader.cols = cols; reader.rows = rows;
    const lw = Math.min(0.16, (READER.w - 0.2) / cols * 0.6), gap = (READER.w - 0.2) / cols;
    // Rows of streams with a clear gap between them, and lanes flat enough that their sides do
    // not close it, seen from above at a slant.
    const rgap = (READER.d - 0.1) / rows, rd = Math.min(0.5, rgap * 0.45);
    const geo = new THREE.BoxGeometry(lw, 0.025, rd);
    // The lanes this pass works out (one per position, a row per stream), one instanced draw; and
    // dark lanes beyond them: the positions a longer pass would work out.
    const lanes = new THREE.InstancedMesh(geo, M.lane, cols * rows);
    lanes.userData.part = "reader";
    const spare = Math.max(0, Math.floor((READER.w - 0.2) / gap) - cols);
    const o = new THREE.Object3D();
    let k = 0;
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols + spare; c++) {
      const x = READER.x - READER.w / 2 + 0.1 + gap * (c + 0.5), z = READER.z - READER.d / 2 + 0.05 + rgap * (r + 0.5);
      if (c < cols) { o.position.set(x, READER.y, z); o.updateMatrix(); lanes.setMatrixAt(k++, o.matrix); }
      else add(laneGroup, geo, M.lane, x, READER.y, z);
    }
    merge(laneGroup);
    laneGroup.add(lanes);
    reader.lanes = lanes;
  }

  function buildGauges() {
    drop(gaugeGroup); gauges.length = 0;
    const n = gamma, pitch = Math.min(0.9, (BR.w - 0.3) / n), tubeR = Math.min(0.2, pitch * 0.32);
    for (let i = 0; i < n; i++) {
      const x = BR.x - (n - 1) * pitch / 2 + i * pitch;
      const g = new THREE.Group(); g.position.set(x, BR.y, BR.z); gaugeGroup.add(g);
      add(g, new THREE.CylinderGeometry(tubeR, tubeR, BR.h, 20, 1, true), M.glass, 0, BR.h / 2, 0);
      add(g, new THREE.CylinderGeometry(tubeR * 1.3, tubeR * 1.3, 0.08, 20), M.brassDark, 0, 0.02, 0);
      const col = add(g, new THREE.CylinderGeometry(tubeR * 0.72, tubeR * 0.72, 1, 16), M.column, 0, 0, 0);
      col.geometry.translate(0, 0.5, 0); col.scale.y = 0.0001; col.position.y = 0.06;
      const rl = add(g, new THREE.BoxGeometry(tubeR * 3.2, 0.045, tubeR * 3.2), M.red, 0, 0.06, 0);
      const cap = add(g, new THREE.SphereGeometry(tubeR * 0.9, 10, 6), M.unchecked, 0, BR.h + 0.12, 0);
      for (const m of g.children) m.userData.part = "gauges";
      gauges.push({ col, rl, cap, h: 0, r: null, verdict: null });
    }
    merge(gaugeGroup, new Set(gauges.flatMap((gg) => [gg.col, gg.rl, gg.cap])));
    lastSlip = "";
  }

  function buildDrawers() {
    drop(drawerGroup); drop(spillGroup); drawers = [];
    const shown = Math.min(batch, MAX_DRAWERS);
    const cols = shown > 8 ? 4 : shown > 3 ? 2 : 1, rows = Math.ceil(MAX_DRAWERS / 4);
    const rowsNeeded = Math.ceil(shown / cols);
    const dw = (CAB.w - 0.2) / cols, dh = (CAB.h - 0.2) / Math.max(rows, rowsNeeded);
    // When the batch does not fit, the drawers the memory holds are in the cabinet; the rest spill.
    const inside = fits ? shown : Math.max(0, Math.min(shown, Math.round(shown * Math.min(1, (maxBatch || 0) / batch))));
    for (let i = 0; i < shown; i++) {
      const c = i % cols, r = Math.floor(i / cols);
      const geo = new THREE.BoxGeometry(dw - 0.06, dh - 0.06, 0.5);
      if (i < inside) {
        const d = add(drawerGroup, geo, M.brassDark, CAB.x - CAB.w / 2 + 0.1 + dw * (c + 0.5), CAB.y + CAB.h - 0.1 - dh * (r + 0.5), CAB.z + CAB.d / 2 - 0.2);
        add(d, new THREE.BoxGeometry(Math.min(0.2, dw * 0.3), 0.05, 0.06), M.steel, 0, 0, 0.28);
        d.userData.part = "cabinet"; d.children[0].userData.part = "cabinet";
        d.userData.z0 = d.position.z; drawers.push(d);
      } else {
        const k = i - inside;
        const d = add(spillGroup, geo, M.refused, CAB.x + 1.3 + (k % 3) * 0.35, CAB.y + 0.15 + Math.floor(k / 3) * 0.12, CAB.z + CAB.d / 2 + 0.2 + (k % 2) * 0.2);
        d.rotation.set(0.1 * (k % 3), 0.4 + 0.2 * k, 0.15 * (k % 2)); d.userData.part = "cabinet";
      }
    }
    lamp.material = fits ? M.lampOff : M.red;
    drawerGroup.userData.count = drawers.length;
    spillGroup.userData.count = shown - inside;
    merge(drawerGroup); merge(spillGroup);
  }

  let loaded = null;
  function load(answer, language) {
    loaded = answer;
    lang = language || lang;
    run = answer?.run || null;
    gamma = answer?.params?.gamma ?? run?.steps?.[0]?.gamma ?? 4;
    batch = answer?.params?.batch ?? 1;
    busy = answer?.machine?.busy ?? 0;
    fits = answer?.machine?.fits ?? true;
    maxBatch = answer?.machine?.max_batch ?? null;
    guessesBefore = [0];
    for (const s of run?.steps || []) guessesBefore.push(guessesBefore[guessesBefore.length - 1] + s.guesses.length);
    buildLanes(); buildGauges(); buildDrawers();
    lastTape = "";
    view.pass = Math.min(view.pass, passes());
  }
  const passes = () => run?.steps?.length || 0;

  let lastTape = "", lastSlip = "";
  function tapeCells(n, written) {
    const cells = (run?.context || []).map((t) => ({ token: t, kind: "context" }));
    (run?.steps || []).slice(0, n).forEach((s) => s.written.forEach((w) => cells.push(w)));
    if (written) run.steps[n].written.slice(0, written).forEach((w) => cells.push(w));
    return cells;
  }

  // ---- the pose at (pass, f): every moving part, from the trace alone --------------------------
  let read = {};
  function pose() {
    const n = view.pass, f = n === 0 ? 1 : view.f;
    const step = n > 0 ? run?.steps?.[n - 1] : null;
    const done = Math.max(0, n - 1);
    const g = step ? step.guesses.length : 0;
    // Small drum: one turn per guess; the carriage moves a slot per guess and writes it.
    const u = within(f, PHASES.draft) * g;
    const turns = Math.min(g, Math.floor(u)), part = u >= g ? 0 : ease(u - Math.floor(u));
    const smallAngle = TAU * ((n > 0 ? guessesBefore[done] : 0) + turns + part) ;
    smallRot.rotation.x = smallAngle;
    // The big drum: once per pass, while every lane is lit.
    const tf = step ? ease(within(f, PHASES.target)) : 0;
    const bigAngle = TAU * (n > 0 ? done + tf : 0);
    bigRot.rotation.x = bigAngle;
    const lit = step && f >= PHASES.target[0];
    let lanesLit = 0;
    reader.lanes.material = lit ? M.laneLit : M.lane;
    reader.lanes.userData.lit = Boolean(lit);
    if (lit) lanesLit = reader.lanes.count;
    // The mill: turns in proportion to the arithmetic's busy share.
    const millAngle = TAU * 3 * busy * (n > 0 ? done + tf : 0);
    gear1.rotation.z = millAngle; gear2.rotation.z = -millAngle * (18 / 11) + 0.12;
    // Drawers: each stream's drawer opens while the target reads its cache.
    const open = step ? Math.sin(Math.PI * within(f, PHASES.target)) : 0;
    drawerGroup.position.z = 0.45 * open;
    // The carriage, and on its slip each guess written so far this pass.
    const slots = Math.max(1, gamma);
    const at = step ? Math.min(u, g) : 0;
    slider.position.x = CARR.x0 + (CARR.x1 - CARR.x0) * (at / slots);
    slider.position.y = CARR.y + (step && u < g ? -0.08 * Math.sin(Math.PI * (u - Math.floor(u))) : 0);
    const checkedUpTo = step ? step.proposals.length : 0;
    const gf = within(f, PHASES.gauges);
    const gaugeEach = checkedUpTo ? 1 / checkedUpTo : 1;
    const verdictOf = (i) => {
      if (!step || i >= checkedUpTo || gf < (i + 1) * gaugeEach) return i >= checkedUpTo && step && gf >= 1 ? "unchecked" : null;
      return step.proposals[i].accepted ? "kept" : "refused";
    };
    const slipSlots = Array.from({ length: slots }, (_, i) => (step && i < turns
      ? { token: step.guesses[i].token, state: verdictOf(i) || "written" } : null));
    const slipKey = `${lang}|${slipSlots.map((x) => (x ? x.token + "\u0002" + x.state : "")).join("\u0001")}`;
    if (slipKey !== lastSlip) { paintSlip(slipCanvas, slipSlots, lang, 0.25 / SLIP.w, step ? step.guesses.map((x) => x.token) : []); slipTex.needsUpdate = true; lastSlip = slipKey; }
    // Gauges: each checked guess in turn; the column rises to min(1, p/q), the red line sits at r.
    const heights = [], rs = [];
    gauges.forEach((gg, i) => {
      const pr = step?.proposals?.[i];
      const s = pr ? clamp((gf - i * gaugeEach) / (gaugeEach * 0.8)) : 0;
      const target = pr ? Math.min(1, pr.ratio ?? (pr.q ? pr.p / pr.q : 0)) : 0;
      const h = target * ease(s);
      gg.col.scale.y = Math.max(0.0001, h * (BR.h - 0.12));
      const showR = pr && pr.r !== null && pr.r !== undefined && s > 0;
      gg.rl.visible = Boolean(showR);
      gg.rl.position.y = 0.06 + (showR ? pr.r : 0) * (BR.h - 0.12);
      const v = verdictOf(i);
      gg.cap.material = v === "kept" ? M.kept : v === "refused" ? M.refused : M.unchecked;
      heights.push(h); rs.push(showR ? pr.r : null);
    });
    // The type head prints the pass's tokens one by one.
    const wn = step ? step.written.length : 0;
    const tu = step ? within(f, PHASES.type) * wn : 0;
    const printed = step ? (f >= 1 ? wn : Math.min(wn, Math.floor(tu + 0.5))) : 0;
    head.position.y = TAPE.y + 0.3 - (step && f < 1 && f > PHASES.type[0] ? 0.18 * Math.abs(Math.sin(Math.PI * tu)) : 0);
    const cells = n > 0 ? tapeCells(done, printed) : tapeCells(0, 0);
    const key = `${lang}|${cells.length}|${cells.map((c) => c.token + c.kind).join("\u0001")}`;
    if (key !== lastTape) { paintTape(tapeCanvas, cells, lang); tapeTex.needsUpdate = true; lastTape = key; }
    // Exploded view: each part lifted out along its own direction.
    for (const p of PARTS) {
      const e = ease(view.explode);
      groups[p.id].position.set(p.explode[0] * e, p.explode[1] * e, p.explode[2] * e);
    }
    // The part a reader points at glows a little.
    for (const p of PARTS) groups[p.id].userData.lit = Array.isArray(view.lit) ? view.lit.includes(p.id) : view.lit === p.id;
    read = {
      pass: n, f, passes: passes(), gamma, batch, fits,
      bigDrumAngle: bigRot.rotation.x, smallDrumAngle: smallRot.rotation.x, millAngle: gear1.rotation.z,
      lanes: reader.lanes.count, lanesLit, lanesPerStream: reader.cols, streamRows: reader.rows,
      gauges: gauges.map((gg) => gg.col.scale.y / (BR.h - 0.12)).map((h) => (h < 0.001 ? 0 : h)),
      gaugeTargets: heights, r: rs, caps: gauges.map((gg, i) => verdictOf(i)),
      marks: slipSlots.filter(Boolean).length, carriage: slipSlots.map((x) => (x ? [x.token, x.state] : null)), tapeCells: cells.length, printed,
      drawers: drawerGroup.userData.count, spilled: spillGroup.userData.count, drawerOpen: open,
      carriageX: slider.position.x, headY: head.position.y, explode: view.explode,
    };
  }

  // ---- camera: a little orbit around the bench -------------------------------------------------
  const target = new THREE.Vector3(-0.2, 1.7, 0.2);
  function placeCamera() {
    const aspect = camera.aspect;
    // Far enough that the bed (about 14 × 7 units, more when exploded) fits the frame's width.
    // On a narrow frame (a phone) the bench is seen more from its end, so it fills the frame.
    const narrow = aspect < 1.3;
    const az = view.az + (narrow ? 0.3 : 0), el = view.el + (narrow ? 0.1 : 0);
    const span = (narrow ? 12.5 : 15.5) + (narrow ? 6 : 3.5) * view.explode;
    const fovH = 2 * Math.atan(Math.tan((camera.fov * Math.PI) / 360) * aspect);
    const dist = Math.max(span / 2 / Math.tan(fovH / 2) + 3, (narrow ? 12 : 16) + 4 * view.explode);
    camera.position.set(target.x + dist * Math.sin(az) * Math.cos(el), target.y + dist * Math.sin(el),
      target.z + dist * Math.cos(az) * Math.cos(el));
    camera.lookAt(target.x, target.y + 0.6 * view.explode, target.z);
  }

  function size(w, h) {
    renderer.setSize(w, h, false);
    camera.aspect = w / h; camera.updateProjectionMatrix();
  }

  function render(frame = placeCamera) {
    pose(); frame();
    // The part pointed at glows; in a still (view.dim) every other part fades toward the paper.
    const fade = view.dim ? "dim" : null;
    for (const p of PARTS) {
      const mode = groups[p.id].userData.lit ? "glow" : fade;
      groups[p.id].traverse((o) => { if (o.isMesh) dress(o, mode); });
    }
    bed.traverse((o) => { if (o.isMesh) dress(o, fade); });
    renderer.render(scene, camera);
  }
  // A mesh's own material (which pose() may have just set) shown as is, glowing or faded.
  function dress(o, mode) {
    let base = o.material;
    if (o.userData.shown !== undefined && base === o.userData.shown) base = o.userData.base;
    const m = mode === "glow" ? tinted(base, glows, 0xffe2a0, 0.45) : mode === "dim" ? tinted(base, dims, 0xe6ddca, 0.72) : base;
    o.userData.base = base; o.userData.shown = m; o.material = m;
  }
  const glows = new Map(), dims = new Map();
  function tinted(mat, cache, color, share) {
    if (!cache.has(mat)) {
      if (Array.isArray(mat)) cache.set(mat, mat.map((m) => tinted(m, cache, color, share)));
      else { const g = mat.clone(); g.color.lerp(new THREE.Color(color), share); cache.set(mat, g); }
    }
    return cache.get(mat);
  }

  // Screen positions of each part (for the exploded view's labels) and the part under a point.
  const ray = new THREE.Raycaster();
  function partAt(x, y) {
    ray.setFromCamera(new THREE.Vector2(x, y), camera);
    const hit = ray.intersectObjects(root.children, true).find((h) => h.object.visible && h.object.material !== M.glass);
    if (!hit) return null;
    for (let o = hit.object; o; o = o.parent) if (o.userData.part && typeof o.userData.part === "string") return o.userData.part;
    return null;
  }
  const box = new THREE.Box3(), v = new THREE.Vector3();
  function anchors() {
    return PARTS.map((p) => {
      box.setFromObject(groups[p.id]);
      box.getCenter(v); v.y = box.max.y;
      v.project(camera);
      return { id: p.id, x: (v.x + 1) / 2, y: (1 - v.y) / 2 };
    });
  }

  return {
    canvas, renderer, scene, camera, groups, soft, load, render, size, partAt, anchors, view,
    passes, readback: () => { pose(); return read; }, loaded: () => loaded,
    // A still of the whole machine with `ids` lit and `framed` filling the frame, at (pass, f), drawn
    // into this canvas at w × h and handed to paint(canvas) before the view is put back: the small
    // views at the head of the sections share the one context this way. Returns its readback.
    still(ids, pass, f, w, h, dpr, paint, framed = ids) {
      const keep = { ...view }, was = renderer.getSize(new THREE.Vector2()), ratio = renderer.getPixelRatio();
      view.pass = clamp(Math.round(pass), 0, passes()); view.f = clamp(f); view.explode = 0; view.lit = ids; view.dim = true;
      renderer.setPixelRatio(dpr); size(w, h);
      const frame = () => {
        box.makeEmpty();
        for (const id of framed) box.expandByObject(groups[id]);
        const c = box.getCenter(new THREE.Vector3()), radius = box.getSize(v).length() / 2;
        const vfov = (camera.fov * Math.PI) / 360, hfov = Math.atan(Math.tan(vfov) * camera.aspect);
        const dist = (radius / Math.sin(Math.min(vfov, hfov))) * 1.2;
        const az = 0.22, el = 0.42;
        camera.position.set(c.x + dist * Math.sin(az) * Math.cos(el), c.y + dist * Math.sin(el), c.z + dist * Math.cos(az) * Math.cos(el));
        camera.lookAt(c);
      };
      try {
        render(frame);
        paint(canvas);
        return read;     // the scene graph as the still posed it (for tests)
      } finally {
        Object.assign(view, keep);
        renderer.setPixelRatio(ratio); size(was.x, was.y);
      }
    },
    seek(pass, f) { view.pass = clamp(Math.round(pass), 0, passes()); view.f = clamp(f); },
    dispose() { renderer.dispose(); },
    // Every shader the scene needs, compiled before the first frame (in parallel where supported).
    // One material at a time, each in its own task (software WebGL compiles a program in tens
    // of milliseconds, and browsers without parallel compiling do it all in one go otherwise).
    async compile(pause, mark = () => {}) {
      load(null); pose(); placeCamera();
      const seen = new Set(), one = new THREE.Scene();
      const meshes = [];
      scene.traverse((o) => { if (o.isMesh) meshes.push(o); });
      // And every material on a mesh and on instances, as pose() may give it: the reader's lanes
      // (instanced) glow with M.laneLit from a third of the pass on, and that program, built at
      // its first draw, was a task of 300-470 ms while the bench played (measured, SwiftShader).
      const box1 = new THREE.BoxGeometry(1, 1, 1);
      for (const m of Object.values(M)) meshes.push(new THREE.Mesh(box1, m), new THREE.InstancedMesh(box1, m, 1));
      renderer.setSize(1, 1, false);
      for (const o of meshes) {
        const mats = Array.isArray(o.material) ? o.material : [o.material];
        const key = mats.map((m) => `${m.type}:${m.map ? 1 : 0}:${m.transparent ? 1 : 0}:${o.isInstancedMesh ? 1 : 0}`).join("|");
        if (seen.has(key)) continue;
        seen.add(key);
        for (const m of mats) for (const t of [m.map, m.matcap]) if (t) renderer.initTexture(t);
        const stand = o.isInstancedMesh ? new THREE.InstancedMesh(o.geometry, o.material, 1) : new THREE.Mesh(o.geometry, o.material);
        one.clear(); one.add(stand);
        // Draw it once into one pixel: software WebGL builds its drawing routines at the first draw.
        renderer.setScissorTest(true); renderer.setScissor(0, 0, 1, 1); renderer.setViewport(0, 0, 1, 1);
        renderer.render(one, camera);
        renderer.setScissorTest(false);
        gl.finish();
        mark(key);
        await pause();
      }
      // The frame size the view asks for is set again by size().
    },
  };
}
