"""Three depths of explanation and "predict first" (issue 7), rendered by the server.

Every section at every depth in both languages: the story shows only at depth=story, the
frontier note only at depth=frontier, the Picture prose is hidden (by main[data-depth=story] and
depth.css) only at story; each section has a predict-first question with 2-3 options, exactly
one marked as the answer, and a <details> reveal. The switch is links that keep the other
settings; a bad depth falls back to picture with the page's notice.
"""
from __future__ import annotations

import re
from pathlib import Path
from html import unescape

import pytest

from views.sections import ANCHORS

# The Chinese pages that test_i18n, test_glossary and test_depths all read are rendered once per
# test process (conftest.page_html); on one worker, they are rendered once in all.
pytestmark = pytest.mark.xdist_group("zh-pages")

ROOT = Path(__file__).resolve().parents[1]

DEPTHS = ("story", "picture", "frontier")
LANGS = ("en", "zh")
HAN = re.compile(r"[\u4e00-\u9fff]")
# Four English words in a row: no Chinese reader should meet one in a story or a question.
ENGLISH_RUN = re.compile(r"[A-Za-z][A-Za-z’'\-]*(?:[ ,;:]+[A-Za-z][A-Za-z’'\-]*){3,}")
CITATION = re.compile(r"arXiv:\d{4}\.\d{4,5}|Inference Lab")


def text(fragment: str) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", fragment))).strip()


def sections(html: str) -> dict[str, str]:
    """anchor -> the HTML of its <section> (sections are not nested)."""
    out = {}
    for m in re.finditer(r'<section id="([a-z]+)" class="plate-section".*?</section>', html, re.S):
        out[m.group(1)] = m.group(0)
    return out


def note(section_html: str, kind: str) -> re.Match:
    m = re.search(r'<(div|aside) class="depth-note depth-note--%s" data-depth-show="%s"([^>]*)>(.*?)</\1>'
                  % (kind, kind), section_html, re.S)
    assert m, f"no {kind} note"
    return m


@pytest.fixture(scope="module")
def pages(page_html):
    # Rendered once per test process (conftest.page_html): test_i18n and test_glossary read the
    # same Chinese pages, and the three files run on one worker (xdist_group "zh-pages").
    out = {}
    for lang in LANGS:
        for depth in DEPTHS:
            out[lang, depth] = page_html(f"/{lang}/specdec/?depth={depth}")
        out[lang, None] = page_html(f"/{lang}/specdec/")
    return out


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("depth", DEPTHS)
def test_each_section_shows_what_its_depth_asks_for(pages, lang, depth):
    html = pages[lang, depth]
    assert f'<main id="main" tabindex="-1" data-depth="{depth}">' in html
    secs = sections(html)
    assert set(secs) == set(ANCHORS)
    for anchor, sec in secs.items():
        story, frontier = note(sec, "story"), note(sec, "frontier")
        assert ("hidden" in story.group(2)) == (depth != "story"), anchor
        assert ("hidden" in frontier.group(2)) == (depth != "frontier"), anchor
        assert text(story.group(3)) and text(frontier.group(3)), anchor
        # The notes and the question come before the interactive, the story after the heading.
        assert sec.index("<h2") < sec.index("depth-note--story") < sec.index('class="predict') \
            < sec.index('class="widget'), anchor


@pytest.mark.parametrize("lang", LANGS)
def test_default_depth_is_picture(pages, lang):
    html = pages[lang, None]
    assert 'data-depth="picture"' in html
    current = re.findall(r'data-depth-choice="(\w+)"[^>]*aria-current="true"', html)
    assert current == ["picture"]
    for sec in sections(html).values():
        assert "hidden" in note(sec, "story").group(2)
        assert "hidden" in note(sec, "frontier").group(2)


@pytest.mark.parametrize("lang", LANGS)
def test_every_section_asks_before_it_reveals(pages, lang):
    for anchor, sec in sections(pages[lang, "picture"]).items():
        m = re.search(r'<div class="predict(?: predict--has-story)?".*?</details>', sec, re.S)
        assert m, anchor
        block = m.group(0)
        options = re.findall(r'<li class="predict__opt( predict__opt--right)?">', block)
        assert 2 <= len(options) <= 3, anchor
        assert sum(1 for o in options if o) == 1, anchor          # exactly one right answer
        # Every option, and "I'm not sure" (issue 22: a reveal waits for a choice, and not knowing
        # is a choice).
        assert len(re.findall(rf'type="radio" name="predict-{anchor}"', block)) == len(options) + 1
        assert re.search(rf'name="predict-{anchor}" value="unsure"', block), anchor
        q = re.search(r'class="predict__q"[^>]*>(.*?)</p>', block, re.S)
        assert text(q.group(1)).endswith(("?", "？", "…")), (anchor, text(q.group(1)))
        answer = re.search(r"</summary>(.*?)</details>", block, re.S)
        assert len(text(answer.group(1))) > 40, anchor


@pytest.mark.parametrize("lang", LANGS)
def test_the_story_asks_in_words(pages, lang):
    """The Story depth promises no formulas (issue 14): each section's predict-first question has
    a version in words, shown at that depth instead of the Picture's; the widgets' formula
    readouts step aside there (static/css/widgets/depth.css)."""
    formula = re.compile(r"[=αγ×√Σ]|p/q|p\s*\(|\b[pqr]\b|min\(|max\(")
    for anchor, sec in sections(pages[lang, "story"]).items():
        story = re.search(r'<div class="predict predict--story".*?</details>', sec, re.S)
        assert story, anchor
        picture = re.search(r'<div class="predict predict--has-story"', sec)
        assert picture, anchor
        block = story.group(0)
        options = re.findall(r'<li class="predict__opt( predict__opt--right)?">', block)
        assert 2 <= len(options) <= 3 and sum(1 for o in options if o) == 1, anchor
        assert len(re.findall(rf'type="radio" name="predict-{anchor}-story"', block)) == len(options) + 1
        words = text(block)
        assert not formula.search(words), (lang, anchor, formula.search(words).group(0), words)
    css = (ROOT / "static" / "css" / "widgets" / "depth.css").read_text()
    assert 'main[data-depth="story"] .predict--has-story' in css
    assert 'main:not([data-depth="story"]) .predict--story' in css


@pytest.mark.parametrize("lang", LANGS)
def test_story_control_labels_keep_their_symbols_aside(pages, lang):
    # "每次前向的猜测数 γ" at the Story depth: a control's symbol is marked as formula, hidden there,
    # and what stays reads as words.
    html = pages[lang, "story"]
    labels = re.findall(r'class="control__label"[^>]*>((?:[^<]|<span class="depth-formula">[^<]*</span>)*)<', html)
    assert len(labels) > 20
    marked = 0
    for label in labels:
        marked += label.count('class="depth-formula"')
        words = text(re.sub(r'<span class="depth-formula">.*?</span>', "", label))
        assert not re.search(r"(?:^|\s)[γαnkdc](?=$|\s|[(（,，])", words), (lang, words)
    assert marked >= 5   # γ, n, k, d, c at least
    assert ".depth-formula" in (ROOT / "static" / "css" / "widgets" / "depth.css").read_text()


def test_stories_have_no_formulas_and_frontier_notes_cite(pages):
    for lang in LANGS:
        for anchor, sec in sections(pages[lang, "story"]).items():
            story = text(note(sec, "story").group(3))
            # A beginner's story: plain words, no symbols, no equations.
            assert not re.search(r"[=αγ×/√Σ]|p\s*\(|\bq\b", story), (lang, anchor, story)
            frontier = text(note(sec, "frontier").group(3))
            assert CITATION.search(frontier), (lang, anchor, frontier)


def test_chinese_depth_texts_are_chinese(pages):
    for anchor, sec in sections(pages["zh", "frontier"]).items():
        for kind in ("story", "frontier"):
            t = text(note(sec, kind).group(3))
            assert HAN.search(t), (anchor, kind, t)
            assert not ENGLISH_RUN.search(re.sub(r"\([^)]*arXiv[^)]*\)", "", t)), (anchor, kind, t)
        block = re.search(r'<div class="predict(?: predict--has-story)?".*?</details>', sec, re.S).group(0)
        assert HAN.search(text(block)) and not ENGLISH_RUN.search(text(block)), (anchor, text(block))


def test_the_switch_is_links_that_keep_the_other_settings(client):
    html = client.get("/en/specdec/?gamma=6&depth=frontier").get_data(as_text=True)
    links = dict(re.findall(r'data-depth-choice="(\w+)"\s+href="([^"]+)"', html))
    assert set(links) == set(DEPTHS)
    assert "gamma=6" in links["story"] and "depth=story" in unescape(links["story"])
    assert "gamma=6" in links["picture"] and "depth" not in links["picture"]
    # The language switch keeps the depth too.
    sw = re.search(r'id="lang-switch"[^>]*href="([^"]+)"', html) or \
        re.search(r'href="([^"]+)"[^>]*id="lang-switch"', html)
    href = re.search(r'<a class="lang-switch"[^>]*>', html).group(0)
    assert "/zh/specdec/" in href and "depth=frontier" in unescape(href), href
    assert sw


def test_bad_depth_falls_back_with_a_notice(client):
    r = client.get("/en/specdec/?depth=deep")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    notice = re.search(r'<div class="notice".*?</div>', html, re.S)
    assert notice and "<code>depth</code>" in notice.group(0)
    assert "story, picture, frontier" in notice.group(0)
    assert 'data-depth="picture"' in html


@pytest.mark.parametrize("depth", DEPTHS)
def test_embeds_take_the_depth(client, depth):
    whole = client.get(f"/embed/en/specdec/?depth={depth}").get_data(as_text=True)
    assert 'class="depth-switch"' in whole and f'data-depth="{depth}"' in whole
    one = client.get(f"/embed/zh/specdec/rule/?depth={depth}").get_data(as_text=True)
    assert 'class="depth-switch"' not in one           # a one-section embed has no switch
    story = re.search(r'depth-note--story" data-depth-show="story"([^>]*)>', one).group(1)
    frontier = re.search(r'depth-note--frontier" data-depth-show="frontier"([^>]*)>', one).group(1)
    assert ("hidden" in story) == (depth != "story")
    assert ("hidden" in frontier) == (depth != "frontier")
    assert one.index('class="predict') < one.index('class="widget')


@pytest.mark.parametrize("lang", LANGS)
def test_depth_texts_survive_missing_numbers(app, lang, monkeypatch):
    # If a section's numbers fail, the section says so, and its story and question still render
    # (only what needs the numbers drops out).
    from views import sections

    def broken(*_a):
        raise RuntimeError("boom")

    for unit in sections.UNITS:
        monkeypatch.setitem(sections.ANSWERS, unit, broken)
    client = app.test_client()
    for anchor in ANCHORS:
        html = client.get(f"/embed/{lang}/specdec/{anchor}/?depth=story").get_data(as_text=True)
        assert 'class="predict__q"' in html, anchor
        assert text(note(html, "story").group(3)), anchor
        assert sections.BY_ANCHOR[anchor].units == () or 'class="unavailable"' in html, anchor


# What depth.css hides at the Story depth (checked against the stylesheet below): the Picture's
# prose beside the heading and the interactive, the formula halves of readouts and questions, and
# the readouts that are formulas and nothing else.
STORY_HIDDEN = (".depth-formula", ".predict--has-story", ".gauge-num", ".draft-q", ".lane-p", ".residual",
                ".tube-read", ".tnode-num", ".trees-residual",
                # the tubes' test power and cap name wrong rules the Story depth cannot choose
                ".tube-power", ".tubes-cap", ".further__prose")
STORY_KEEPS = {"h1", "h2"}, {"widget", "section-lead", "section-tools"}
# Inside the section's lead (the prose or story beside the question), the Picture's prose and
# takeaway step aside too.
STORY_LEAD_HIDDEN = ".section-lead__text > :is(.prose, .takeaway)"
# A formula, or a readout that calls itself one.
FORMULA = re.compile(r"[=αγ×√Σ÷]|p/q|\b[pqrnick]\b|min\(|max\(|\b[Ff]ormulas?\b|公式")
# Allowed, each for a reason:
#  - a factor written after a number ("1.78×", "2.6–3.4×", "4× H100"): the glossary's form for a
#    speed-up or a count of chips in English (Chinese pages write 倍, tests/test_glossary.py);
#  - "=" / "≠" between two tokens in section 4's greedy comparison: a picture of "same" and
#    "different" (aria-hidden), not an equation.
#  - "n-gram" / "n 元组" and "top-k": names of a kind of model and of a tree, not symbols.
ALLOWED = re.compile(r"\d[\d.,–]*\s*×|\bn-grams?\b|\bn 元组|\btop-k\b")


def story_visible_text(section) -> str:
    for child in list(section.find_all(recursive=False)):
        if child.name in STORY_KEEPS[0] or set(child.get("class") or []) & STORY_KEEPS[1]:
            continue
        child.decompose()
    for el in section.select(".section-lead__text > .prose, .section-lead__text > .takeaway"):
        el.decompose()
    for el in section.select(", ".join(STORY_HIDDEN) + ", [hidden], script, template, .same-sign"):
        el.decompose()
    for el in section.select("[data-depth-show]"):
        if el.get("data-depth-show") != "story":
            el.decompose()
    # Not on the screen: SVG <title>s and title attributes are tooltips (a tree node's q and p on
    # hover), .sr-only text is for screen readers (section 7's strip reads each Σ min(p, q) aloud).
    for el in section.select(".sr-only"):
        el.decompose()
    for el in section.find_all("title"):
        el.decompose()
    return re.sub(r"\s+", " ", section.get_text(" ")).strip()


@pytest.mark.parametrize("lang", LANGS)
def test_the_story_shows_no_formulas(pages, lang):
    """Everything a reader sees at the Story depth, the widgets' readouts, legends, captions, select
    options and live text included, is in words (issue 14)."""
    from bs4 import BeautifulSoup
    css = (ROOT / "static" / "css" / "widgets" / "depth.css").read_text()
    for sel in STORY_HIDDEN:
        assert sel in css, sel
    assert ':not(h2, h1, .widget, .section-lead, .section-tools)' in css
    assert STORY_LEAD_HIDDEN in css
    soup = BeautifulSoup(pages[lang, "story"], "html.parser")
    secs = soup.select("section.plate-section")
    assert {s["id"] for s in secs} == set(ANCHORS)
    for sec in secs:
        anchor = sec["id"]
        words = ALLOWED.sub(" ", story_visible_text(sec))
        assert len(words) > 100, anchor
        m = FORMULA.search(words)
        assert not m, (lang, anchor, words[max(0, m.start() - 80):m.end() + 80])
