"""One state, one renderer (issue 11), checked on the server: the page ships the declarations of
sim/params.py as they are; every number that depends on the state is a live field; each section
reads only its own parameters; a failing section fails alone; the page asks nothing on load."""
from __future__ import annotations

import functools
import html as htmllib
import json
import logging
import re

import pytest
from bs4 import BeautifulSoup

from sim import params as P
from views.sections import ANSWERS, BY_ANCHOR, SECTIONS, UNITS, reads

LANGS = ("en", "zh")


def shipped(page: str, id_: str) -> dict:
    m = re.search(rf'<script type="application/json" id="{id_}">(.*?)</script>', page, re.S)
    return json.loads(m.group(1))


def test_the_page_ships_the_declarations_as_they_are(client):
    page = client.get("/en/specdec/").get_data(as_text=True)
    got = shipped(page, "params")
    for name, p in P.PAGE.items():
        sent = dict(got["params"][name])
        # In words for a reader: through a catalog (English here), long bounds grouped (131,072).
        assert sent.pop("allowed") == p.allowed(lambda m: m)
        assert sent == json.loads(json.dumps(p.to_json())), name
    assert set(got["params"]) == set(P.PAGE)
    assert got["units"] == {u: list(P.reads(u)) for u in UNITS}
    assert got["sections"] == {s.anchor: list(reads(s)) for s in SECTIONS}
    # The state the page was rendered for, typed, with every parameter.
    state = shipped(client.get("/en/specdec/?gamma=6&greedy=1&c=0.25").get_data(as_text=True), "state")
    assert state == {**{n: p.default for n, p in P.PAGE.items()}, "gamma": 6, "greedy": True, "c": 0.25}


def test_the_choices_on_the_page_are_the_declared_ones(client):
    page = client.get("/en/specdec/").get_data(as_text=True)
    for select in re.findall(r'<select id="[^"]+" data-param="(\w+)">(.*?)</select>', page, re.S):
        name, body = select
        values = re.findall(r'<option value="([^"]+)"', body)
        p = P.PAGE[name]
        want = [str(v) for v in range(p.lo, p.hi + 1)] if p.kind == "int" else list(p.choices)
        assert values == want, name


def test_each_answer_sees_only_what_its_unit_reads(app, monkeypatch):
    # An answer function is handed its unit's parameters and nothing else: asking for anything
    # else fails loudly, so a section cannot quietly depend on another section's control.
    from views import sections
    seen = {}
    for unit in UNITS:
        real = ANSWERS[unit]

        def spy(lang, v, real=real, unit=unit):
            seen[unit] = set(v)
            return real(lang, v)
        monkeypatch.setitem(sections.ANSWERS, unit, spy)
    client = app.test_client()
    assert client.get("/en/specdec/").status_code == 200
    assert seen == {u: set(P.reads(u)) for u in UNITS}


def _text_outside_live_fields(page: str) -> str:
    """The text of a page with every live block (the server renders it again for each new
    answer), every live field, every script-drawn part and the data for the scripts taken out:
    what would go stale if it depended on the state."""
    soup = BeautifulSoup(page, "html.parser")
    for el in soup.select("script, [data-live], [data-field]," + DRAWN):
        el.decompose()
    return " ".join(soup.get_text(" ").split())


# What the scripts draw from the answer's data as a reader steps or plays (tapes, gauges, tubes,
# the first pass of section 3, the stepping readouts): drawn again from each new answer.
DRAWN = ", ".join([
    ".draft-stage", ".spec-status", "ol.tape", ".spec-tape .spec-readout", ".rule-pass", "ol.gauges",
    "figure.residual", "svg.tube", ".bench-counted", "[data-out]", "option", "text.rf-token-count",
])


STATES = [
    {},
    {"gpu": "b200", "model": "llama-3.1-70b", "batch": 512, "ctx": 0, "lanes": 300, "gamma": 7,
     "draft": "unigram", "greedy": "1", "rule": "keep-draft", "tdraft": "trigram", "rounds": "3",
     "seed": "9", "c": "0.6", "alpha": "0.85", "ldraft": "lookup", "adapt": "hf", "eff": "0.5",
     "n": "40", "k": "7", "d": "9", "shape": "dynamic", "sampling": "iid", "trule": "stale", "trounds": "3"},
]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("anchor", [s.anchor for s in SECTIONS])
def test_every_number_that_follows_the_state_is_live(client, lang, anchor):
    # Render the section for two very different states: once every live block, live field and
    # drawn part is taken out, the text must not differ. So whatever changes with a control is in
    # a block the server renders again for the new answer, and the page keeps all of it current.
    pages = []
    for state in STATES:
        q = "&".join(f"{k}={v}" for k, v in state.items())
        pages.append(client.get(f"/embed/{lang}/specdec/{anchor}/?{q}").get_data(as_text=True))
    a, b = (_text_outside_live_fields(p) for p in pages)
    if a != b:
        import difflib
        diff = [d for d in difflib.ndiff(a.split(" "), b.split(" ")) if d[:1] in "+-"]
        pytest.fail(f"{anchor}: text outside live fields changed with the state: {diff[:20]}")


@pytest.fixture(scope="module")
def page_soup(page_html):
    """The parsed page at a URL, rendered and parsed once (the test below only reads it)."""
    return functools.cache(lambda url: BeautifulSoup(page_html(url), "html.parser"))


@pytest.mark.parametrize("unit", UNITS)
def test_the_live_text_of_an_answer_is_the_page_s(client, page_soup, unit):
    # What /api/section answers for a state is what the page renders for it, block by block.
    # The answer is asked with only the unit's own parameters, the page is one page with all four
    # set: a section reads only its own, so it shows the same (and one page is parsed, not nine).
    anchor = unit.partition(".")[0]
    everything = "gamma=6&seed=3&c=0.3&batch=128"
    q = "&".join(kv for kv in everything.split("&") if kv.split("=")[0] in P.reads(unit))
    api = client.get(f"/api/section/{unit}?lang=zh&{q}").get_json()
    section = page_soup(f"/zh/specdec/?{everything}").select_one(f"#{anchor}")
    assert api["html"], unit
    for name, markup in api["html"].items():
        blocks = section.select(f'[data-live="{name}"]')
        assert blocks, (unit, name)
        for block in blocks:
            assert " ".join(block.get_text(" ").split()) == \
                " ".join(BeautifulSoup(markup, "html.parser").get_text(" ").split()), (unit, name)


# Each case renders a whole plate (about 0.25 s of CPU): every unit fails once, in one language,
# the languages taking turns, so both languages' notices are read.
@pytest.mark.parametrize("lang,unit", [(LANGS[i % len(LANGS)], u) for i, u in enumerate(UNITS)])
def test_a_failing_section_fails_alone(app, lang, unit, monkeypatch, caplog):
    from views import sections
    client = app.test_client()

    def broken(*_a):
        raise RuntimeError("deliberate failure in " + unit)
    with monkeypatch.context() as m:
        m.setitem(sections.ANSWERS, unit, broken)
        caplog.clear()
        with caplog.at_level(logging.ERROR):
            r = client.get(f"/{lang}/specdec/")
    assert r.status_code == 200, unit
    page = r.get_data(as_text=True)
    anchor = unit.partition(".")[0]
    body = page.split(f'<section id="{anchor}"', 1)[1].split("</section>", 1)[0]
    assert 'class="unavailable"' in body and 'data-failed="1"' in body, unit
    notice = re.search(r'class="unavailable"[^>]*>([^<]+)<', body).group(1)
    assert bool(re.search(r"[\u4e00-\u9fff]", notice)) == (lang == "zh"), notice
    # Every other section rendered whole, and the error is in the log.
    assert page.count('class="unavailable"') == 1, unit
    assert page.count('data-failed="1"') == 1
    assert any(unit in rec.getMessage() for rec in caplog.records), unit


def test_a_failing_answer_is_a_json_error_not_a_page(app, monkeypatch):
    from views import sections

    def broken(*_a):
        raise RuntimeError("deliberate")
    monkeypatch.setitem(sections.ANSWERS, "tape", broken)
    r = app.test_client().get("/api/section/tape?lang=zh")
    assert r.status_code == 500 and r.is_json
    assert re.search(r"[\u4e00-\u9fff]", r.get_json()["error"]["message"])


def test_the_embed_of_a_section_carries_only_what_it_reads(client):
    q = "gamma=6&draft=unigram&seed=7&alpha=0.286&rule=resample-target&batch=256&gpu=h200&tdraft=trigram"
    page = client.get(f"/en/specdec/?{q}").get_data(as_text=True)
    links = dict(re.findall(r'data-section="(\w+)"[^>]*href="/embed/en/specdec/\w+/\??([^"]*)"', page, re.S))
    for anchor, query in links.items():
        names = {kv.split("=")[0] for kv in htmllib.unescape(query).split("&") if kv}
        assert names <= set(reads(BY_ANCHOR[anchor])), (anchor, names)
    # The `idle` section takes the pair's α (or a pinned one), no run of its own: no seed.
    assert htmllib.unescape(links["idle"]) == "gpu=h200&batch=256&gamma=6&draft=unigram&alpha=0.286"
    assert htmllib.unescape(links["exact"]) == "rule=resample-target&tdraft=trigram&seed=7"
    assert links["onebyone"] == "gpu=h200"
    assert links["parts"] == ""


def test_unknown_unit_and_foreign_parameters_are_refused(client):
    assert client.get("/api/section/nope").status_code == 404
    r = client.get("/api/section/tape?rule=keep-draft")   # section 4 does not read the rule
    assert r.status_code == 400 and r.get_json()["error"]["param"] == "rule"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("anchor", [s.anchor for s in SECTIONS if s.units])
def test_numbers_in_live_text_are_marked_fields(client, lang, anchor):
    # Inside live blocks every number that follows the state is written by field(), so a test (or
    # a reader comparing the prose with a readout) can tell where it came from: with the fields
    # taken out, the bare numbers left in each block are the same for two far-apart states (the
    # fixed figures of the text: papers' results, section numbers, formula constants).
    def bare(page):
        soup = BeautifulSoup(page, "html.parser")
        out = {}
        for block in soup.select(f"#{anchor} [data-live]"):
            for f in block.select("[data-field], .math"):   # fields, and formulas' constants
                f.decompose()
            text = " ".join(block.get_text(" ").split())
            # The words without their numbers: where a state writes other sentences (a note that
            # the streams do not fit), the two are not compared.
            out[block["data-live"]] = (re.sub(r"\d+(?:[.,]\d+)*", "#", text),
                                       sorted(re.findall(r"\d+(?:[.,]\d+)*", text)))
        return out
    # Numbers change, the choices do not (so the same sentences are written in both).
    numbers = {"batch": 96, "ctx": 8192, "lanes": 13, "gamma": 7, "seed": 5, "c": 0.37, "alpha": 0.71,
               "rounds": 3, "eff": 0.8}
    a, b = (bare(client.get(f"/embed/{lang}/specdec/{anchor}/?" + "&".join(f"{k}={v}" for k, v in st.items()))
                 .get_data(as_text=True)) for st in ({}, numbers))
    differ = {k: (v[1], b[k][1]) for k, v in a.items() if k in b and v[0] == b[k][0] and v[1] != b[k][1]}
    assert differ == {}, differ
