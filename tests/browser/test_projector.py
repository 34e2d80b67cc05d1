"""Projector view (?view=projector): readable from the back of a room at 1280 × 720 in both
languages: large type everywhere, black on white, thick chart lines, no hover."""
import pytest

from tests.browser.util import load

pytestmark = pytest.mark.browser

# The smallest type of any visible text in the plate's sections, in px.
SMALLEST = """() => {
  let min = Infinity, where = '';
  const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!n.textContent.trim()) continue;
    const el = n.parentElement;
    if (!el || el.closest('svg, .sr-only, [hidden], .js-plotly-plot') || !el.checkVisibility()) continue;
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height) continue;
    const px = parseFloat(getComputedStyle(el).fontSize);
    if (px < min) { min = px; where = el.className + ': ' + n.textContent.trim().slice(0, 30); }
  }
  return [min, where];
}"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_projector_view_is_large_high_contrast_and_needs_no_hover(browser, live_url, lang):
    ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    pg = ctx.new_page()
    load(pg, f"{live_url}/{lang}/specdec/?view=projector&sections=idle,tape")
    assert pg.locator("html").get_attribute("data-view") == "projector"
    body_px = pg.evaluate("() => parseFloat(getComputedStyle(document.querySelector('.prose')).fontSize)")
    assert body_px >= 22
    smallest, where = pg.evaluate(SMALLEST)
    assert smallest >= 16, where
    ink, paper = pg.evaluate("() => { const cs = getComputedStyle(document.body); return [cs.color, cs.backgroundColor]; }")
    assert ink == "rgb(0, 0, 0)" and paper == "rgb(255, 255, 255)"
    # Its charts: thick lines, large type, and nothing that only a hover shows.
    pg.locator('#idle [data-plot="idle"]').scroll_into_view_if_needed()
    pg.wait_for_selector('#idle [data-lazy-chart="drawn"]', state="attached", timeout=60_000)
    pg.wait_for_selector("#idle .js-plotly-plot .js-line", state="attached", timeout=30_000)
    layout = pg.evaluate("""() => [...document.querySelectorAll('#idle .js-plotly-plot')].map(p => ({
        hover: p._fullLayout.hovermode, font: p._fullLayout.font.size,
        lines: p._fullData.filter(t => t.mode && t.mode.includes('lines')).map(t => t.line.width)}))""")
    assert layout and all(c["hover"] is False and c["font"] >= 17 for c in layout), layout
    assert all(w >= 4 for c in layout for w in c["lines"]), layout
    widths = pg.evaluate("() => [...document.querySelectorAll('#idle .js-line')].map(l => parseFloat(getComputedStyle(l).strokeWidth))")
    assert widths and min(widths) >= 4
    # Nothing wider than the screen.
    assert pg.evaluate("() => document.documentElement.scrollWidth") <= 1280
    pg.screenshot(path=f"/tmp/projector-{lang}.png")
    ctx.close()


def test_projector_switch_keeps_the_settings(page, live_url):
    load(page, f"{live_url}/en/specdec/?gamma=6&sections=tape")
    sw = page.locator("#view-switch")
    assert sw.inner_text() == "Projector view"
    page.locator("#tape-gamma").fill("3")  # a slider
    sw.hover()
    href = sw.get_attribute("href")
    assert "gamma=3" in href and "view=projector" in href and "sections=tape" in href
    sw.click()
    page.wait_for_selector("html[data-view='projector'][data-ready='1']", state="attached")
    assert page.locator("#tape-gamma").input_value() == "3"
    assert page.locator("#view-switch").inner_text() == "Leave projector view"
    assert "view=" not in page.locator("#view-switch").get_attribute("href")


TIP = "#trees .tnode-tip"


@pytest.mark.parametrize("lang, view", [("en", "page"), ("zh", "projector")])
def test_tree_nodes_tell_their_chances_by_keyboard_and_tap(browser, live_url, lang, view):
    # What a node of the tree says (its whole token, q and p) was a hover-only <title>: now the
    # keyboard and a tap reach it as well, in the page and in projector view.
    ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    pg = ctx.new_page()
    load(pg, f"{live_url}/{lang}/specdec/?sections=trees&view={view}")
    nodes = pg.locator("#trees svg.trees-tree g.tnode")
    assert nodes.count() > 3
    assert pg.locator("#trees svg.trees-tree g.tnode title").count() == 0
    assert nodes.evaluate_all("gs => gs.every(g => g.dataset.tip && g.getAttribute('aria-label') === g.dataset.tip)")
    # One node in the Tab order; ↓ moves between nodes; → still steps the pass and keeps the node.
    assert nodes.evaluate_all("gs => gs.filter(g => g.tabIndex === 0).length") == 1
    pg.locator("#trees .trees-tree-box").focus()
    pg.keyboard.press("Tab")
    assert pg.evaluate("() => document.activeElement.dataset.node") == "0"
    assert pg.locator(TIP).is_visible()
    pg.keyboard.press("ArrowDown")
    node = pg.evaluate("() => document.activeElement.dataset.node")
    assert node == "1"
    tip = pg.locator(TIP).inner_text()
    assert tip == nodes.nth(1).get_attribute("data-tip") and "q" in tip
    status = pg.locator("#trees [data-out=status]").inner_text()
    pg.keyboard.press("ArrowRight")
    pg.wait_for_function("(s) => document.querySelector('#trees [data-out=status]').innerText !== s", arg=status)
    assert pg.evaluate("() => document.activeElement.dataset.node") == "1"
    assert pg.locator(TIP).is_visible() and "p" in pg.locator(TIP).inner_text()   # p shown once the target ran
    box = pg.locator(TIP).bounding_box()
    assert box["width"] > 0 and box["x"] + box["width"] <= 1280
    if view == "projector":
        assert pg.locator(TIP).evaluate("t => parseFloat(getComputedStyle(t).fontSize)") >= 18
    pg.screenshot(path=f"/tmp/tree-tip-{lang}-{view}.png")
    pg.keyboard.press("Escape")
    assert not pg.locator(TIP).is_visible()
    ctx.close()
    # A tap on a phone opens a node's tip; a second tap, or one elsewhere, puts it away.
    ctx = browser.new_context(viewport={"width": 390, "height": 800}, has_touch=True, is_mobile=True)
    pg = ctx.new_page()
    load(pg, f"{live_url}/{lang}/specdec/?sections=trees&view={view}")
    g = pg.locator('#trees svg.trees-tree g.tnode[data-node="2"]')
    g.scroll_into_view_if_needed()
    g.tap()
    assert pg.locator(TIP).is_visible() and pg.locator(TIP).inner_text() == g.get_attribute("data-tip")
    g.tap()
    assert not pg.locator(TIP).is_visible()
    g.tap()
    pg.locator("#trees [data-out=status]").tap()
    assert not pg.locator(TIP).is_visible()
    ctx.close()
