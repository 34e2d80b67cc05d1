"""The page in real headless Chromium: loads cleanly, stays on its origin, state and keys work."""
import re

import pytest

from views.sections import SECTIONS
from tests.browser.util import load as _load

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_loads_without_errors_or_foreign_requests(page, live_url, lang):
    _load(page, f"{live_url}/{lang}/specdec/")
    assert page.locator("section.plate-section").count() == len(SECTIONS)
    assert page.console_errors == []
    assert page.foreign_requests == []
    failed = page.locator("[data-widget][data-state=failed]")
    assert failed.count() == 0, [failed.nth(i).get_attribute("data-widget") for i in range(failed.count())]


def test_page_readable_without_scripts(browser, live_url):
    ctx = browser.new_context(java_script_enabled=False)
    pg = ctx.new_page()
    pg.goto(f"{live_url}/en/specdec/")
    assert pg.locator("h1").inner_text().strip() != ""
    assert pg.locator("#sources li").count() >= 10
    # the embed links work as plain links
    href = pg.locator("#tape .embed-link").get_attribute("href")
    assert href.startswith("/embed/en/specdec/tape/")
    ctx.close()


def test_state_set_updates_url_and_language_switch(page, live_url):
    _load(page, f"{live_url}/en/specdec/?gamma=3")
    page.evaluate("""() => {
        window.__events = [];
        document.addEventListener('specdec:state', e => window.__events.push(e.detail));
    }""")
    # Drive the shared state through the same module the widgets use.
    page.evaluate("""async () => {
        const link = document.querySelector('#lang-switch');
        const u = new URL(location.href); u.searchParams.set('draft', 'unigram');
        history.replaceState(null, '', u.pathname + u.search + '#exact');
        window.dispatchEvent(new HashChangeEvent('hashchange'));
    }""")
    href = page.locator("#lang-switch").get_attribute("href")
    assert href.startswith("/zh/specdec/?")
    assert "gamma=3" in href and "draft=unigram" in href and href.endswith("#exact")


def test_embed_dialog_gives_an_iframe_snippet(page, live_url):
    _load(page, f"{live_url}/en/specdec/?gamma=5")
    page.locator("#rule .embed-link").click()
    dialog = page.locator("dialog.embed-dialog")
    dialog.wait_for(state="visible")
    code = dialog.locator("#embed-dialog-code").input_value()
    assert re.search(r'<iframe src="http://127\.0\.0\.1:\d+/embed/en/specdec/rule/\?gamma=5"', code)
    assert 'title="Speculative decoding: The rule for passing"' in code
    assert "/static/js/embed-host.js" in code
    page.keyboard.press("Escape")
    dialog.wait_for(state="hidden")
    assert page.console_errors == []


def test_keys_act_in_the_focused_widget_and_space_scrolls_elsewhere(page, live_url):
    # issue 15: with nothing focused, Space started the bench playing 20,000 px below and never
    # scrolled. Keys now act only in a widget that has focus and does that action.
    _load(page, f"{live_url}/en/specdec/")
    passes = page.locator("#tape [data-out=passes]")
    page.locator("#tape .widget").focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert passes.inner_text() == "2"
    page.keyboard.press("ArrowLeft")
    assert passes.inner_text() == "1"
    page.keyboard.press("r")
    assert passes.inner_text() == "0"
    # Outside a widget the keys keep their own meaning: the arrow does not step the tape.
    page.locator("#tape .embed-link").focus()
    page.keyboard.press("ArrowRight")
    assert passes.inner_text() == "0"
    # Typing in a box is left alone.
    page.locator("#tape-seed").focus()
    page.keyboard.press("r")
    assert passes.inner_text() == "0"
    # Nothing focused: Space scrolls the page, and nothing starts playing.
    page.evaluate("() => { document.activeElement.blur(); window.scrollTo(0, 0); }")
    page.keyboard.press(" ")
    page.wait_for_timeout(400)
    assert page.evaluate("window.scrollY") > 100
    assert page.locator("[data-act=play][aria-pressed=true]").count() == 0


def test_plotly_loads_from_our_origin(page, live_url):
    _load(page, f"{live_url}/en/specdec/")
    # Ask for plotly the way a widget does; it must come from /vendor on our own origin.
    has = page.evaluate("""async () => {
        const s = document.createElement('script'); s.src = '/vendor/plotly.min.js';
        await new Promise((ok, bad) => { s.onload = ok; s.onerror = bad; document.head.appendChild(s); });
        return typeof window.Plotly?.newPlot;
    }""")
    assert has == "function"
    assert page.foreign_requests == []


@pytest.mark.parametrize("anchor", ["tape", "trees", "lab"])
def test_a_link_to_a_section_lands_on_it_once_widgets_have_mounted(page, live_url, anchor):
    # Mounting changes the heights above the section; the page goes back to the anchor after.
    _load(page, f"{live_url}/en/specdec/#{anchor}")
    top = page.evaluate("(a) => document.getElementById(a).getBoundingClientRect().top", anchor)
    assert -2 <= top <= 80, top
