"""One figure per quantity and setting (issue 20), read from the page as a reader sees it.

At the defaults and a dozen other states, in both languages, every section that prints the draft's α,
the formula's tokens per pass, section 9's best γ or its speed-up prints the same figure for it; the
runs' own counts are labelled as theirs and are not read here. And the buttons that draw afresh
(section 6's refill, section 11's next pass) change only their own section; the lab's "Back to the
book" goes back to the book.
"""
from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest

from tests.browser.util import load, open_fold, settle

pytestmark = pytest.mark.browser

# (section, data-field) of every place a quantity is printed (views/sections_*.py answer paths).
ALPHA = [("alpha", "alpha"), ("speedup", "measured"), ("speedup", "theory.alpha"), ("idle", "idle.alpha"),
         ("bench", "pair.alpha"), ("trees", "alpha"), ("lab", "pair_alpha")]
TOKENS_PER_PASS = [("alpha", "formula"), ("bench", "pair.tokens_per_pass")]
SPEEDUP = [("idle", "idle.speedup"), ("bench", "speedup")]

STATES = ["", "gamma=1", "gamma=8", "seed=7", "draft=unigram", "draft=unigram&gamma=2&seed=3", "greedy=1",
          "batch=8&ctx=1024", "c=0.3&gamma=6", "gpu=a100-sxm-80gb", "model=llama-3.2-1b&batch=4", "draft=trigram",
          "batch=1"]


def figures(page, places):
    """{(section, path): [texts]} of every element printing that path in that section."""
    out = {}
    for sec, path in places:
        texts = page.eval_on_selector_all(f'section#{sec} [data-field="{path}"]',
                                          "els => els.map(e => e.textContent.trim())")
        if texts:
            out[(sec, path)] = texts
    return out


def bare(text: str) -> str:
    """The figure without its unit: "1.76×", "1.76 倍" and "1.76" (in "1.76 times as fast") are one."""
    return text.replace("×", "").replace("倍", "").strip()


def one(found: dict, what: str, state: str) -> str:
    values = {bare(t) for texts in found.values() for t in texts}
    assert len(values) == 1, (what, state, found)
    return values.pop()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_one_alpha_tokens_per_pass_best_gamma_and_speedup_everywhere(page, live_url, lang):
    for state in STATES:
        load(page, f"{live_url}/{lang}/specdec/?{state}")
        q = dict(parse_qsl(state))
        greedy = q.get("greedy") == "1"
        alpha_places = [p for p in ALPHA
                        # Section 11's trees sample (no greedy there); the lab's draft is its own
                        # control (bigram unless set), and it reads no greedy either.
                        if not (greedy and p[0] in ("trees", "lab"))
                        and not (p[0] == "lab" and q.get("draft", "bigram") != "bigram")]
        found = figures(page, alpha_places)
        assert {s for s, _ in found} >= {"alpha", "speedup", "idle", "bench"}, (state, found)
        one(found, "alpha", state)
        tpp = figures(page, TOKENS_PER_PASS)
        assert len(tpp) == 2, (state, tpp)
        one(tpp, "tokens per pass", state)
        sp = figures(page, SPEEDUP)
        assert len(sp) == 2, (state, sp)
        one(sp, "speed-up", state)
        if not greedy:
            # Section 9's best γ and its speed-up; section 11's best chain is the same chain (n and
            # speed-up), or the page says it takes the draft's likeliest tokens and quotes section
            # 9's in words.
            likeliest = page.locator('section#trees [data-field="likeliest_chain_wins"]').count()
            where = "section9" if likeliest else "verdict.best_chain"
            best = figures(page, [("idle", "idle.best.gamma"), ("trees", f"{where}.gamma" if likeliest else f"{where}.n")])
            assert len(best) == 2, (state, best)
            one(best, "best gamma", state)
            best_sp = figures(page, [("idle", "idle.best.speedup"), ("trees", f"{where}.speedup")])
            assert len(best_sp) == 2, (state, best_sp)
            one(best_sp, "best speed-up", state)


def test_alpha_stays_when_gamma_and_seed_change(page, live_url):
    """A control change re-renders the sections, and the pair's α stays where it was."""
    load(page, f"{live_url}/en/specdec/#alpha")
    before = one(figures(page, ALPHA), "alpha", "defaults")
    page.locator("#alpha-gamma").fill("8")  # a slider: fill sets its value and sends input
    settle(page)
    page.locator("section#bench").scroll_into_view_if_needed()
    settle(page)
    assert "gamma=8" in page.url
    assert one(figures(page, [p for p in ALPHA if p[0] in ("alpha", "bench")]), "alpha", "gamma=8") == before


def state_of(url: str) -> dict:
    return dict(parse_qsl(urlsplit(url).query))


def test_refill_and_next_pass_change_only_their_own_section(page, live_url):
    load(page, f"{live_url}/en/specdec/#exact")
    other = [("alpha", "run.alpha"), ("tape", "written"), ("bench", "run.alpha")]
    before = figures(page, other)
    page.click("section#exact [data-act=refill]")
    settle(page)
    assert state_of(page.url) == {"draw": "1"}
    page.locator("section#trees").scroll_into_view_if_needed()
    page.click("section#trees [data-act=new-pass]")
    settle(page)
    open_fold(page, "trees-tubes")  # the tree's tubes sit in the section's "Go further" fold
    page.click("section#trees [data-act=refill]")
    settle(page)
    state = state_of(page.url)
    state.pop("more", None)  # the open fold is kept in the link too
    assert state == {"draw": "1", "tpass": "1", "tdraw": "1"}
    assert figures(page, other) == before


def test_back_to_the_book(page, live_url):
    page.goto(f"{live_url}/en/specdec/#lab")
    page.wait_for_selector("html[data-ready='1']")
    page.wait_for_selector("[data-widget=lab][data-state=mounted]")
    page.fill("#lab-textarea", "Round the hill and back again, round the hill we go. " * 30)
    page.click("[data-act=use-text]")
    page.wait_for_selector("[data-widget=lab][data-source=text]", timeout=60_000)
    assert "text=" in page.url
    page.click("[data-act=use-book]")
    page.wait_for_selector("[data-widget=lab]:not([data-source=text])", timeout=60_000)
    assert "text=" not in page.url
