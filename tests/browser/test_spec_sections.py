"""Sections 3–7, 13 and 14 in headless Chromium, for the defects of issue 12 that only show with
scripts on: section 5's Reset and "Next refusal", greedy checks drawn as the two favourites (and
the same as the server's first view), plural forms in status lines, the tubes past a few hundred
draws, and the lab's file against typed text."""
from __future__ import annotations

import hashlib
import json
import re

import pytest
from tests.browser.util import load as _load, open_fold

pytestmark = pytest.mark.browser



def _answer(page, unit):
    return json.loads(page.locator(f'script[data-answer="{unit}"]').first.text_content())


def _pass(page):
    return int(page.locator("#rule [data-out=pass]").inner_text())


def test_rule_reset_says_where_it_goes_and_next_refusal_says_when_there_is_none(page, live_url):
    _load(page, f"{live_url}/embed/en/specdec/rule/")
    a = _answer(page, "rule")
    refusals = [i for i, st in enumerate(a["run"]["steps"]) if st["replacement"] is not None]
    start = a["rule_pass"]
    assert refusals and start == refusals[0] and start > 0  # seed 1 opens on pass 3
    w = page.locator("#rule [data-widget]")
    reset = w.locator("[data-act=reset]")
    assert reset.inner_text() == "Back to the first refusal"
    assert _pass(page) == start + 1
    # The earlier passes are reachable, and Reset goes back to where the button says.
    w.locator("[data-act=back]").click()
    assert _pass(page) == start
    reset.click()
    assert _pass(page) == start + 1
    # "Next refusal" walks the refusals, then says there is none rather than doing nothing.
    for i in refusals[1:]:
        w.locator("[data-act=next-refusal]").click()
        assert _pass(page) == i + 1
    w.locator("[data-act=next-refusal]").click()
    assert _pass(page) == refusals[-1] + 1
    assert w.locator("[data-out=status]").inner_text() == f"No guess is refused after pass {refusals[-1] + 1} of this run."
    assert page.console_errors == [] and page.foreign_requests == []


def test_rule_reset_with_a_draft_that_never_misses(page, live_url):
    _load(page, f"{live_url}/embed/en/specdec/rule/?draft=trigram")
    w = page.locator("#rule [data-widget]")
    assert w.locator("[data-act=reset]").inner_text() == "Back to the first pass"
    w.locator("[data-act=next-refusal]").click()
    assert "No guess is refused anywhere in this run" in w.locator("[data-out=status]").inner_text()


@pytest.mark.parametrize("query", ["", "?greedy=1"])
def test_scripts_draw_the_gauges_as_the_server_does(page, live_url, query):
    """The first view the server drew and the one rule.js draws for the same pass read the same
    (the greedy cards, the ratio as "p/q ≥ 1" or its significant figures, r)."""
    url = f"{live_url}/embed/en/specdec/rule/{query}"
    _load(page, url)

    def items(js_root):
        return page.evaluate(f"""async () => {{
            const root = {js_root};
            return [...root.querySelectorAll('.gauges .gauge-item')].map(li =>
                [li.dataset.verdict, ...[...li.querySelectorAll('span')].map(s => s.textContent.trim())]);
        }}""")

    drawn = items("document")
    served = items(f"new DOMParser().parseFromString(await (await fetch({json.dumps(url)})).text(), 'text/html')")
    assert drawn and drawn == served
    greedy = bool(query)
    assert (page.locator("#rule .gauge-item--greedy").count() > 0) == greedy
    assert (page.locator("#rule svg.gauge").count() > 0) == (not greedy)


def test_greedy_switch_redraws_gauges_and_legend(page, live_url):
    _load(page, f"{live_url}/en/specdec/#rule")
    sec = page.locator("#rule")
    sec.scroll_into_view_if_needed()
    assert "random number r" in sec.locator("[data-live=legend]").inner_text()
    sec.locator("input[data-param=greedy]").check()
    page.wait_for_function("() => document.querySelector('#rule [data-live=legend]').textContent.includes('favourite')",
                           timeout=20000)
    page.wait_for_function("() => document.querySelectorAll('#rule .gauge-item--greedy').length > 0", timeout=20000)
    assert sec.locator("svg.gauge").count() == 0
    cards = sec.locator(".gauge-item--greedy")
    for i in range(cards.count()):
        sign = cards.nth(i).locator(".greedy-sign").inner_text()
        verdict = cards.nth(i).get_attribute("data-verdict")
        assert (sign, verdict) in (("=", "kept"), ("≠", "refused"))
    # Section 7 follows: α is the share of agreeing positions, the strip's key says agree / differ.
    page.locator("#alpha").scroll_into_view_if_needed()
    page.wait_for_function("() => document.querySelector('#alpha [data-live=strip_key]').textContent.includes('favourites agreed')",
                           timeout=20000)
    assert page.console_errors == []


def test_bench_steps_greedy_checks(page, live_url):
    _load(page, f"{live_url}/embed/en/specdec/bench/?greedy=1")
    a = _answer(page, "bench")
    w = page.locator("#bench [data-widget]")
    w.locator("[data-act=step]").click()
    cards = w.locator(".bench-gauges .gauge-item--greedy")
    first = a["run"]["steps"][0]["proposals"]
    assert cards.count() == len(first)
    for i, p in enumerate(first):
        text = cards.nth(i).inner_text()
        assert p["greedy_check"]["draft_top"] in text and p["greedy_check"]["target_top"] in text
    assert "favourite" in w.locator("[data-live=gauge_legend]").inner_text()
    assert page.console_errors == []


def test_tape_status_says_guess_for_one(page, live_url):
    # A pass that kept exactly one guess and then refused one: "1 guess kept", not "1 guesses".
    for seed in range(1, 30):
        _load(page, f"{live_url}/embed/en/specdec/tape/?seed={seed}")
        steps = _answer(page, "tape")["run"]["steps"]
        at = next((i for i, st in enumerate(steps)
                   if [w["kind"] for w in st["written"]] == ["kept", "replaced"]), None)
        if at is not None:
            break
    assert at is not None
    for _ in range(at + 1):
        page.locator("#tape [data-act=step]").click()
    status = page.locator("#tape [data-out=status]").inner_text()
    assert status.startswith("1 guess kept, then one refused"), status


@pytest.mark.parametrize("lang, said", [("en", "The first guess was refused"), ("zh", "第一个猜测就被拒绝了")])
def test_tape_status_says_when_the_first_guess_is_refused(page, live_url, lang, said):
    # Not "0 guesses kept, then one refused" (issue 24): a pass that refused its first guess.
    _load(page, f"{live_url}/embed/{lang}/specdec/tape/?seed=1")
    steps = _answer(page, "tape")["run"]["steps"]
    at = next(i for i, st in enumerate(steps) if [w["kind"] for w in st["written"]] == ["replaced"])
    for _ in range(at + 1):
        page.locator("#tape [data-act=step]").click()
    status = page.locator("#tape [data-out=status]").inner_text()
    assert status.startswith(said), status


def test_tubes_balls_then_bars_and_the_cap(page, live_url):
    _load(page, f"{live_url}/embed/en/specdec/exact/?rounds=1")
    w = page.locator("#exact [data-widget]")
    assert w.locator("[data-act=add]").inner_text() == "Add a round of 200"
    assert page.locator("#exact svg.tube--spec").get_attribute("data-draw") == "balls"
    assert page.locator("#exact svg.tube--spec .ball").count() == 200
    # One round of 200 catches resample-target here 88 % of the time, under the 90 % aim: said
    # (the counts sit in the section's "Go further" fold, how many draws it takes).
    open_fold(page, "exact-more")
    assert "Too few draws to tell" in w.locator("[data-live=counts]").inner_text()
    w.locator("[data-act=add]").click()
    page.wait_for_function("() => document.querySelector('#exact [data-widget]').dataset.rounds === '2'", timeout=20000)
    assert page.locator("#exact svg.tube--plain .ball").count() == 400
    # The default, 5 rounds of 200: bars, as the server draws them; at 20 rounds the button stops
    # and the note under it says why.
    _load(page, f"{live_url}/embed/en/specdec/exact/")
    assert page.locator("#exact svg.tube--spec").get_attribute("data-draw") == "bars"
    _load(page, f"{live_url}/embed/en/specdec/exact/?rounds=20")
    assert page.locator("#exact [data-act=add]").is_disabled()
    open_fold(page, "exact-more")
    assert "Rounds stop at 20 (4,000 draws a tube)" in page.locator("#exact [data-live=cap]").inner_text()
    assert page.console_errors == []


def test_tubes_draft_is_tryable_and_the_prose_follows(page, live_url):
    # "Whatever the draft": choose the tubes' draft; the prose, the power note and the greedy
    # comparison follow, and with the target's copy the page says no draw count can tell.
    _load(page, f"{live_url}/en/specdec/#exact")
    sec = page.locator("#exact")
    sec.scroll_into_view_if_needed()
    # The tubes' prose and the greedy comparison are in the section's "Go further" fold.
    open_fold(page, "exact-more")
    assert "with the bigram draft" in sec.locator("[data-live=more]").inner_text()
    sec.locator("select[data-param=tdraft]").select_option("unigram")
    page.wait_for_function("() => document.querySelector('#exact [data-live=more]').textContent.includes('unigram draft')",
                           timeout=20000)
    assert "tdraft=unigram" in page.url
    assert "unigram draft" in sec.locator("[data-live=same_caption]").inner_text()
    sec.locator("select[data-param=tdraft]").select_option("trigram")
    page.wait_for_function("() => document.querySelector('#exact [data-live=cap]').textContent.includes('no number of draws')",
                           timeout=20000)
    assert "no number of draws can tell them apart" in sec.locator("[data-live=more]").inner_text()
    assert page.console_errors == []


def test_lab_file_and_typed_text_say_which_is_counted(page, live_url, tmp_path):
    _load(page, f"{live_url}/embed/en/specdec/lab/")
    w = page.locator("#lab [data-widget]")
    typed = ("the cat sat on the mat and the dog sat on the log . " * 6).strip()
    f = tmp_path / "song.txt"
    f.write_text("la la la , here we go again , la la la . " * 20)
    area = w.locator("#lab-textarea")
    area.fill(typed)
    # A file chosen after typing wins, and the status line says so.
    w.locator("#lab-file").set_input_files(str(f))
    assert "song.txt" in w.locator("[data-out=file-name]").inner_text()
    assert "will be counted, not the text in the box" in w.locator("[data-out=text-status]").inner_text()
    # Typing afterwards sets the file aside; the typed text is what gets counted.
    area.type(" .")
    assert w.locator("[data-out=file-name]").inner_text() == "No file chosen"
    assert "file is set aside" in w.locator("[data-out=text-status]").inner_text()
    w.locator("[data-act=use-text]").click()
    sha = hashlib.sha256((typed + " .").encode()).hexdigest()
    page.wait_for_function(f"() => location.search.includes('text={sha}')", timeout=20000)
    assert re.search(r"Counted \d+ tokens", w.locator("[data-out=text-status]").inner_text())
    assert page.console_errors == []


MINE = ("draft", "tape", "rule", "exact", "alpha", "parts", "bench", "lab")


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("query", ["", "?greedy=1&gamma=8&rounds=1"])
def test_my_sections_fit_a_phone(browser, live_url, lang, query):
    """At 390 px nothing of sections 3–7 and 12–14 sticks out sideways: the greedy cards, the tape's
    legend, the tubes' notes and the greedy comparison included."""
    ctx = browser.new_context(viewport={"width": 390, "height": 800}, device_scale_factor=1)
    pg = ctx.new_page()
    _load(pg, f"{live_url}/{lang}/specdec/{query}")
    for anchor in MINE:
        pg.locator(f"#{anchor}").scroll_into_view_if_needed()
    pg.wait_for_timeout(500)
    wide = pg.evaluate("""(anchors) => anchors.flatMap(a => [...document.querySelectorAll(`#${a} *`)]
        .filter(e => e.getClientRects().length && !e.closest('svg, .lab-table-wrap, .tape-scroll, .bench-tape, .tape'))
        .filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
        .map(e => `${a}: ${e.tagName.toLowerCase()}.${e.className}`))""", list(MINE))
    assert wide == [], wide[:10]
    assert pg.evaluate("() => document.documentElement.scrollWidth") <= 390
    ctx.close()
