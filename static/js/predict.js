// "Predict first", committed (issue 22). A question's answer stays behind "Reveal the answer"
// until the reader has chosen an option or "I'm not sure" (and, where the answer is a number,
// dragged a guess); the reveal then shows the choice and the guess beside the answer, and the
// choice is kept. Predictions made in this visit are remembered in sessionStorage (no cookies,
// nothing sent to the server), so a reload or a change of depth keeps them, and the contents
// mark the sections whose question was answered. Started by main.js on every page and embed.

import { languageOf } from "./language.js";

const PREFIX = "specdec:predict:";

function store() {
  try { return window.sessionStorage; } catch { return null; }   // blocked storage: no memory
}

function readAll(lang) {
  const s = store();
  if (!s) return {};
  try { return JSON.parse(s.getItem(PREFIX + lang) || "{}") || {}; } catch { return {}; }
}

function writeOne(lang, key, value) {
  const s = store();
  if (!s) return;
  const all = readAll(lang);
  all[key] = value;
  try { s.setItem(PREFIX + lang, JSON.stringify(all)); } catch { /* full or blocked: forget */ }
}

// As many decimals as the slider's step has: 0.01 → 2.
function decimals(step) {
  const s = String(step);
  return s.includes(".") ? s.split(".")[1].length : 0;
}

function formatNumber(x, digits, lang) {
  return new Intl.NumberFormat(languageOf(lang).html_lang, {
    minimumFractionDigits: digits, maximumFractionDigits: digits,
  }).format(x);
}

// The section of a question: "tape" for "tape" and "tape-story".
const sectionKey = (key) => key.replace(/-story$/, "");

function markContents(done) {
  for (const a of document.querySelectorAll(".toc a[href^='#']")) {
    const id = a.getAttribute("href").slice(1);
    const li = a.closest("li");
    if (!li) continue;
    const on = done.has(id);
    li.classList.toggle("toc-done", on);
    let flag = a.querySelector(".toc-done__flag");
    if (on && !flag) {
      flag = document.createElement("span");
      flag.className = "toc-done__flag";
      flag.textContent = a.closest(".toc")?.dataset.doneLabel || "✓";
      a.append(" ", flag);   // a space, so a screen reader says "… α, predicted", not "αpredicted"
    } else if (!on && flag) { flag.previousSibling?.remove(); flag.remove(); }
  }
}

export function startPredictions(t, lang) {
  const saved = readAll(lang);
  const done = new Set(Object.keys(saved).filter((k) => saved[k]?.revealed).map(sectionKey));

  for (const block of document.querySelectorAll(".predict[data-predict]")) {
    if (block.dataset.predictBound) continue;
    block.dataset.predictBound = "1";
    const key = block.dataset.predict;
    const details = block.querySelector("details.predict__reveal");
    if (!details) continue;
    const summary = details.querySelector("summary");
    const hint = block.querySelector(".predict__hint");
    const yours = block.querySelector(".predict__yours");
    const range = block.querySelector(".predict__guess-range");
    const shown = block.querySelector(".predict__guess-value");
    const radios = [...block.querySelectorAll("input[type=radio]")];
    const digits = range ? decimals(range.step) : 0;

    const picked = () => radios.find((r) => r.checked) || null;
    const unsure = () => picked()?.value === "unsure";
    const moved = () => !range || range.dataset.moved === "1";
    const committed = () => !!picked() && (moved() || unsure());

    const gate = () => {
      const ok = committed();
      if (ok) {
        summary.removeAttribute("aria-disabled");
        summary.removeAttribute("aria-describedby");
        if (hint) hint.hidden = true;
      } else {
        summary.setAttribute("aria-disabled", "true");
        if (hint) summary.setAttribute("aria-describedby", hint.id);
      }
      block.classList.toggle("predict--ready", ok);
    };

    // The typed box beside the slider (a way to guess without dragging) shows the guess once made.
    const showGuess = () => {
      if (shown && range && shown !== document.activeElement) shown.value = moved() ? range.value : "";
    };

    // What the reader chose, beside the answer; the guess against the true number and the gap.
    const describe = () => {
      if (!yours) return;
      const p = picked();
      const parts = [];
      if (p && !unsure()) {
        const text = p.closest("label")?.querySelector(".predict__text")?.textContent.trim() || "";
        const right = !!p.closest(".predict__opt--right");
        parts.push(t(right ? "predict_right" : "predict_wrong", { choice: text }));
      } else if (p) {
        parts.push(t("predict_unsure"));
      }
      if (range && moved()) {
        const truthEl = block.querySelector(".predict__truth");
        const truth = truthEl ? Number(truthEl.getAttribute("value")) : NaN;
        const guess = Number(range.value);
        if (Number.isFinite(truth)) {
          const gap = Math.abs(guess - truth);
          parts.push(t("predict_guess", { guess: formatNumber(guess, digits, lang),
                                          gap: formatNumber(gap, Math.max(digits, 1), lang) }));
          block.style.setProperty("--guess-gap", String(gap));
        }
      }
      yours.textContent = parts.join(languageOf(lang).gap);
    };

    const lock = () => {
      for (const r of radios) r.disabled = true;
      if (range) range.disabled = true;
      if (shown) shown.disabled = true;
      block.classList.add("predict--revealed");
    };

    const save = (revealed) => {
      const p = picked();
      writeOne(lang, key, { choice: p ? p.value : null, guess: range && moved() ? Number(range.value) : null, revealed });
    };

    summary.addEventListener("click", (e) => {
      if (details.open) return;              // closing is always allowed
      if (!committed()) {
        e.preventDefault();
        if (hint) hint.hidden = false;
        return;
      }
    });
    details.addEventListener("toggle", () => {
      if (!details.open) return;
      if (!committed()) { details.open = false; return; }
      describe();
      lock();
      save(true);
      done.add(sectionKey(key));
      markContents(done);
    });
    block.addEventListener("change", (e) => {
      if (e.target instanceof HTMLInputElement && e.target.type === "radio") { gate(); save(false); }
    });
    if (range) {
      range.addEventListener("input", () => { range.dataset.moved = "1"; showGuess(); gate(); });
      range.addEventListener("change", () => { range.dataset.moved = "1"; showGuess(); gate(); save(false); });
    }
    if (shown && range) {
      const typed = () => {
        const v = Number(shown.value);
        if (shown.value === "" || !Number.isFinite(v)) return;
        range.value = String(Math.min(Number(range.max), Math.max(Number(range.min), v)));
        range.dataset.moved = "1";
        gate();
      };
      shown.addEventListener("input", typed);
      shown.addEventListener("change", () => { typed(); save(false); });
    }
    // The true number follows the state (the server's rendering of its live block is swapped in):
    // say the gap again.
    const truthBox = block.querySelector(".predict__truth-box");
    if (truthBox) new MutationObserver(() => { if (details.open) describe(); }).observe(truthBox, { childList: true, subtree: true });

    // This visit's prediction, if any.
    const was = saved[key];
    if (was) {
      const r = radios.find((x) => x.value === String(was.choice));
      if (r) r.checked = true;
      if (range && was.guess != null) { range.value = String(was.guess); range.dataset.moved = "1"; }
    }
    showGuess();
    gate();
    if (was?.revealed && committed()) details.open = true;   // the toggle handler describes and locks
    else if (details.open && !committed()) details.open = false;
  }
  markContents(done);
}
