"""The Chinese plate in headless Chromium: clean load, working widgets, no English that scripts
wrote, the language switch keeps settings and section, nothing wider than a phone."""
import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout, expect

from views.sections import SECTIONS

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
    for anchor in (s.anchor for s in SECTIONS):
        page.locator(f"#{anchor}").scroll_into_view_if_needed()
    page.wait_for_timeout(1500)
    text = page.evaluate(VISIBLE_TEXT)
    runs = ENGLISH_RUN.findall(text)
    assert not runs, runs[:8]
    assert page.console_errors == []
    assert page.foreign_requests == []


def test_zh_tape_step_adds_chinese_tokens(page, live_url):
    _load(page, f"{live_url}/embed/zh/specdec/tape/?seed=3")
    page.wait_for_selector("#tape [data-widget][data-state=mounted]", state="attached", timeout=20000)
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
    speed = page.locator('#speedup .spec-readout [data-field="theory.speedup"]')
    before = speed.inner_text()
    slider = page.locator("#speedup-c")
    slider.focus()
    page.keyboard.press("End")  # the draft costs as much as the target: speculation cannot pay
    expect(speed).not_to_have_text(before, timeout=10000)  # the section asks for its new answer
    after = speed.inner_text()
    assert after != before, (before, after)
    assert float(after.rstrip("×倍 ").replace(",", "")) < 1.0   # "0.49 倍" on the Chinese page
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
    for anchor in (s.anchor for s in SECTIONS):
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


# ---- large numbers in the Chinese way ---------------------------------------------------------

UNITS = {"万": 1e4, "亿": 1e8, "万亿": 1e12}
COMPACT = re.compile(r"^(\d+(?:\.\d+)?)(万亿|亿|万)$")
# A digit group of a million or more ("8,030,261,248"): a Chinese reader counts in 万 and 亿.
LONG_DIGITS = re.compile(r"\d{1,3}(?:,\d{3}){2,}")


def _api(live_url, path):
    import json
    from urllib.request import urlopen
    with urlopen(live_url + path) as r:
        return json.load(r)


def _compact_value(text):
    m = COMPACT.match(text.strip())
    assert m, text
    return float(m.group(1)) * UNITS[m.group(2)]


@pytest.mark.parametrize("query", ["", "?model=llama-3.1-70b&gpu=b200&batch=1024&ctx=131072"])
def test_zh_large_numbers_read_in_wan_and_yi(browser, live_url, query):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
    pg = ctx.new_page()
    _load(pg, f"{live_url}/zh/specdec/{query}")
    for anchor in (s.anchor for s in SECTIONS):
        pg.locator(f"#{anchor}").scroll_into_view_if_needed()
    pg.wait_for_selector("#batch .js-plotly-plot", timeout=20000)
    text = pg.evaluate(VISIBLE_TEXT)
    assert "亿" in text
    assert not LONG_DIGITS.findall(text), LONG_DIGITS.findall(text)[:5]
    # The parameter count means what the API says, to the three digits shown (80.3亿 = 8.03e9).
    api = _api(live_url, "/api/roofline" + (query or "?") + "&lang=zh")
    params = pg.locator('#onebyone [data-field="model.params"]').inner_text()
    assert _compact_value(params) == pytest.approx(api["model"]["params"], rel=5e-3)
    # Throughput over 1万 a second too, in the readouts and on the chart's axis.
    tps = api["batch"]["weights_only"]["tokens_per_s"]
    shown = pg.locator('#batch .rf-readouts [data-field="batch.weights_only.tokens_per_s"]').inner_text()
    if tps >= 1e4:
        assert _compact_value(shown) == pytest.approx(tps, rel=5e-3)
    ticks = pg.evaluate("() => [...document.querySelectorAll('#batch .js-plotly-plot .ytick text')].map(t => t.textContent)")
    assert any(t.endswith("万") for t in ticks), ticks
    ctx.close()


def test_zh_numbers_refreshed_by_scripts_keep_the_servers_form(browser, live_url):
    """A number refreshed after a change is written as the server writes it without scripts (the
    server renders the live text for the new state too)."""
    ctx = browser.new_context(java_script_enabled=False)
    pg = ctx.new_page()
    # No cache (ctx=0): 1,024 streams fit beside the weights, so every section quotes a speed
    # (streams that do not fit get none).
    pg.goto(f"{live_url}/zh/specdec/?gpu=b200&batch=1024&ctx=0")
    fields = ['#onebyone [data-field="model.params"]', '#batch .rf-readouts [data-field="batch.weights_only.tokens_per_s"]',
              '#batch .rf-readouts [data-field="batch.with_cache.tokens_per_s"]', '#idle .rf-readouts [data-field="idle.tokens_per_s_spec"]',
              '#onebyone .prose > p [data-field="onebyone.gflop"]']  # given in billions: 161亿
    server = [pg.locator(f).inner_text() for f in fields]
    ctx.close()
    ctx = browser.new_context()
    pg = ctx.new_page()
    _load(pg, f"{live_url}/zh/specdec/?batch=1024&ctx=0&model=llama-3.2-1b")
    before = pg.locator(fields[0]).inner_text()
    # The scripts fetch the new numbers and write every one of them.
    pg.locator("#obo-model").select_option("llama-3.1-8b")
    expect(pg.locator(fields[0])).not_to_have_text(before, timeout=10000)
    pg.locator("#obo-gpu").select_option("b200")
    for anchor in ("batch", "idle", "onebyone"):   # sections further down are asked for as they come near
        pg.locator(f"#{anchor}").scroll_into_view_if_needed()
        pg.wait_for_timeout(300)                     # the observer reports the section near
        pg.wait_for_selector(".plate-section[aria-busy=true]", state="detached", timeout=15000)
    expect(pg.locator(fields[1])).to_have_text(server[1], timeout=10000)
    assert [pg.locator(f).inner_text() for f in fields] == server
    assert sum(bool(COMPACT.match(s)) for s in server) >= 4, server
    ctx.close()


def test_en_large_numbers_keep_every_digit(page, live_url):
    _load(page, f"{live_url}/en/specdec/")
    params = _api(live_url, "/api/roofline")["model"]["params"]
    assert page.locator('#onebyone [data-field="model.params"]').inner_text() == f"{params:,}"


# ---- the lab's file control -----------------------------------------------------------------------

def test_zh_file_control_speaks_chinese_and_works_from_the_keyboard(browser, live_url):
    ctx = browser.new_context(viewport={"width": 390, "height": 844})
    pg = ctx.new_page()
    _load(pg, f"{live_url}/embed/zh/specdec/lab/")
    button = pg.locator("#lab label.lab-file-button[for=lab-file]")
    name = pg.locator("#lab [data-out=file-name]")
    # What a reader sees is the catalog's Chinese, not the browser's "Choose File / No file chosen".
    for text in (button.inner_text(), name.inner_text()):
        assert HAN.search(text) and not re.search(r"[A-Za-z]", text), text
    # The input itself is out of sight but in the tab order, named by the visible button.
    box = pg.locator("#lab-file").bounding_box()
    assert box["width"] <= 1 and box["height"] <= 1, box
    assert pg.locator("#lab-file").evaluate("e => e.labels.length === 1 && e.labels[0].classList.contains('lab-file-button')")
    pg.locator("#lab-textarea").focus()
    pg.keyboard.press("Tab")
    assert pg.evaluate("() => document.activeElement.id") == "lab-file"
    # Focus shows on the button the reader sees.
    assert button.evaluate("e => getComputedStyle(e).outlineStyle") == "solid"
    # Space opens the file picker, as on a native control. Under heavy load Chromium has once let
    # a key press pass without opening it (CI, two test runs sharing two cores), so the reader's
    # second press is allowed; a control that never opens still fails.
    for attempt in range(3):
        assert pg.evaluate("() => document.activeElement.id") == "lab-file"
        try:
            with pg.expect_file_chooser(timeout=10_000) as chooser:
                pg.keyboard.press(" ")
            break
        except PlaywrightTimeout:
            if attempt == 2:
                raise
    chooser.value.set_files(files=[{"name": "歌词.txt", "mimeType": "text/plain", "buffer": "啦啦啦。".encode() * 40}])
    expect(name).to_have_text("歌词.txt")
    # A click on the button opens it too.
    with pg.expect_file_chooser():
        button.click()
    ctx.close()
