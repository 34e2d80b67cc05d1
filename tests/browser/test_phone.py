"""The plate on a 390 px phone, in both languages: formulas stay whole, section 10's diagrams fit
the screen, and the labels of the drawings in sections 1 and 11 stay legible."""
import pytest

pytestmark = pytest.mark.browser

LANGS = ("en", "zh")

# Inline formulas as the prose and the widgets write them. A line may break before or after one,
# never inside: "(1 − α^(γ+1)) /" on one line and "(1 − α)" on the next reads as two things.
FORMULAS_SPLIT = r"""() => {
  const NUM = String.raw`\d+(?:[.,]\d+)*`;
  const pats = [
    /\(1 − α\^\(γ\+1\)\) \/ \(\(1 − α\)\(γc \+ 1\)\)/g, /\(1 − α\^\(γ\+1\)\) \/ \(1 − α\)/g,
    /p − min\(p, q\)/g, /Σ min\(p, q\)/g, /min\(p, q\)/g, /min\(1, p\/q\)/g, /max\(0, p − q\)/g,
    /γc \+ 1/g, /1 \+ γc/g, /γ \+ 1/g, new RegExp(`p/q = ${NUM}`, 'g'),
    new RegExp(`(?<![\\w/])[αγcpqr] = ${NUM}×?`, 'g'),
  ];
  const split = [];
  const blocks = 'p, li, dd, dt, td, th, figcaption, label, h2, h3, summary, legend, output, span.gauge-num, .lab-note';
  for (const el of document.querySelectorAll(`main :is(${blocks})`)) {
    if (!el.getClientRects().length) continue;
    const nodes = []; let text = '';
    const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) { nodes.push([n, text.length]); text += n.data; }
    const at = (i) => { for (let k = nodes.length - 1; k >= 0; k--) if (nodes[k][1] <= i) return [nodes[k][0], i - nodes[k][1]]; };
    for (const re of pats) {
      for (const m of text.matchAll(re)) {
        const r = document.createRange();
        const [sn, so] = at(m.index), [en, eo] = at(m.index + m[0].length - 1);
        r.setStart(sn, so); r.setEnd(en, eo + 1);
        // The middles of the formula's boxes: more than one line apart means it was split.
        const mids = [...r.getClientRects()].filter(b => b.width > 0).map(b => b.top + b.height / 2).sort((a, b) => a - b);
        if (mids.length && mids[mids.length - 1] - mids[0] > 8) split.push(`${el.closest('section')?.id}: ${m[0]}`);
      }
    }
  }
  return [...new Set(split)];
}"""


def _phone(browser, width=390, **kw):
    ctx = browser.new_context(viewport={"width": width, "height": 844}, device_scale_factor=1, **kw)
    return ctx, ctx.new_page()


def _load(page, url):
    page.goto(url)
    # A selector, not wait_for_function: the strict CSP forbids the eval that the latter uses.
    page.wait_for_selector("html[data-ready='1']", state="attached", timeout=30000)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("query", ["", "?gamma=7&c=0.35&seed=9&batch=1024&ctx=131072&alpha=0.83"])
def test_formulas_never_split_across_lines_on_a_phone(browser, live_url, lang, query):
    ctx, pg = _phone(browser, reduced_motion="reduce")
    _load(pg, f"{live_url}/{lang}/specdec/{query}")
    # Every text a reader can open: the revealed answers, both other depths, closed details.
    pg.evaluate("""() => {
      document.querySelectorAll('details').forEach(d => { d.open = true; });
      document.querySelectorAll('.depth-note[hidden]').forEach(e => { e.hidden = false; });
    }""")
    for anchor in pg.evaluate("() => [...document.querySelectorAll('section.plate-section')].map(s => s.id)"):
        pg.locator(f"#{anchor}").scroll_into_view_if_needed()
    pg.wait_for_timeout(800)
    split = pg.evaluate(FORMULAS_SPLIT)
    assert split == [], split
    # The formulas were found at all (the patterns still match the text).
    assert pg.locator("main .math").count() >= 20
    ctx.close()
