// Counts the way each language reads them (not a widget: shared by roofline-shared.js and lab.js).
// Chinese groups digits by 10⁴, so from 1万 on a count reads "80.3亿", "1.34万" (three significant
// digits), not "8,030,261,248"; English keeps every digit. The server writes the same text with the
// |compact filter (app.py), so a refreshed number does not change its form.
const pageLang = () => document.documentElement.lang || "en";
const formats = new Map();
function formatter(lang, compact) {
  const key = `${lang}:${compact}`;
  if (!formats.has(key)) {
    formats.set(key, new Intl.NumberFormat(lang, compact
      ? { notation: "compact", maximumSignificantDigits: 3 }
      : { maximumFractionDigits: 0 }));
  }
  return formats.get(key);
}

export function formatCount(value, lang = pageLang()) {
  if (value === null || value === undefined || !Number.isFinite(value)) return "–";
  const compact = lang.startsWith("zh") && Math.abs(value) >= 1e4;
  return formatter(lang, compact).format(value);
}
