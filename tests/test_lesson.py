"""The plate as a lesson (issue 22), rendered by the server: the order of the sections, the
"Go further" folds (closed by default, open at the Frontier depth or when the URL's `more` names
them, their prose following the state), committed predictions, and γ on a slider."""
from __future__ import annotations

import re

import pytest

from sim import params as P
from views.sections import ANCHORS, BY_ANCHOR, SECTIONS

LANGS = ("en", "zh")


def page(page_html, lang="en", query=""):
    # Rendered once per test process and URL (conftest.page_html): these tests only read it.
    return page_html(f"/{lang}/specdec/{query}")


def folds(html):
    return dict(re.findall(r'<details class="further[^"]*" id="([\w-]+)" data-further="[\w-]+"( open)?>', html))


def test_inside_the_reader_follows_the_batch_and_numbers_follow_the_registry(page_html):
    assert [s.anchor for s in SECTIONS][:4] == ["onebyone", "batch", "reader", "draft"]
    assert [s.num for s in SECTIONS] == list(range(1, len(SECTIONS) + 1))
    html = page(page_html)
    order = re.findall(r'<section id="(\w+)" class="plate-section"', html)
    assert order == list(ANCHORS)
    # The back matter's links name sections by the registry's numbers, not by written ones.
    assert f"See section {BY_ANCHOR['draft'].num}, “Let a small model guess”" in html
    assert f"第 {BY_ANCHOR['idle'].num} 节" in page(page_html, "zh")


@pytest.mark.parametrize("lang", LANGS)
def test_folds_are_closed_by_default_and_open_at_the_frontier(page_html, lang):
    closed = folds(page(page_html, lang))
    assert {"trees-budget", "trees-tubes", "onebyone-measured", "idle-more", "back-more"} <= set(closed)
    assert not any(closed.values())
    assert all(folds(page(page_html, lang, "?depth=frontier")).values())
    some = folds(page(page_html, lang, "?more=trees-budget,idle-more"))
    assert {k for k, v in some.items() if v} == {"idle-more", "trees-budget"}


def test_every_section_but_the_static_and_the_bench_has_its_fold(page_html):
    html = page(page_html)
    have = {f.split("-")[0] for f in folds(html)}
    # The parts diagram and the bench (sections 13 and 14) are the bench engineer's.
    assert have >= set(ANCHORS) - {"parts", "bench"}


def test_more_is_declared_and_a_bad_value_is_refused_in_words(page_html):
    assert "more" in P.PAGE and P.PAGE["more"].sections == ()
    html = page(page_html, "en", "?more=Not%20a%20fold!")
    assert "more" in html and "notice" in html
    assert not any(folds(html).values())


def test_a_folds_prose_follows_the_state(page_html, client):
    """The prose moved into a fold is a live block: the section's answer renders it again."""
    r = client.get("/api/section/draft?lang=en&gamma=7").get_json()
    assert "more" in r["html"] and "γ = " in r["html"]["more"] and ">7<" in r["html"]["more"]
    assert 'data-live="more"' in page(page_html)


@pytest.mark.parametrize("lang", LANGS)
def test_every_prediction_offers_not_sure_and_waits_for_a_choice(page_html, lang):
    html = page(page_html, lang)
    blocks = re.findall(r'<div class="predict[^"]*"[^>]*data-predict="([\w-]+)">(.*?)</details>', html, re.S)
    assert len(blocks) == 2 * len(ANCHORS)
    for key, block in blocks:
        assert f'name="predict-{key}" value="unsure"' in block, key
        assert 'class="predict__hint"' in block and 'class="predict__yours"' in block, key


def test_the_numeric_questions_ask_for_a_guess_and_carry_the_true_number(page_html):
    html = page(page_html)
    for anchor in ("alpha", "tape", "speedup", "idle"):
        sec = re.search(rf'<section id="{anchor}".*?</section>', html, re.S).group(0)
        assert 'class="predict__guess-range"' in sec, anchor
        truth = re.search(r'<data class="predict__truth" value="([\d.]+)"', sec)
        assert truth and float(truth.group(1)) > 0, anchor


def test_gamma_is_a_range_input_with_a_typed_box_wherever_it_is_set(page_html):
    assert P.PAGE["gamma"].lo == 1 and P.PAGE["gamma"].hi == 16
    html = page(page_html)
    for anchor in ANCHORS:
        sec = re.search(rf'<section id="{anchor}".*?</section>', html, re.S).group(0)
        controls = re.findall(r'<(input|select)\b[^>]*data-param="gamma"[^>]*>', sec)
        if not controls:
            continue
        assert re.search(r'<input type="range"[^>]*data-param="gamma"[^>]*max="16"', sec), anchor
        assert re.search(r'<input type="number" class="slider-typed"[^>]*data-param="gamma"', sec), anchor
        assert "select" not in controls, anchor


def test_the_parts_are_named_before_section_1(page_html):
    html = page(page_html)
    intro = html.index('class="intro-parts"')
    assert intro < html.index('<section id="onebyone"')
    fig = html[intro:html.index("</figure>", intro)]
    for anchor in ("onebyone", "draft", "exact", "reader", "idle", "batch", "rule", "tape"):
        num = "%02d" % BY_ANCHOR[anchor].num
        assert re.search(rf'href="#{anchor}">.*?<tspan class="parts-num">{num}</tspan>', fig, re.S), anchor
