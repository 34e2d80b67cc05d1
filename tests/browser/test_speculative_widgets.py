"""Sections 3–8 in headless Chromium: stepping, marks, tubes, rules, sliders, no errors."""
import pytest
from tests.browser.util import load as _load, open_fold

pytestmark = pytest.mark.browser



def _ready(page, anchor):
    page.wait_for_selector(f"#{anchor} [data-widget][data-state=mounted]", state="attached", timeout=20000)


def _settled(page):
    page.wait_for_function("() => !document.querySelector('.plate-section[aria-busy=true]')", timeout=20000)


def test_tape_steps_add_tokens_with_the_right_marks(page, live_url):
    _load(page, f"{live_url}/embed/en/specdec/tape/?seed=3")
    _ready(page, "tape")
    cells = page.locator("#tape ol.tape .tape-cell:not(.tape-cell--context)")   # not the legend's samples
    assert cells.count() == 0  # reset to the context alone once the run has loaded
    run = page.evaluate("() => fetch('/api/section/tape?lang=en&seed=3').then(r => r.json())")["data"]["run"]
    same = page.evaluate("() => fetch('/api/run?lang=en&draft=bigram&gamma=4&greedy=0&rule=exact&seed=3&tokens=40').then(r => r.json())")
    assert [st["written"] for st in run["steps"]] == [st["written"] for st in same["steps"]]  # the public API's run
    total = 0
    for i in range(3):
        page.locator("#tape [data-act=step]").click()
        written = run["steps"][i]["written"]
        total += len(written)
        assert cells.count() == total
        for j, w in enumerate(written):
            cell = cells.nth(total - len(written) + j)
            assert cell.locator(".tape-tok").inner_text() == w["token"]
            mark = cell.locator(".tape-mark").inner_text()
            assert mark == ("●" if w["kind"] == "kept" else "◆")
    assert page.locator("#tape [data-out=passes]").inner_text() == "3"
    page.locator("#tape [data-act=reset]").click()
    assert cells.count() == 0
    assert page.console_errors == [] and page.foreign_requests == []


def test_keyboard_steps_the_draft_animation(page, live_url):
    _load(page, f"{live_url}/embed/en/specdec/draft/")
    _ready(page, "draft")
    page.locator("#draft [data-widget]").focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.locator("#draft .draft-slot.is-written").count() == 2
    assert page.locator("#draft .target-lane.is-lit").count() == 0


def test_tubes_fill_and_a_wrong_rule_changes_the_readout(page, live_url):
    _load(page, f"{live_url}/embed/en/specdec/exact/?rounds=1")
    _ready(page, "exact")
    w = page.locator("#exact [data-widget]")
    per_round = page.evaluate("() => fetch('/api/section/exact?lang=en&rounds=1').then(r => r.json())")["data"]["trials"]
    assert page.locator("#exact svg.tube--spec .ball").count() == per_round
    w.locator("[data-act=add]").click()
    page.wait_for_function("() => document.querySelector('#exact [data-widget]').dataset.rounds === '2'")
    # Two rounds: as many draws in each tube (drawn as balls, or as bars once there are many).
    draws = page.evaluate("""() => [...document.querySelectorAll('#exact svg.tube')].map(t =>
        t.dataset.draw === 'bars' ? Number(t.dataset.total) : t.querySelectorAll('.ball').length)""")
    assert draws == [2 * per_round, 2 * per_round]
    # The pour's counts sit in the section's "Go further" fold (how many draws it takes).
    open_fold(page, "exact-more")
    put_in = w.locator('[data-field="tubes.speculative.put_in"]')
    assert int(put_in.inner_text()) > 0
    w.locator("select[data-param=rule]").select_option("keep-draft")
    page.wait_for_function("() => document.querySelector('#exact [data-widget]').dataset.rule === 'keep-draft'")
    assert put_in.inner_text() == "0"
    assert page.locator("#exact .ball--put-in").count() == 0
    assert "rule=keep-draft" in page.url
    assert page.console_errors == []


def test_sliders_change_the_numbers(page, live_url):
    _load(page, f"{live_url}/embed/en/specdec/speedup/")
    page.locator("#speedup").scroll_into_view_if_needed()
    _ready(page, "speedup")
    open_fold(page, "speedup-more")     # one cycle's time is in the section's "Go further" fold
    out = page.locator('#speedup .spec-readout [data-field="theory.speedup"]')
    cycle = page.locator('#speedup [data-field="theory.cycle.draft"]')
    before, cyc = out.inner_text(), cycle.inner_text()
    page.locator("#speedup-c").fill("0.5")
    page.wait_for_function("(b) => document.querySelector('#speedup .spec-readout [data-field=\"theory.speedup\"]').textContent !== b", arg=before)
    assert cycle.inner_text() != cyc  # γc: 0.40 -> 2.00 at γ = 4
    assert "c=0.5" in page.url
    # A slower draft never raises the speed-up.
    assert float(out.inner_text().rstrip("×")) < float(before.rstrip("×"))
    page.wait_for_selector("#speedup .speedup-chart.is-drawn .main-svg", timeout=20000)
    assert page.console_errors == [] and page.foreign_requests == []


def test_alpha_follows_the_draft(page, live_url):
    _load(page, f"{live_url}/embed/en/specdec/alpha/")
    _ready(page, "alpha")
    a = page.locator('#alpha .spec-readout [data-field="alpha"]')
    before = a.inner_text()
    page.locator("#alpha select[data-param=draft]").select_option("trigram")
    page.wait_for_function("(b) => document.querySelector('#alpha .spec-readout [data-field=\"alpha\"]').textContent !== b", arg=before)
    assert a.inner_text() == "1.000"
