"""A teacher's lesson with its settings locked or hidden (controls=locked|hidden), over every
section in both languages: every setting a reader could change (a control of the state, a button
that adds a round, draws again, applies a preset or a value, the lab's text and file) is disabled
when locked and out of sight when hidden; keys move nothing; what only plays the run the link set
(Step, Back, Play, Reset, Next refusal, the sweep's pause, the bench's time within a pass), the predict-first
questions and the tabs and folds that show more of a section stay free."""
from urllib.parse import parse_qsl, urlsplit

import pytest

from tests.browser.util import load

pytestmark = pytest.mark.browser

# As main.js marks them: a control of the state, or anything marked as changing what a section shows.
SETTINGS = "[data-param], [data-sets], [data-sets] :is(button, input, select, textarea)"
# What stays free on a locked page (main.js says why).
FREE = ("[data-act=step], [data-act=play], [data-act=back], [data-act=reset], [data-act=next-refusal], [data-act=sweep], "
        "[data-machine-time], [role=tab]")

EVERY_CONTROL = """([settings, free]) => {
  for (const d of document.querySelectorAll('.plate-section details')) d.open = true;
  return [...document.querySelectorAll('.plate-section :is(input, select, textarea, button)')]
    .filter(e => !e.closest('.predict'))
    .map(e => ({sec: e.closest('.plate-section').id, html: e.outerHTML.slice(0, 120),
                setting: e.matches(settings), free: e.matches(free), disabled: e.disabled,
                seen: e.checkVisibility() || (e.type === 'file' && e.parentElement.checkVisibility())}));
}"""


def _controls(page):
    return page.evaluate(EVERY_CONTROL, [SETTINGS, FREE])


def _query(page):
    """The page's settings as its URL has them; `more` (the folds open) is reading, free."""
    return {k: v for k, v in parse_qsl(urlsplit(page.url).query) if k != "more"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_locked_means_every_setting_of_every_section_is_locked(page, live_url, lang):
    load(page, f"{live_url}/{lang}/specdec/?controls=locked&gamma=6", timeout=60_000)
    controls = _controls(page)
    sections = {c["sec"] for c in controls}
    assert {"onebyone", "tape", "exact", "speedup", "trees", "bench", "lab"} <= sections, sections
    # Every control is a setting or one of the free ones: a new button nobody marked fails here.
    loose = [c for c in controls if not c["setting"] and not c["free"]]
    assert loose == [], loose
    settings = [c for c in controls if c["setting"]]
    assert len(settings) > 40
    assert [c for c in settings if not c["disabled"]] == []
    # Locked, not hidden: in view (α's "measured" button shows only when α is pinned).
    assert [c for c in settings if not c["seen"] and "data-act=\"measured\"" not in c["html"]] == []
    for sel in ("#lab-textarea", "#lab [data-act=use-text]", "#lab [data-act=use-book]", "#exact [data-act=add]",
                "#trees [data-act=add]", "#trees [data-act=new-pass]", ".bench-presets button", "#onebyone [data-act^=eff-]"):
        assert page.locator(sel).first.is_disabled(), sel
    # A widget enabling its button again (as on every answer) is locked again at once.
    page.evaluate("() => { document.querySelector('#exact [data-act=add]').disabled = false; }")
    page.wait_for_timeout(50)
    assert page.locator("#exact [data-act=add]").is_disabled()
    # Keys move nothing: the tubes' step and play add a round, R empties them, where unlocked.
    before = _query(page)
    rounds = page.locator("#exact [data-widget=exact]").get_attribute("data-rounds")
    for widget in ("#exact [data-widget=exact]", "#onebyone [data-widget=onebyone]"):
        page.locator(widget).focus()
        for key in ("ArrowRight", " ", "r"):
            page.keyboard.press(key)
    page.wait_for_timeout(300)
    assert _query(page) == before == {"controls": "locked", "gamma": "6"}
    assert page.locator("#exact [data-widget=exact]").get_attribute("data-rounds") == rounds
    # What plays the run stays free: a step of section 4 is taken, and the state is as it was.
    page.locator("#tape [data-act=step]").click()
    page.wait_for_function("() => document.querySelector('#tape [data-out=passes]').textContent.trim() === '1'")
    page.locator("#trees [data-act=step]").click()
    assert _query(page) == before
    assert page.console_errors == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_hidden_means_every_setting_of_every_section_is_out_of_sight(page, live_url, lang):
    load(page, f"{live_url}/{lang}/specdec/?controls=hidden", timeout=60_000)
    controls = _controls(page)
    settings = [c for c in controls if c["setting"]]
    assert len(settings) > 40
    assert [c for c in settings if c["seen"] or not c["disabled"]] == []
    assert [c for c in controls if not c["setting"] and not c["free"]] == []
    # What plays the run is still there, in every section that plays one.
    for sec in ("draft", "tape", "rule", "trees", "bench"):
        assert page.locator(f"#{sec} [data-act=step]").first.is_visible(), sec
    assert not page.locator(".depth-switch").first.is_visible()
    assert page.console_errors == []
