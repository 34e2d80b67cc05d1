"""Server-side rendering of sections 3–8: present, readable without scripts, numbers from sim."""
from __future__ import annotations

import re

import pytest

from sim import params as P
from views.sections import answer
from views.sections_speculative import tube_view

ANCHORS = ("draft", "tape", "rule", "exact", "alpha", "speedup")


def data(app, unit, **values):
    """The unit's answer for the defaults changed by ``values``, as the page computes it."""
    with app.test_request_context("/en/specdec/"):
        return answer(unit, "en", {**{n: p.default for n, p in P.PAGE.items()}, **values})


def test_data_numbers_agree_with_each_other(app):
    t = data(app, "tape", gamma=4, draft="bigram", seed=1, c=0.1)
    # The tape is the run flattened (the last pass may write past the tokens asked for).
    tokens = t["run"]["tokens"]
    assert [c["token"] for c in t["tape"]][:len(tokens)] == tokens
    assert len(tokens) <= t["written"] == len(t["tape"]) <= len(tokens) + 4
    assert {c["kind"] for c in t["tape"]} <= {"kept", "replaced", "bonus"}
    # Section 8's α is the one measured in section 7, as printed (3 decimals, like the widget).
    al = data(app, "alpha", gamma=4, seed=1)
    assert data(app, "speedup", gamma=4, seed=1, c=0.1)["theory"]["alpha"] == round(al["alpha"], 3)
    a = al["alpha"]
    assert al["formula"] == pytest.approx((1 - a ** 5) / (1 - a))
    assert 0.3 < a < 0.9  # bigram vs trigram on Alice: the plate reports 0.631
    # Section 5 opens on a pass with a refusal, whose residual rows are shown.
    r = data(app, "rule", gamma=4, seed=1)
    assert r["rule_step"]["replacement"] is not None and r["rule_step"]["residual_rows"]
    assert r["refusal"]["shown"] and r["refusal"]["pass"] == r["rule_pass"] + 1


def test_data_follows_state(app):
    a = data(app, "draft", gamma=2, draft="trigram", seed=3)
    assert a["params"]["gamma"] == 2 and len(a["first"]["guesses"]) == 2
    assert data(app, "alpha", gamma=2, draft="trigram", seed=3)["alpha"] == pytest.approx(1.0)
    assert all(c["kind"] != "replaced" for c in data(app, "tape", gamma=2, draft="trigram", seed=3)["tape"])
    # A copy of the target never refuses: section 5 says so instead of quoting a refusal.
    assert data(app, "rule", gamma=2, draft="trigram", seed=3)["refusal"]["shown"] is False


def test_only_section_6_runs_a_wrong_rule(app, client):
    # issue 11: the rule is section 6's; every other section runs the exact rule whatever the URL.
    assert data(app, "exact", rule="keep-draft")["tubes"]["rule"] == "keep-draft"
    for unit in ("draft", "tape", "rule", "bench"):
        assert {st["rule"] for st in data(app, unit, rule="keep-draft")["run"]["steps"]} == {"exact"}
    # The page's answers: every section other than 6 ran the exact rule.
    page = client.get("/en/specdec/?rule=keep-draft").get_data(as_text=True)
    answers = dict(re.findall(r'<script type="application/json" data-answer="([\w.]+)">(.*?)</script>', page, re.S))
    import json
    for unit, raw in answers.items():
        if unit.startswith("trees."):
            continue   # section 11's tree rules are its own (`trule`), never the chain's
        rules = set(re.findall(r'"rule": "([\w-]+)"', raw))
        assert rules <= ({"keep-draft"} if unit == "exact" else {"exact"}), unit
    assert '"rule": "keep-draft"' in answers["exact"]


def test_tube_view_counts_add_up(app):
    s = data(app, "exact")
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


def test_tape_marks_match_the_run(app, client):
    html = client.get("/embed/en/specdec/tape/?seed=4&gamma=3").get_data(as_text=True)
    s = data(app, "tape", seed=4, gamma=3)
    kept = sum(c["kind"] == "kept" for c in s["tape"])
    target = len(s["tape"]) - kept
    assert len(re.findall(r'data-kind="kept"', html)) == kept
    assert len(re.findall(r'data-kind="(?:replaced|bonus)"', html)) == target
    # Dot under kept guesses, diamond under the target's own tokens.
    assert html.count("●</span>") >= kept and html.count("◆</span>") >= target


def test_state_in_url_reaches_the_prose(client):
    html = client.get("/en/specdec/?gamma=2&c=0.3").get_data(as_text=True)
    assert re.search(r'γ = <span class="num" data-field="params.gamma" data-fmt="num:0">2</span> times', html)
    assert 'value="0.3"' in html  # the c slider


def test_no_inline_scripts_or_handlers_in_my_sections(client):
    html = client.get("/embed/en/specdec/exact/").get_data(as_text=True)
    assert not re.search(r"\son[a-z]+=", html)
    assert not re.search(r"<script(?![^>]*(type=\"(application/json|module)\"))", html)
