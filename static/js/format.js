// Numbers as the page writes them, for what scripts draw (a tape being stepped, gauges, charts).
// The same forms as the server's views/format.py, which writes every other number on the page;
// tests/browser/test_format.py compares the two on the same values.
//
//   format(x, "num:2")  13,350.42     format(x, "pct:1")  99.7%
//   format(x, "x:2")    a factor: 1.78× in English, 1.78 倍 in Chinese
//   format(x, "big")    a count: every digit in English, 80.3亿 in Chinese (three significant digits)
//   format(x, "prob")   a probability: 0.091, 0.0043, 6.7 × 10⁻⁵ (never a bare 0.000)
// Chinese groups by 万: no separator below 1万 (4096), Intl's useGrouping "min2".

import { languageOf, pageLang } from "./language.js";

export const MISSING = "–";
const cache = new Map();
function nf(opts, lang = pageLang) {
  const rec = languageOf(lang);
  const all = rec.myriads ? { useGrouping: "min2", ...opts } : opts;
  const key = rec.html_lang + JSON.stringify(all);
  if (!cache.has(key)) cache.set(key, new Intl.NumberFormat(rec.html_lang, all));
  return cache.get(key);
}
const page = () => languageOf(pageLang);
const fixed = (d) => ({ minimumFractionDigits: d, maximumFractionDigits: d });
const SUPER = { "-": "⁻", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶", 7: "⁷", 8: "⁸", 9: "⁹" };

const missing = (x) => x === null || x === undefined || typeof x === "boolean" || (typeof x === "number" && !Number.isFinite(x));

export function num(x, d = 0) { return missing(x) ? MISSING : nf(fixed(d)).format(x); }

// A factor already written as digits: "1.74×", or "1.74 倍" on the Chinese page.
export function times(digits) { return page().times.replace("{}", digits); }

// What joins a label to its value: "：" on the Chinese page, ": " elsewhere.
export function colon() { return page().colon; }

// What separates listed values inside a sentence: ", ", or "，" on the Chinese page.
export function comma() { return page().comma; }

// The space between two sentences: " " in English, none after a Chinese full stop.
export function gap() { return page().gap; }

// A phrase in brackets after another: " (text)", or "（text）" on the Chinese page.
export function paren(text) { return page().paren.replace("{}", text); }

// A count with 万/亿 runs on into the Han character after it ("1.33万个词元"), as
// views/format.py's tidy_zh does to the server's Chinese text.
// A quote-mark token inside quote marks is shown in corner brackets (「“」), and a number keeps
// its unit and its 万/亿 on the same line (a no-break space: "50.4 GB", "3.4 倍"; a word joiner:
// "1.33万"), and a range of figures keeps together ("2.7–3.5 倍": word joiners around the dash;
// "85% 到 90%": no-break spaces around 到), as tidy_zh does too.
export function tidy(text) {
  if (!page().full_width) return text;
  return text.replace(/(?<=[万亿])[ \t]+(?=[\u4e00-\u9fff])/g, "")
    .replace(/“((?:<[^>]*>)*)([“”‘’"'])((?:<\/[^>]*>)*)”/g, "「$1$2$3」")
    .replace(/([，。；：！？、])((?:<\/[a-z]+>)*)[ \t]+(?=\S)/g, "$1$2")
    .replace(/(?<=\d)((?:<\/[a-z]+>)*)[ \t]+(?=(?:倍|GB|TB|MB|KB|GiB|TiB|ms|µs|毫秒|微秒)(?![A-Za-z]))/g, "$1\u00a0")
    .replace(/(?<=\d%?)((?:<\/[a-z]+>)*)(?:(–)|[ \t]+(到)[ \t]+)((?:<[a-z][^>]*>)*)(?=\d)/g,
      (_m, close, dash, to, open) => close + (dash ? "\u2060–\u2060" : "\u00a0到\u00a0") + open)
    .replace(/(?<=\d)(?=[万亿])/g, "\u2060");
}

export function count(x, lang = pageLang) {
  if (missing(x)) return MISSING;
  const compact = languageOf(lang).myriads && Math.abs(x) >= 1e4;
  return nf(compact ? { notation: "compact", maximumSignificantDigits: 3 } : fixed(0), lang).format(x);
}

export function prob(x) {
  if (missing(x)) return MISSING;
  if (x === 0) return num(0, 0);
  if (Math.abs(x) >= 0.01) return num(x, 3);
  if (Math.abs(x) >= 0.001) return num(x, 4);
  const [m, e] = x.toExponential(1).split("e");
  return `${num(Number(m), 1)} × 10${String(Number(e)).replace(/[-0-9]/g, (ch) => SUPER[ch])}`;
}

// A test's p-value: as prob from 10⁻⁶ up, "< 10⁻⁶" below (a p-value is never 0).
export const PVALUE_FLOOR = 1e-6;
export function pvalue(x) {
  if (missing(x)) return MISSING;
  return x < PVALUE_FLOOR ? "< 10⁻⁶" : prob(x);
}

// As the server's share_decimals: rounding never shows a nonzero share as 0 % or a share short of
// the whole as 100 % (up to 3 decimals).
const PCT_DECIMALS_MAX = 3;
function shareDecimals(x, d) {
  const a = Math.abs(x);
  const r = (k) => Number((a * 100).toFixed(k));
  while (d < PCT_DECIMALS_MAX && a > 0 && a < 1 && (r(d) === 0 || r(d) === 100)) d += 1;
  return d;
}

export function format(x, spec = "num:0") {
  const [kind, digits] = spec.split(":");
  const d = Number(digits) || 0;
  switch (kind) {
    case "text": return x === null || x === undefined ? MISSING : String(x);
    case "pct": return missing(x) ? MISSING : nf({ style: "percent", ...fixed(shareDecimals(x, d)) }).format(x);
    case "x": return missing(x) ? MISSING : times(num(x, d));
    case "big": return count(missing(x) ? x : x * 10 ** d);
    case "prob": return prob(x);
    case "pvalue": return pvalue(x);
    default: return num(x, d);
  }
}
