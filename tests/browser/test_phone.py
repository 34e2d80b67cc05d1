"""The plate on a 390 px phone, in both languages: formulas stay whole, section 10's diagrams and
section 12's drawing fit the screen, the labels of the drawings in sections 1, 11 and 12 stay
legible, and the lab's controls (section 14) fit their boxes."""
import pytest
from tests.browser.util import load as _load, open_fold

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


# Every text of a drawing, at the size it is shown: font size times the drawing's scale on screen,
# whether it stays inside the drawing, and whether two texts overlap.
SVG_TEXTS = """(svg) => {
  const vb = svg.viewBox.baseVal, k = svg.getScreenCTM().a;
  const texts = [...svg.querySelectorAll('text')].filter(t => t.getClientRects().length);
  const items = texts.map(t => ({t: t.textContent.trim(), b: t.getBBox(), px: parseFloat(getComputedStyle(t).fontSize) * k}));
  const outside = items.filter(({b}) => b.x < vb.x || b.y < vb.y || b.x + b.width > vb.x + vb.width
                                        || b.y + b.height > vb.y + vb.height).map(i => i.t);
  const overlaps = [];
  items.forEach((a, i) => items.slice(i + 1).forEach(c => {
    if (a.b.x < c.b.x + c.b.width && c.b.x < a.b.x + a.b.width && a.b.y < c.b.y + c.b.height && c.b.y < a.b.y + a.b.height)
      overlaps.push(`${a.t} / ${c.t}`);
  }));
  return {n: items.length, sizes: items.map(i => [i.t, Math.round(i.px * 10) / 10]), outside, overlaps};
}"""


@pytest.mark.parametrize("lang", LANGS)
def test_selfdraft_diagrams_fit_a_phone_without_scrolling(browser, live_url, lang):
    ctx, pg = _phone(browser)
    _load(pg, f"{live_url}/embed/{lang}/specdec/selfdraft/")
    open_fold(pg, "selfdraft-methods")     # the per-method diagrams are in the "Go further" fold
    for key in ("medusa", "eagle", "lookahead"):
        pg.locator(f"#sd-tab-{key}").click()
        wrap = pg.locator(f"#sd-panel-{key} .rf-diagram-wrap")
        # Nothing to swipe: the drawing is as wide as its box, and the box as the screen allows.
        assert wrap.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), key
        svgs = wrap.locator("svg:visible")
        assert svgs.count() == 1, key  # one drawing shown (the narrow one), not both
        svg = svgs.first
        assert svg.evaluate("s => s.getBoundingClientRect().right") <= 390
        texts = svg.evaluate(SVG_TEXTS)
        small = [(t, px) for t, px in texts["sizes"] if px < 11]
        assert texts["n"] >= 5 and small == [], (key, small)
        assert texts["outside"] == [] and texts["overlaps"] == [], (key, texts)
        # Named for screen readers by its own title.
        assert svg.evaluate("s => document.getElementById(s.getAttribute('aria-labelledby')).textContent.length") > 20
    assert pg.evaluate("() => document.documentElement.scrollWidth") <= 390
    ctx.close()


@pytest.mark.parametrize("lang", LANGS)
def test_lab_tables_fit_a_phone(browser, live_url, lang):
    # With adaptive γ on, the lab shows a second table (adaptive against fixed γ); neither table
    # may push the page sideways, nor need a sideways scroll of its own.
    ctx, pg = _phone(browser)
    _load(pg, f"{live_url}/embed/{lang}/specdec/lab/?adapt=hf&more=lab-more")  # both tables sit in the fold
    assert pg.locator("#lab .lab-compare table").is_visible()
    assert pg.evaluate("() => document.documentElement.scrollWidth") <= 390
    tables = pg.locator("#lab table.lab-table").evaluate_all(
        "ts => ts.map(t => [t.getBoundingClientRect().right, t.parentElement.clientWidth + t.parentElement.getBoundingClientRect().left])")
    assert len(tables) >= 2 and all(right <= box + 1 for right, box in tables), tables
    ctx.close()


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("anchor", ["onebyone", "reader"])
def test_figure_labels_are_legible_on_a_phone(browser, live_url, lang, anchor):
    ctx, pg = _phone(browser, reduced_motion="reduce")
    # The largest model and all lanes lit: the longest numbers and the "+ N more lanes" line.
    _load(pg, f"{live_url}/embed/{lang}/specdec/{anchor}/?model=llama-3.1-70b&lanes=512")
    texts = pg.locator(f"#{anchor} .rf-figure svg").evaluate(SVG_TEXTS)
    small = [(t, px) for t, px in texts["sizes"] if px < 11]
    assert texts["n"] >= 5 and small == [], small
    assert texts["outside"] == [] and texts["overlaps"] == [], texts
    ctx.close()


@pytest.mark.parametrize("lang", LANGS)
def test_figures_keep_their_desktop_layout(browser, live_url, lang):
    """The phone's larger type must not push labels out of the drawings at desktop width either."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = ctx.new_page()
    _load(pg, f"{live_url}/{lang}/specdec/?model=llama-3.1-70b&lanes=512")
    for sel in ("#onebyone .rf-figure svg", "#reader .rf-figure svg"):
        texts = pg.locator(sel).evaluate(SVG_TEXTS)
        assert texts["outside"] == [] and texts["overlaps"] == [], (sel, texts)
    open_fold(pg, "selfdraft-methods")
    for key in ("medusa", "eagle", "lookahead"):
        pg.locator(f"#sd-tab-{key}").click()
        svg = pg.locator(f"#sd-panel-{key} svg:visible")
        assert svg.count() == 1 and "rf-diagram--wide" in svg.get_attribute("class")
        texts = svg.evaluate(SVG_TEXTS)
        assert texts["outside"] == [] and texts["overlaps"] == [], (key, texts)
    svg = pg.locator("#parts svg:visible")
    assert svg.count() == 1 and "parts-svg--wide" in svg.get_attribute("class")
    assert svg.evaluate(PARTS_NAMES_IN_BOXES) == []
    ctx.close()


# Each part of section 12's drawing: its name must sit inside the part's own box.
PARTS_NAMES_IN_BOXES = """(svg) => [...svg.querySelectorAll('a')].filter(a => {
  const r = a.querySelector('rect').getBBox(), t = a.querySelector('text').getBBox();
  return t.x < r.x || t.y < r.y || t.x + t.width > r.x + r.width || t.y + t.height > r.y + r.height;
}).map(a => a.textContent.trim())"""


@pytest.mark.parametrize("lang", LANGS)
def test_parts_drawing_is_legible_on_a_phone(browser, live_url, lang):
    ctx, pg = _phone(browser)
    _load(pg, f"{live_url}/{lang}/specdec/")
    widget = pg.locator("#parts .widget.parts")
    widget.scroll_into_view_if_needed()
    svgs = widget.locator("svg:visible")
    assert svgs.count() == 1  # one drawing shown, not both
    svg = svgs.first
    box = svg.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 390, box
    texts = svg.evaluate(SVG_TEXTS)
    small = [(t, px) for t, px in texts["sizes"] if px < 11]
    assert texts["n"] == 8 and small == [], small
    assert texts["outside"] == [] and texts["overlaps"] == [], texts
    assert svg.evaluate(PARTS_NAMES_IN_BOXES) == []
    # Still every part, each a link to its section, as the list below names them.
    drawn = svg.locator("a").evaluate_all("as => as.map(a => a.getAttribute('href').split('#')[1])")
    listed = widget.locator(".parts-list a").evaluate_all("as => as.map(a => a.getAttribute('href').split('#')[1])")
    assert sorted(drawn) == sorted(listed) and len(listed) == 8
    assert svg.evaluate("s => document.getElementById(s.getAttribute('aria-labelledby')).textContent.length") > 8
    # Focusing an entry of the list (in the section's fold, issue 22) lights its part in the
    # drawing that is shown.
    open_fold(pg, "parts-more")
    widget.locator(".parts-list a[href$='#tape']").focus()
    assert svg.locator("a.is-lit").evaluate_all("as => as.map(a => a.getAttribute('href').split('#')[1])") == ["tape"]
    assert pg.evaluate("() => document.documentElement.scrollWidth") <= 390
    ctx.close()


# Every control of the lab that a reader sees, and whether it fits: inside its container (the
# label or row that holds it) and the widget, and, for a drop-down, as wide as its longest option
# needs (measured on an unconstrained copy), so the chosen option is never cut off.
LAB_CONTROLS = """(lab) => {
  const inner = (el) => { const r = el.getBoundingClientRect(), s = getComputedStyle(el);
    return {l: r.left + parseFloat(s.borderLeftWidth) + parseFloat(s.paddingLeft),
            r: r.right - parseFloat(s.borderRightWidth) - parseFloat(s.paddingRight)}; };
  const labBox = inner(lab), bad = [];
  const controls = [...lab.querySelectorAll('select, input, textarea, button, .btn, output')]
    .filter(e => e.getClientRects().length && e.getBoundingClientRect().width > 2);
  for (const c of controls) {
    const name = c.id || c.className || c.textContent.trim();
    const r = c.getBoundingClientRect();
    const holder = c.parentElement.closest('.control, .lab-text-row, .lab-controls, form') || lab;
    const h = holder.getBoundingClientRect();
    if (r.left < h.left - 0.5 || r.right > h.right + 0.5) bad.push(`${name} sticks out of ${holder.className}`);
    if (r.left < labBox.l - 0.5 || r.right > labBox.r + 0.5) bad.push(`${name} sticks out of the lab`);
    if (c.scrollWidth > c.clientWidth + 1 && c.tagName !== 'SELECT') bad.push(`${name} text cut off`);
    if (c.tagName === 'SELECT') {
      const copy = c.cloneNode(true);
      copy.removeAttribute('id');
      copy.style.cssText = 'position:absolute; visibility:hidden; width:auto; min-width:0; max-width:none; flex:none';
      c.parentElement.appendChild(copy);
      const need = copy.getBoundingClientRect().width;
      copy.remove();
      if (r.width < need - 0.5) bad.push(`${name} is ${Math.round(r.width)} px, its options need ${Math.round(need)}`);
    }
  }
  return {n: controls.length, bad};
}"""


@pytest.mark.parametrize("lang", LANGS)
def test_lab_controls_fit_their_boxes_on_a_phone(browser, live_url, lang):
    ctx, pg = _phone(browser)
    _load(pg, f"{live_url}/{lang}/specdec/")
    lab = pg.locator("#lab .widget.lab")
    lab.scroll_into_view_if_needed()
    result = lab.evaluate(LAB_CONTROLS)
    # The text box, the file button, four drop-downs, the slider and its output, the seed, two buttons.
    assert result["n"] >= 10 and result["bad"] == [], result
    assert pg.evaluate("() => document.documentElement.scrollWidth") <= 390
    ctx.close()
