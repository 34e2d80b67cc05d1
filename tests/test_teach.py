"""The teacher's page and how a page is shown (views/teach.py, sim/params.py SHOW)."""
from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit

import pytest
from bs4 import BeautifulSoup

from sim import params as P
from views.sections import SECTIONS
from views.teacher_notes import NOTES


def test_every_section_has_teacher_notes_in_both_languages(app):
    assert set(NOTES) == {s.anchor for s in SECTIONS}
    for lang in ("en", "zh"):
        with app.test_request_context(f"/{lang}/specdec/teach/"):
            from flask_babel import force_locale
            with force_locale(lang):
                for a, n in NOTES.items():
                    texts = [str(n.teaches), str(n.misconception), *map(str, n.questions)]
                    assert len(n.questions) == 2 and all(t.strip() for t in texts), a
                    if lang == "zh":
                        assert all(re.search(r"[\u4e00-\u9fff]", t) for t in texts), a


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_teacher_page_lists_notes_and_url_options(client, lang):
    r = client.get(f"/{lang}/specdec/teach/")
    assert r.status_code == 200
    soup = BeautifulSoup(r.data, "html.parser")
    notes = soup.select(".teach-note")
    assert [n["data-anchor"] for n in notes] == [s.anchor for s in SECTIONS]
    tape = soup.select_one("#note-tape")
    codes = [c.get_text() for c in tape.select(".teach-reads code")]
    assert codes == [n for n in P.reads("tape")] + ["depth"]
    assert soup.select_one("#teach-qr svg.qr") is not None


def test_teacher_page_gives_link_for_its_query(client):
    r = client.get("/en/specdec/teach/?sections=exact,tape&gamma=6&controls=locked&paused=1&view=projector&for=zh")
    soup = BeautifulSoup(r.data, "html.parser")
    link = urlsplit(soup.select_one("#teach-link")["value"])
    assert link.path == "/zh/specdec/"
    assert dict(parse_qsl(link.query)) == {"gamma": "6", "sections": "tape,exact", "controls": "locked",
                                           "paused": "1", "view": "projector"}
    picked = [i["value"] for i in soup.select('input[name="pick"][checked]')]
    assert picked == ["tape", "exact"]


def test_show_options_are_declared_and_bad_ones_are_named(client):
    assert set(P.SHOW) == {"sections", "controls", "paused", "view", "class"}
    assert not set(P.SHOW) & set(P.PAGE)
    r = client.get("/zh/specdec/?sections=tape,nosuch&controls=sideways")
    assert r.status_code == 200
    soup = BeautifulSoup(r.data, "html.parser")
    notice = soup.select_one(".notice").get_text()
    assert "sections" in notice and "nosuch" in notice and "controls" in notice
    # Every section is shown instead, with the settings shown.
    assert len(soup.select("section.plate-section")) == len(SECTIONS)
    assert soup.html.get("data-controls") is None


def test_page_shows_the_chosen_sections_as_chosen(client):
    r = client.get("/en/specdec/?sections=exact,tape&controls=hidden&paused=1")
    soup = BeautifulSoup(r.data, "html.parser")
    assert [s["id"] for s in soup.select("section.plate-section")] == ["tape", "exact"]
    assert [a["href"] for a in soup.select(".toc li:not(.toc-back) a")] == ["#tape", "#exact"]
    assert soup.html["data-controls"] == "hidden" and soup.html["data-paused"] == "1"
    # The language switch keeps how the page is shown.
    sw = dict(parse_qsl(urlsplit(soup.select_one("#lang-switch")["href"]).query))
    assert sw == {"sections": "tape,exact", "controls": "hidden", "paused": "1"}


def test_embed_keeps_show_options_and_ignores_sections(client):
    r = client.get("/embed/en/specdec/tape/?sections=exact&controls=locked&view=projector")
    soup = BeautifulSoup(r.data, "html.parser")
    assert soup.select_one("#tape") is not None
    assert soup.html["data-controls"] == "locked" and soup.html["data-view"] == "projector"


def test_render_cache_keys_on_show_options():
    # The render cache keys a page by the parameters it reads: how it is shown is among them, so a
    # locked lesson is never served to a reader of the plain embed, nor the other way round.
    from app import create_app
    app = create_app({"RENDER_CACHE": True})
    c = app.test_client()
    locked = c.get("/embed/en/specdec/draft/?controls=locked")
    plain = c.get("/embed/en/specdec/draft/")
    again = c.get("/embed/en/specdec/draft/?controls=locked")
    assert b'data-controls="locked"' in locked.data and b'data-controls=' not in plain.data
    assert again.data == locked.data


@pytest.mark.parametrize("link, code", [("/en/specdec/?sections=tape", 200), ("https://evil.example/", 400),
                                        ("//evil.example/", 400), ("/x" * 1500, 400)])
def test_qr_endpoint_draws_only_this_sites_links(client, link, code):
    r = client.get("/en/specdec/teach/qr.svg", query_string={"link": link})
    assert r.status_code == code
    if code == 200:
        assert r.mimetype == "image/svg+xml" and b"<path" in r.data
