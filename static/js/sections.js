// The sections' answers (docs/design.md, "data flow"). Each section draws from one answer per unit
// (its anchor, or "lab.run"-style parts), computed by the server from the parameters the unit
// reads and nothing else. The page arrives with every answer it was rendered from; when the state
// changes, only the units that read a changed parameter are asked again (/api/section/<unit>), the
// sections on screen first and the others as they come near, each answer at most once. An answer
// brings the section's live text rendered by the server's templates (the one renderer of every
// number in prose and readouts), which replaces the [data-live] blocks; widgets redraw from its data.
import { state } from "./state.js";
import { showError } from "./dom.js";
import { pageLang } from "./language.js";

const lang = pageLang;
const requests = new Map();   // url -> Promise of {data, html}: nothing is asked twice
let pageStrings = {};

export function urlFor(unit) {
  const q = new URLSearchParams({ lang, ...state.query(state.reads(unit)) });
  return `/api/section/${unit}?${q}`;
}

async function getJSON(url) {
  let resp;
  try {
    resp = await fetch(url, { headers: { Accept: "application/json", "Accept-Language": lang } });
  } catch {
    throw new Error(pageStrings.api_failed || "The server could not be reached.");
  }
  let body = null;
  try { body = await resp.json(); } catch { body = null; }
  if (!resp.ok) {
    const err = new Error(body?.error?.message || `${resp.status} ${resp.statusText}`);
    err.status = resp.status;
    err.param = body?.error?.param ?? null;
    throw err;
  }
  return body;
}

function request(url) {
  if (!requests.has(url)) {
    const p = getJSON(url);
    p.catch(() => requests.delete(url));  // a failed request may be made again later
    requests.set(url, p);
  }
  return requests.get(url);
}

// The answer of `unit` for the state as it is now, from the page's one cache: what a section has
// asked for (or the page shipped) is not asked again. The machine's small views, which show the
// bench's run wherever they are on the page, take the bench's answer this way.
export async function answerFor(unit) {
  return (await request(urlFor(unit))).data;
}

class Section {
  constructor(el) {
    this.el = el;
    this.units = (el.dataset.units || "").split(" ").filter(Boolean);
    this.data = new Map();       // unit -> the answer drawn now
    this.listeners = new Set();  // fn(data, unit)
    this.seq = new Map();        // unit -> number of the newest request (older ones are dropped)
    this.waiting = new Set();    // units whose newest request has not come back yet
    this.stale = new Set();      // units to ask for once the section comes near the view
    this.near = false;
    for (const s of el.querySelectorAll("script[data-answer]")) {
      try {
        const unit = s.dataset.answer;
        const data = JSON.parse(s.textContent);
        this.data.set(unit, data);
        // The page's own rendering of this answer's live text, for coming back to this state.
        requests.set(urlFor(unit), Promise.resolve({ data, html: this.liveText(unit) }));
      } catch { /* a broken answer is asked for again when the state changes */ }
    }
  }

  answer(unit = this.units[0]) { return this.data.get(unit) ?? null; }

  // The live blocks of a unit as they are now: all of a one-unit section's, a part's own
  // (named "<part>_…") in a section of parts.
  liveText(unit) {
    const part = unit.includes(".") ? `${unit.split(".")[1]}_` : "";
    const out = {};
    for (const block of this.el.querySelectorAll("[data-live]")) {
      const name = block.dataset.live;
      if (part ? name.startsWith(part) : this.units.length === 1) out[name] = block.innerHTML;
    }
    return out;
  }

  onAnswer(fn) { this.listeners.add(fn); }

  changed(names) {
    for (const unit of this.units) {
      if (state.reads(unit).some((n) => names.has(n))) this.stale.add(unit);
    }
    if (this.near) this.flush();
  }

  flush() {
    const units = [...this.stale];
    this.stale.clear();
    for (const unit of units) this.refresh(unit);
  }

  // Ask for the unit's answer for the state as it is now; `again` asks the server even if this
  // page has had that answer (the lab, after sending a text the server had lost).
  async refresh(unit, { again = false } = {}) {
    if (again) requests.delete(urlFor(unit));
    const mine = (this.seq.get(unit) || 0) + 1;
    this.seq.set(unit, mine);
    this.waiting.add(unit);
    this.el.setAttribute("aria-busy", "true");
    try {
      const ans = await request(urlFor(unit));
      if (this.seq.get(unit) !== mine) return;
      this.apply(unit, ans);
      showError(this.el, null);
    } catch (err) {
      if (this.seq.get(unit) === mine) showError(this.el, err);
    } finally {
      // Busy until the newest request of every unit of the section has come back.
      if (this.seq.get(unit) === mine) this.waiting.delete(unit);
      if (!this.waiting.size) this.el.removeAttribute("aria-busy");
    }
  }

  // Busy while `work` runs (the lab sending its text again); requests it starts keep the section
  // busy until they come back.
  async busyWhile(work) {
    const hold = Symbol("work");
    this.waiting.add(hold);
    this.el.setAttribute("aria-busy", "true");
    try {
      return await work();
    } finally {
      this.waiting.delete(hold);
      if (!this.waiting.size) this.el.removeAttribute("aria-busy");
    }
  }

  apply(unit, { data, html }) {
    this.data.set(unit, data);
    if (html) {
      for (const [name, markup] of Object.entries(html)) {
        for (const block of this.el.querySelectorAll(`[data-live="${CSS.escape(name)}"]`)) block.innerHTML = markup;
      }
    }
    for (const fn of this.listeners) fn(data, unit);
  }
}

const all = [];

export function startSections(strings) {
  pageStrings = strings;
  for (const el of document.querySelectorAll(".plate-section[data-units]")) {
    if (el.dataset.units) all.push(new Section(el));
  }
  // Sections within a screen of the view refresh at once; the rest when they come near.
  const io = "IntersectionObserver" in window ? new IntersectionObserver((entries) => {
    for (const e of entries) {
      const s = all.find((x) => x.el === e.target);
      if (!s) continue;
      s.near = e.isIntersecting;
      if (s.near) s.flush();
    }
  }, { rootMargin: "100% 0px" }) : null;
  for (const s of all) {
    if (io) io.observe(s.el);
    else s.near = true;
  }
  state.subscribe((names) => { for (const s of all) s.changed(names); });
}

export function sectionOf(el) {
  const host = el.closest(".plate-section[data-units]");
  return all.find((s) => s.el === host) || null;
}
