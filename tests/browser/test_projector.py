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
