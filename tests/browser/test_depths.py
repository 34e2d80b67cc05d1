"""The depth switch and "predict first" in headless Chromium (issue 7).

Switching depth happens in place (no new document is loaded), changes what is visible and the
URL; a reload and the language switch keep it; without scripts the links do the same by loading
the page; a predict-first question opens its answer only once an option (or "I'm not sure") is
picked.
"""
import pytest

pytestmark = pytest.mark.browser


def _load(page, url):
    page.goto(url)
    # A selector, not wait_for_function: the strict CSP forbids the eval the latter uses.
    page.wait_for_selector("html[data-ready='1']", state="attached", timeout=20000)


def _count_documents(page):
    docs = []
    page.on("request", lambda r: docs.append(r.url) if r.resource_type == "document" else None)
    return docs


def _prose(page, anchor):
    # The section's first paragraph of Picture prose (a direct <p> child, not a note).
    return page.locator(f"#{anchor} .prose > p").first


def test_switch_in_place_changes_visibility_and_url(page, live_url):
    _load(page, f"{live_url}/en/specdec/?gamma=5")
    docs = _count_documents(page)
    story, frontier = page.locator("#rule .depth-note--story"), page.locator("#rule .depth-note--frontier")
    assert _prose(page, "rule").is_visible() and story.is_hidden() and frontier.is_hidden()

    page.locator('.depth-switch a[data-depth-choice="story"]').click()
    assert story.is_visible() and frontier.is_hidden()
    assert _prose(page, "rule").is_hidden()
    assert page.locator("#rule .widget").is_visible()          # the interactive stays
    assert "depth=story" in page.url and "gamma=5" in page.url
    assert page.locator('.depth-switch a[aria-current="true"]').get_attribute("data-depth-choice") == "story"

    page.locator('.depth-switch a[data-depth-choice="frontier"]').click()
    assert frontier.is_visible() and story.is_hidden() and _prose(page, "rule").is_visible()
    assert "depth=frontier" in page.url
    # Every section follows, not just one.
    assert page.locator(".depth-note--frontier:visible").count() == page.locator("section.plate-section").count()

    page.locator('.depth-switch a[data-depth-choice="picture"]').click()
    assert story.is_hidden() and frontier.is_hidden() and _prose(page, "rule").is_visible()
    assert docs == []                                           # no reload at any point
    assert page.console_errors == [] and page.foreign_requests == []


def test_reload_and_language_switch_keep_the_depth(page, live_url):
    _load(page, f"{live_url}/en/specdec/")
    page.locator('.depth-switch a[data-depth-choice="frontier"]').click()
    assert "depth=frontier" in page.locator("#lang-switch").get_attribute("href")
    page.reload()
    page.wait_for_selector("html[data-ready='1']", state="attached", timeout=20000)
    assert page.locator("#tape .depth-note--frontier").is_visible()
    assert page.locator('.depth-switch a[aria-current="true"]').get_attribute("data-depth-choice") == "frontier"

    page.locator('.depth-switch a[data-depth-choice="story"]').click()
    page.locator("#lang-switch").click()
    page.wait_for_url("**/zh/specdec/**")
    page.wait_for_selector("html[data-ready='1']", state="attached", timeout=20000)
    assert "depth=story" in page.url
    note = page.locator("#tape .depth-note--story")
    assert note.is_visible() and any("\u4e00" <= ch <= "\u9fff" for ch in note.inner_text())
    assert _prose(page, "tape").is_hidden()
    assert page.console_errors == []


def test_predict_first_reveals_only_after_a_choice(page, live_url):
    """Issue 22: the reveal stays closed until the reader commits (an option, or "I'm not sure",
    and a dragged guess where the answer is a number); then it shows the reader's choice and guess
    beside the answer, and the contents mark the section; sessionStorage keeps them this visit."""
    _load(page, f"{live_url}/en/specdec/")
    # The Picture's question; the Story's own (in words) is hidden at this depth.
    assert page.locator("#tape .predict--story").is_hidden()
    block = page.locator("#tape .predict--has-story")
    answer = block.locator("details .live[data-live='answer'] > p").first
    assert answer.is_hidden()
    block.locator("summary").click()                       # nothing chosen: it stays closed
    assert answer.is_hidden()
    assert block.locator(".predict__hint").is_visible()
    assert block.locator("summary").get_attribute("aria-disabled") == "true"
    wrong = block.locator(".predict__opt:not(.predict__opt--right):not(.predict__opt--unsure) label").first
    wrong.click()
    block.locator("summary").click()
    assert answer.is_hidden()                              # a number to guess first: still closed
    block.locator(".predict__guess-range").fill("3")
    block.locator("summary").click()
    assert answer.is_visible()
    assert block.locator(".predict__opt--right .predict__mark").is_visible()      # the answer named
    assert block.locator(".predict__opt:has(input:checked) .predict__mark--wrong").is_visible()
    yours = block.locator(".predict__yours").inner_text()
    assert wrong.inner_text().strip() in yours and "off by" in yours, yours
    assert page.locator(".toc li.toc-done a[href='#tape']").count() == 1

    other = page.locator("#rule .predict--has-story")
    assert other.locator("details .live > p").first.is_hidden()       # one section's pick opens only its own
    other.locator("summary").click()
    assert other.locator("details .live > p").first.is_hidden()
    other.locator(".predict__opt--unsure label").click()               # not knowing is a choice
    other.locator("summary").click()
    assert other.locator("details .live > p").first.is_visible()
    assert other.locator(".predict__mark--wrong:visible").count() == 0   # nothing wrong picked, nothing flagged
    assert "not sure" in other.locator(".predict__yours").inner_text()

    # This visit remembers them (sessionStorage): after a reload both are still answered.
    page.reload()
    page.wait_for_selector("html[data-ready='1']", state="attached", timeout=20000)
    assert answer.is_visible() and other.locator("details .live > p").first.is_visible()
    assert page.locator(".toc li.toc-done").count() == 2
    assert page.console_errors == []


def test_without_scripts_the_switch_is_links(browser, live_url):
    ctx = browser.new_context(java_script_enabled=False)
    pg = ctx.new_page()
    pg.goto(f"{live_url}/en/specdec/")
    pg.locator('.depth-switch a[data-depth-choice="story"]').click()
    pg.wait_for_url("**depth=story**")
    assert pg.locator("#exact .depth-note--story").is_visible()
    assert pg.locator("#exact .prose > p").first.is_hidden()
    # At the Story depth its question in words stands in for the Picture's, also without scripts.
    assert pg.locator("#exact .predict--has-story").is_hidden()
    pg.locator("#exact .predict--story summary").click()
    assert pg.locator("#exact .predict--story details p").first.is_visible()
    ctx.close()


def test_whole_plate_embed_has_the_switch(page, live_url):
    _load(page, f"{live_url}/embed/en/specdec/?depth=story")
    assert page.locator("#speedup .depth-note--story").is_visible()
    page.locator('.depth-switch a[data-depth-choice="frontier"]').click()
    assert page.locator("#speedup .depth-note--frontier").is_visible()
    assert "depth=frontier" in page.url
    assert page.console_errors == [] and page.foreign_requests == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_story_charts_name_their_axes_in_words(page, live_url, lang):
    # Section 8's chart is drawn by speedup.js (Plotly), not by the server: at the Story depth its
    # axis and its marks are words (storyT), at the Picture depth they keep γ.
    for depth, has_gamma in (("story", False), ("picture", True)):
        _load(page, f"{live_url}/embed/{lang}/specdec/speedup/?depth={depth}")
        title = page.locator("#speedup .speedup-chart .xtitle")
        title.wait_for(state="attached", timeout=20000)
        labels = title.text_content() + " " + " ".join(page.locator("#speedup .speedup-chart .textpoint").all_text_contents())
        assert ("γ" in labels) == has_gamma, (depth, labels)


def test_charts_follow_a_depth_switch_in_place(page, live_url):
    # The switch changes the depth without a reload: a chart already drawn draws its labels again.
    _load(page, f"{live_url}/en/specdec/#speedup")
    # The chart draws when it comes near the view; the question above it may push it below.
    page.locator("#speedup .speedup-chart").scroll_into_view_if_needed()
    title = page.locator("#speedup .speedup-chart .xtitle")
    title.wait_for(state="attached", timeout=20000)
    assert "γ" in title.text_content()
    page.locator("a[data-depth-choice=story]").first.click()
    page.wait_for_timeout(500)
    assert "γ" not in page.locator("#speedup .speedup-chart .xtitle").text_content()
