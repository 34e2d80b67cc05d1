"""Server-side rendering of sections 3–8: present, readable without scripts, numbers from sim."""
from __future__ import annotations

import re

import pytest

from views.sections_speculative import data, tube_view

ANCHORS = ("draft", "tape", "rule", "exact", "alpha", "speedup")


def test_data_numbers_agree_with_each_other():
    s = data("en", {"gamma": 4, "draft": "bigram", "seed": 1, "c": 0.1})["spec"]
    # The tape is the run flattened (the last pass may write past the tokens asked for).
    tokens = s["run"]["tokens"]
    assert [c["token"] for c in s["tape"]][:len(tokens)] == tokens
    assert len(tokens) <= len(s["tape"]) <= len(tokens) + s["gamma"]
    assert {c["kind"] for c in s["tape"]} <= {"kept", "replaced", "bonus"}
    # Section 8's α is the one measured in section 7, as printed (3 decimals, like the widget).
    assert s["theory"]["alpha"] == round(s["alpha"], 3)
    a = s["alpha"]
    assert s["alpha_formula"] == pytest.approx((1 - a ** 5) / (1 - a))
    assert 0.3 < a < 0.9  # bigram vs trigram on Alice: the plate reports 0.631
    # Section 5 opens on a pass with a refusal, whose residual rows are shown.
    assert s["rule_step"]["replacement"] is not None and s["rule_step"]["residual_rows"]


def test_data_follows_state():
    a = data("en", {"gamma": 2, "draft": "trigram", "seed": 3})["spec"]
    assert a["gamma"] == 2 and len(a["first"]["guesses"]) == 2
    assert a["alpha"] == pytest.approx(1.0)  # the draft is the target itself
    assert all(c["kind"] != "replaced" for c in a["tape"])


def test_tube_view_counts_add_up():
    s = data("en", {})["spec"]
    cols = tube_view(s["tubes"])
    n = s["tubes"]["rounds"] * s["tubes"]["trials"]
    assert sum(c["plain"] for c in cols) == n
    assert sum(c["kept"] + c["put_in"] for c in cols) == n
    assert sum(c["p"] for c in cols) == pytest.approx(1.0)
    assert cols[-1]["other"] and len(cols) == 8


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_has_every_speculative_section(client, lang):
    html = client.get(f"/{lang}/specdec/").get_data(as_text=True)
    for anchor in ANCHORS:
        assert f'id="{anchor}"' in html
        assert f'data-widget="{anchor}"' in html


@pytest.mark.parametrize("anchor", ANCHORS)
def test_embed_of_each_section(client, anchor):
    r = client.get(f"/embed/en/specdec/{anchor}/?gamma=3&seed=9")
    assert r.status_code == 200
    assert f'data-widget="{anchor}"' in r.get_data(as_text=True)


def test_tape_marks_match_the_run(client):
    html = client.get("/embed/en/specdec/tape/?seed=4&gamma=3").get_data(as_text=True)
    s = data("en", {"seed": 4, "gamma": 3})["spec"]
    kept = sum(c["kind"] == "kept" for c in s["tape"])
    target = len(s["tape"]) - kept
    assert len(re.findall(r'data-kind="kept"', html)) == kept
    assert len(re.findall(r'data-kind="(?:replaced|bonus)"', html)) == target
    # Dot under kept guesses, diamond under the target's own tokens.
    assert html.count("●</span>") >= kept and html.count("◆</span>") >= target


def test_state_in_url_reaches_the_prose(client):
    html = client.get("/en/specdec/?gamma=2&c=0.3").get_data(as_text=True)
    assert "γ = 2 times" in html
    assert 'value="0.3"' in html  # the c slider


def test_no_inline_scripts_or_handlers_in_my_sections(client):
    html = client.get("/embed/en/specdec/exact/").get_data(as_text=True)
    assert not re.search(r"\son[a-z]+=", html)
    assert not re.search(r"<script(?![^>]*(type=\"(application/json|module)\"))", html)
