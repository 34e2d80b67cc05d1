"""Figures quoted from papers say which version of the source they come from (a fact-check found
two drafting methods run together, a revised paper's figure given as the only one, a measured α
stretched to outputs that were never measured, and Medusa-2's two published ranges)."""
from __future__ import annotations

import re
from html import unescape

import pytest
from babel.numbers import format_decimal

from views.sections.roofline import PAPERS

LANGS = ("en", "zh")


def text(fragment: str) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", fragment))).strip()


def frontier(page: str, anchor: str) -> str:
    sec = re.search(r'<section id="%s" class="plate-section".*?</section>' % anchor, page, re.S)
    assert sec, anchor
    m = re.search(r'<(div|aside) class="depth-note depth-note--frontier"[^>]*>(.*?)</\1>', sec.group(0), re.S)
    assert m, anchor
    return text(m.group(2))


@pytest.fixture(scope="module")
def pages(app):
    client = app.test_client()
    out = {}
    for lang in LANGS:
        r = client.get(f"/{lang}/specdec/?depth=frontier")
        assert r.status_code == 200
        out[lang] = r.get_data(as_text=True)
    return out


@pytest.mark.parametrize("lang", LANGS)
def test_medusa2_shows_both_published_ranges_from_papers(app, lang):
    r = app.test_client().get(f"/embed/{lang}/specdec/selfdraft/")
    assert r.status_code == 200
    row = re.search(r'<tr data-row="medusa">(.*?)</tr>', r.get_data(as_text=True), re.S)
    assert row
    speed = text(re.findall(r"<td[^>]*>(.*?)</td>", row.group(1), re.S)[-1])
    figures = [format_decimal(PAPERS[k], format="#,##0.0", locale=lang)
               for k in ("medusa1", "medusa2_lo", "medusa2_hi", "medusa2_listing_hi")]
    # In this order: Medusa-1, the PDF's range for Medusa-2, then the listing's higher figure.
    at = [speed.find(f) for f in figures]
    assert -1 not in at and at == sorted(at), (speed, figures)
    assert PAPERS["medusa2_listing_hi"] > PAPERS["medusa2_hi"]


@pytest.mark.parametrize("lang", LANGS)
def test_draft_note_keeps_prompt_lookup_and_lookahead_apart(pages, lang):
    note = frontier(pages[lang], "draft")
    repo, paper = "github.com/apoorvumang/prompt-lookup-decoding", "arXiv:2402.02057"
    assert repo in note and paper in note
    # Each citation sits in its own clause (split at the semicolon), with Jacobi iteration
    # (雅可比) only beside lookahead's.
    clauses = re.split(r"[;；]", note)
    jacobi = "Jacobi" if lang == "en" else "雅可比"
    own = [c for c in clauses if paper in c]
    assert own and all(jacobi in c for c in own)
    assert not any(jacobi in c for c in clauses if repo in c)


@pytest.mark.parametrize("lang", LANGS)
def test_draft_and_verify_gives_both_versions(pages, lang):
    note = frontier(pages[lang], "selfdraft")
    clause = next(c for c in re.split(r"[;；]", note) if "arXiv:2309.08168" in c)
    assert "1.99" in clause and "1.73" in clause


@pytest.mark.parametrize("lang", LANGS)
def test_only_code_carries_the_measured_alpha(pages, lang):
    note = frontier(pages[lang], "alpha")
    assert "α = 0.95" in note
    code = "code" if lang == "en" else "代码"
    clause = next(c for c in re.split(r"[;；。]|\.\s", note) if "0.95" in c)
    assert code in clause and "JSON" not in clause
