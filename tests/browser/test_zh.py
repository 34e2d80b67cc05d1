"""The Chinese plate in headless Chromium: clean load, working widgets, no English that scripts
wrote, the language switch keeps settings and section, nothing wider than a phone."""
import re

import pytest
from playwright.sync_api import expect

from views.plate import SECTIONS

pytestmark = pytest.mark.browser

# Same rule as tests/test_i18n.py: four English words in a row are a sentence fragment.
ENGLISH_RUN = re.compile(r"[A-Za-z][A-Za-z’'\-]*(?:[ ,;:]+[A-Za-z][A-Za-z’'\-]*){3,}")
HAN = re.compile(r"[\u4e00-\u9fff]")

# Text a reader sees once the scripts have run, minus citations (links to other sites, <cite>),
# code and the "English" link of the language switch.
VISIBLE_TEXT = """() => {
  const root = document.body.cloneNode(true);
  root.querySelectorAll('script, style, code, pre, cite, [lang^=en], a[href^="http"]')
      .forEach(el => el.remove());
  const attrs = [...root.querySelectorAll('[aria-label], [title]')]
      .map(el => (el.getAttribute('aria-label') || '') + ' ' + (el.getAttribute('title') || ''));
  return root.textContent + '\\n' + attrs.join('\\n') + '\\n' + document.title;
}"""


def _load(page, url):
    page.goto(url)
    # A selector, not wait_for_function: the strict CSP forbids the eval that the latter uses.
    page.wait_for_selector("html[data-ready='1']", state="attached", timeout=30000)


def test_zh_page_loads_clean_and_reads_chinese(page, live_url):
    _load(page, f"{live_url}/zh/specdec/")
    assert page.locator("html").get_attribute("lang") == "zh-CN"
    assert "推测解码" in page.title()
    assert page.locator("section.plate-section").count() == len(SECTIONS)
    failed = page.locator("[data-widget][data-state=failed]")
    assert failed.count() == 0, [failed.nth(i).get_attribute("data-widget") for i in range(failed.count())]
    # Scroll through so lazily drawn charts and widgets write their labels, then read everything.
    for _num, anchor, _t in SECTIONS:
        page.locator(f"#{anchor}").scroll_into_view_if_needed()
    page.wait_for_timeout(1500)
    text = page.evaluate(VISIBLE_TEXT)
    runs = ENGLISH_RUN.findall(text)
    assert not runs, runs[:8]
    assert page.console_errors == []
    assert page.foreign_requests == []


def test_zh_tape_step_adds_chinese_tokens(page, live_url):
    _load(page, f"{live_url}/embed/zh/specdec/tape/?seed=3")
    page.wait_for_selector("#tape [data-widget][data-ready='1']", state="attached", timeout=20000)
    cells = page.locator("#tape .tape-cell:not(.tape-cell--context)")
    before = cells.count()
    page.locator("#tape [data-act=step]").click()
    page.locator("#tape [data-act=step]").click()
    after = cells.count()
    assert after >= before + 2  # every pass writes at least one token
    tokens = [cells.nth(i).locator(".tape-tok").inner_text() for i in range(after)]
    assert all(len(t) == 1 for t in tokens), tokens  # a Chinese token is one character
    assert any(HAN.search(t) for t in tokens), tokens
    status = page.locator("#tape [data-out=status]").inner_text()
    assert HAN.search(status) and not ENGLISH_RUN.search(status), status
    assert page.console_errors == [] and page.foreign_requests == []


def test_zh_slider_changes_a_number(page, live_url):
    _load(page, f"{live_url}/embed/zh/specdec/speedup/")
    speed = page.locator("#speedup [data-out=speedup]")
    before = speed.inner_text()
    slider = page.locator("#speedup-c")
    slider.focus()
    page.keyboard.press("End")  # the draft costs as much as the target: speculation cannot pay
    expect(speed).not_to_have_text(before, timeout=10000)  # the widget asks /api/theory
    after = speed.inner_text()
    assert after != before, (before, after)
    assert float(after.rstrip("×").replace(",", "")) < 1.0
    assert "c=1" in page.url
    assert page.console_errors == []


def test_zh_switch_keeps_settings_and_section(page, live_url):
    page.emulate_media(reduced_motion="reduce")  # instant scrolling (the page scrolls smoothly)
    _load(page, f"{live_url}/zh/specdec/?gamma=6&draft=unigram&seed=7")
    # Read section 6 for a moment, then scroll back up to the switch in the header.
    page.locator("#exact h2").scroll_into_view_if_needed()
    page.evaluate("() => document.querySelector('#exact').scrollIntoView({block: 'start'})")
    page.wait_for_timeout(1500)  # main.js records the section after 600 ms without scrolling
    page.evaluate("() => window.scrollTo(0, 0)")
    page.wait_for_timeout(1500)
    page.locator("#lang-switch").click()
    page.wait_for_selector("html[data-ready='1']", state="attached", timeout=30000)
    url = page.url
    assert "/en/specdec/" in url and url.endswith("#exact"), url
    for part in ("gamma=6", "draft=unigram", "seed=7"):
        assert part in url, url
    assert page.locator("html").get_attribute("lang") == "en"
    # The controls show the carried-over settings.
    assert page.locator("#tape-gamma").input_value() == "6"
    assert page.locator("#tape-draft").input_value() == "unigram"
    # And back to Chinese from an embed, whose switch keeps its settings too.
    _load(page, f"{live_url}/embed/en/specdec/rule/?gamma=3&rule=keep-draft")
    page.locator("#lang-switch").click()
    page.wait_for_selector("html[data-ready='1']", state="attached", timeout=30000)
    assert re.search(r"/embed/zh/specdec/rule/\?", page.url), page.url
    assert "gamma=3" in page.url and "rule=keep-draft" in page.url
    assert page.console_errors == []


@pytest.mark.parametrize("path", ["/zh/specdec/?batch=1024&ctx=131072&gamma=8",
                                  "/embed/zh/specdec/bench/", "/embed/zh/specdec/selfdraft/"])
def test_zh_nothing_overflows_at_phone_width(browser, live_url, path):
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1)
    pg = ctx.new_page()
    _load(pg, live_url + path)
    for _num, anchor, _t in SECTIONS:
        if pg.locator(f"#{anchor}").count():
            pg.locator(f"#{anchor}").scroll_into_view_if_needed()
    pg.wait_for_timeout(1000)
    width = pg.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, width
    # Also no element sticking out past the screen unless a scrolling (or clipping) box holds it:
    # a wide diagram in a box that scrolls sideways is fine, text running off the edge is not.
    wide = pg.evaluate("""() => {
      const held = el => { for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        if (getComputedStyle(a).overflowX !== 'visible') return true; } return false; };
      return [...document.querySelectorAll('body *')]
        .filter(el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.right > 391; })
        .filter(el => !held(el))
        .slice(0, 5).map(el => el.tagName + '.' + (el.getAttribute('class') || ''));
    }""")
    assert wide == [], wide
    ctx.close()
