// The language records (corpus/text.py's LANGUAGES), as the server publishes them on every page
// (base.html's #language): how text is written in each language (joiner, gap, colon, comma,
// brackets, factors, 万/亿, full-width punctuation) and how its tokens are drawn. Scripts read the
// page's language here, never by testing a language's code.
function read() {
  const el = document.getElementById("language");
  try { return JSON.parse(el?.textContent || "{}"); } catch { return {}; }
}

const published = read();
export const languages = published.languages || {};
// The page's code ("en", "zh"): the URL's and the catalog's.
export const pageLang = published.page || document.documentElement.dataset.lang || Object.keys(languages)[0];
// A language's record by its code; the page's for any code the server did not publish.
export function languageOf(code = pageLang) { return languages[code] || languages[pageLang] || {}; }
export const language = languageOf(pageLang);
