"""Server-side rendering of sections 3–8: present, readable without scripts, numbers from sim."""
from __future__ import annotations

import re

import pytest

from sim import params as P
from views.sections import BY_ANCHOR, answer, live_html

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
    assert a["params"]["gamma"] == 2 and len(a["opening"]["guesses"]) == 2
    assert data(app, "alpha", gamma=2, draft="trigram", seed=3)["alpha"] == pytest.approx(1.0)
    assert all(c["kind"] != "replaced" for c in data(app, "tape", gamma=2, draft="trigram", seed=3)["tape"])
    # A copy of the target never refuses: section 5 says so instead of quoting a refusal.
    assert data(app, "rule", gamma=2, draft="trigram", seed=3)["refusal"]["shown"] is False


def test_only_section_6_runs_a_wrong_rule(page_html, app):
    # issue 11: the rule is section 6's; every other section runs the exact rule whatever the URL.
    assert data(app, "exact", rule="keep-draft")["tubes"]["rule"] == "keep-draft"
    for unit in ("draft", "tape", "rule", "bench"):
        assert {st["rule"] for st in data(app, unit, rule="keep-draft")["run"]["steps"]} == {"exact"}
    # The page's answers: every section other than 6 ran the exact rule.
    page = page_html("/en/specdec/?rule=keep-draft")
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
    cols = s["tube_cols"]   # tube_view of the draws; the draws themselves stay with /api/tubes
    assert "samples" not in s["tubes"]
    n = s["tubes"]["rounds"] * s["tubes"]["trials"]
    assert sum(c["plain"] for c in cols) == n
    assert sum(c["kept"] + c["put_in"] for c in cols) == n
    assert sum(c["p"] for c in cols) == pytest.approx(1.0)
    assert cols[-1]["other"] and len(cols) == 8


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page_has_every_speculative_section(page_html, lang):
    html = page_html(f"/{lang}/specdec/")
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


def test_state_in_url_reaches_the_prose(page_html):
    html = page_html("/en/specdec/?gamma=2&c=0.3")
    assert re.search(r'γ = <span class="num" data-field="params.gamma" data-fmt="num:0">2</span></span> times', html)
    assert 'value="0.3"' in html  # the c slider


def test_no_inline_scripts_or_handlers_in_my_sections(client):
    html = client.get("/embed/en/specdec/exact/").get_data(as_text=True)
    assert not re.search(r"\son[a-z]+=", html)
    assert not re.search(r"<script(?![^>]*(type=\"(application/json|module)\"))", html)


# ---- issue 12, the page side of the speculative sections --------------------------------------

import json  # noqa: E402

from markupsafe import Markup  # noqa: E402

from views.format import lookup  # noqa: E402
from views.sections import live_html  # noqa: E402

MINE = ("draft", "tape", "rule", "exact", "alpha", "parts", "bench", "lab")


def section_html(client, lang, query, anchor):
    html = client.get(f"/{lang}/specdec/{query}").get_data(as_text=True)
    m = re.search(r'<section id="%s".*?</section>' % anchor, html, re.S)
    assert m, anchor
    return m.group(0)


def visible(html):
    """The text a reader sees (answers' JSON and tags left out)."""
    from html import unescape
    html = re.sub(r"<script.*?</script>", "", html, flags=re.S)
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", html)))


def reads(sec):
    """A section's prose as a reader reads it: its first point, then the rest of its prose in its
    "Go further" fold (issue 22)."""
    parts = re.findall(r'data-live="(?:prose|more)">(.*?)</div>', sec, re.S)
    assert parts
    return visible(" ".join(parts))


def live(app, unit, a, lang="en"):
    with app.test_request_context(f"/{lang}/specdec/"):
        return live_html(unit, a)


def test_greedy_alpha_is_the_share_of_agreeing_positions(app, client):
    a = data(app, "alpha", greedy=True)
    assert a["measure"] == "agreement" and a["greedy"]
    # This run's own share (the pair's α, a["alpha"], is over the target's long greedy text).
    assert a["run"]["alpha"] == pytest.approx(a["agree"] / a["positions"])
    # The strip is coloured agree (4) / differ (0) only, from the run's agreements.
    assert {c["bucket"] for c in a["strip"]} <= {0, 4}
    assert all(c["bucket"] == (4 if c["agree"] else 0) for c in a["strip"])
    s = data(app, "alpha")
    assert s["measure"] == "overlap" and all(c["agree"] is None for c in s["strip"])
    raw = section_html(client, "en", "?greedy=1", "alpha")
    assert '<span class="ov-4">agree</span><span class="ov-0">differ</span>' in raw  # the strip's key
    sec = visible(raw)
    assert "share of positions where the two favourites agree" in sec
    assert f"agreed at {a['agree']} of its {a['positions']} positions" in sec
    assert "favourites agreed at that position" in sec
    assert "mean of Σ min(p, q) over a 200-token run" not in sec


def test_formula_against_count_blames_positions_only_when_they_differ(app):
    # Where the count lies within the run's scatter (two standard errors), the prose says they
    # agree and does not blame "every position is not equally easy"; outside it, it does.
    a = data(app, "alpha")
    assert a["check"]["agree"] and a["check"]["within"]
    # (The comparison is in the section's "Go further" fold, live block "more".)
    html = live(app, "alpha", a)["more"]
    assert "agree here" in html and "equally easy" not in html
    apart = {**a, "check": {**a["check"], "agree": False, "within": False, "exact": False}}
    html = live(app, "alpha", apart)["more"]
    assert "equally easy" in html and "agree here" not in html
    # A copy of the target: every pass writes γ + 1, no scatter, said in words (not "± 0.00").
    t = data(app, "alpha", draft="trigram")
    assert t["check"]["exact"] and "exactly as the formula says" in live(app, "alpha", t)["more"]


ZERO = re.compile(r"^[−-]?0(?:[.,]0+)?$")


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("query", ["", "?greedy=1", "?draft=unigram&seed=7", "?draft=unigram&greedy=1&gamma=8",
                                   "?tdraft=unigram&rule=keep-draft&rounds=1", "?draft=trigram&gamma=1"])
def test_no_probability_prints_as_zero(page_html, lang, query):
    """Every number of my sections that is not 0 reads as not 0 (issue 12: "q = 0.000",
    "p/q = 0.50" from two zeros), and the gauges' and lanes' p, q, r and p/q likewise."""
    html = page_html(f"/{lang}/specdec/{query}")
    for anchor in MINE:
        sec = re.search(r'<section id="%s".*?</section>' % anchor, html, re.S).group(0)
        answers = {u: json.loads(j) for u, j in re.findall(
            r'<script type="application/json" data-answer="([\w.]+)">(.*?)</script>', sec, re.S)}
        for path, fmt, text in re.findall(r'data-field="([^"]+)" data-fmt="([^"]+)">([^<]*)<', sec):
            if fmt in ("text", "case"):
                continue
            values = [lookup(a, path) for a in answers.values()]
            value = next((v for v in values if v is not None), None)
            if isinstance(value, (int, float)) and value != 0:
                assert not ZERO.match(text.strip()), (anchor, path, value, text)
        shown = visible(sec)
        assert not re.search(r"\b[pqr] = 0[.,]0+(?!\d)", shown), (anchor, re.findall(r".{30}[pqr] = 0[.,]0+(?!\d).{10}", shown))
        assert not re.search(r"p/q = 0[.,]0+(?!\d)", shown), anchor
        # A gauge's p/q is the chance of being kept: below 1 where it is printed as a number.
        for ratio in re.findall(r'class="gauge-num">p/q = ([\d.,]+)<', sec):
            assert float(ratio.replace(",", "")) < 1, (anchor, ratio)


def test_greedy_checks_show_the_two_favourites(app, client):
    r = data(app, "rule", greedy=True)
    checks = [p["greedy_check"] for st in r["run"]["steps"] for p in st["proposals"]]
    assert checks and all(c is not None for c in checks)
    sec = section_html(client, "en", "?greedy=1", "rule")
    gauges = re.search(r'<ol class="gauges">(.*?)</ol>', sec, re.S).group(1)
    # Cards, not columns with no r line: the draft's favourite and q beside the target's and p.
    assert 'class="gauge"' not in gauges and "r = " not in gauges
    for p in r["rule_step"]["proposals"]:
        gc = p["greedy_check"]
        assert gc["draft_top"] in gauges and gc["target_top"] in gauges
    assert gauges.count("gauge-item--greedy") == len(r["rule_step"]["proposals"])
    assert ("≠" in gauges) == any(not p["accepted"] for p in r["rule_step"]["proposals"])
    legend = re.search(r'data-live="legend">(.*?)</p>', sec, re.S).group(1)
    assert "favourite" in legend and "random number r" not in legend
    # The worked example names the two favourites, not a draw from the residual.
    prose = reads(sec)
    assert "from the residual instead" not in prose and "was not the target's" in prose
    # Sampling: the column and r line, and their legend.
    sec = section_html(client, "en", "", "rule")
    assert 'class="gauge"' in sec and "random number r" in sec and "gauge-item--greedy" not in sec
    # The bench's first view draws the last pass's gauges the same way, greedy or not.
    b = data(app, "bench", greedy=True)
    sec = section_html(client, "en", "?greedy=1", "bench")
    gauges = re.search(r'<ol class="gauges bench-gauges"[^>]*>(.*?)</ol>', sec, re.S).group(1)
    assert gauges.count("gauge-item--greedy") == len(b["last_step"]["proposals"]) > 0


def test_tape_answer_counts_tokens_written(app, client):
    t = data(app, "tape")
    written = sum(len(st["written"]) for st in t["run"]["steps"])
    assert t["written"] == written >= 40  # the run asks for 40; its last pass may write past them
    sec = section_html(client, "en", "", "tape")
    answer_block = re.search(r'data-live="answer">(.*?)</div>', sec, re.S).group(1)
    assert re.search(r'data-field="written" data-fmt="num:0">%d<' % written, answer_block)


def test_section_6_starts_with_enough_draws_to_catch_the_wrong_rules(app):
    # The default rounds × 200 draws catch both wrong rules 9 times in 10 (sim/tubes.py), and at
    # the default seed they are caught: p < 0.05 for every language and draft but the copy.
    assert P.PAGE["rounds"].default * 200 >= 1000
    for lang in ("en", "zh"):
        with app.test_request_context(f"/{lang}/specdec/"):
            for tdraft in ("bigram", "unigram"):
                st = {n: p.default for n, p in P.PAGE.items()}
                ex = answer("exact", lang, {**st, "tdraft": tdraft})
                assert not ex["tubes"]["power"]["too_few"] and ex["detectable"], (lang, tdraft)
                assert ex["tubes"]["speculative"]["pvalue"] >= 0.01, (lang, tdraft)  # exact: no alarm
                for rule in ("resample-target", "keep-draft"):
                    wrong = answer("exact", lang, {**st, "tdraft": tdraft, "rule": rule})
                    assert wrong["tubes"]["speculative"]["pvalue"] < 0.05, (lang, tdraft, rule)


def test_section_6_says_when_draws_are_too_few_and_why_rounds_stop(app, client):
    sec = visible(section_html(client, "zh", "?rounds=1", "exact"))
    a = data(app, "exact", rounds=1)
    assert a["draws"] == 200
    en = visible(section_html(client, "en", "?rounds=1&tdraft=unigram", "exact"))
    assert "too few to tell" in en and "Too few draws to tell" in en
    assert "抽取太少" in sec or "太少" in sec
    full = visible(section_html(client, "en", "", "exact"))
    assert "too few" not in full and "is a real result" in full
    assert "Rounds stop at 20 (4,000 draws a tube)" in full and "Add a round of 200" in full
    # With the copy of the target as draft, no number of draws can tell: it says so.
    copy = visible(section_html(client, "en", "?tdraft=trigram&rule=keep-draft", "exact"))
    assert "no number of draws can tell them apart" in copy and "too few" not in copy


def test_the_api_keeps_its_own_tubes_defaults(client):
    r = client.get("/api/tubes").get_json()
    assert r["rounds"] == 1 and r["trials"] == 50
    assert r["power"]["too_few"]  # and says so


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("tdraft", ["bigram", "unigram", "trigram"])
def test_greedy_speculative_is_plain_greedy_on_the_page(app, lang, tdraft):
    with app.test_request_context(f"/{lang}/specdec/"):
        gs = answer("exact", lang, {**{n: p.default for n, p in P.PAGE.items()}, "tdraft": tdraft})["greedy_same"]
    assert len(gs["rows"]) == gs["tokens"] and gs["same"] == gs["tokens"]
    assert all(r["plain"] == r["spec"] for r in gs["rows"])
    assert gs["spec_passes"] < gs["plain_passes"] == gs["tokens"]


@pytest.mark.parametrize("lang,words", [("en", {"draft": "small drum", "tape": "type head", "rule": "gauges on the bridge",
                                                "exact": "two tubes at the end of the bench"}),
                                        ("zh", {"draft": "小滚筒", "tape": "打字头", "rule": "桥架上的仪表", "exact": "两支试管"})])
def test_each_bench_part_is_introduced_in_its_section(client, lang, words):
    # The parts section says each part was shown in a section above: sections 3–6 introduce theirs
    # and point to it by its number, whatever the number is now.
    parts = str(BY_ANCHOR["parts"].num)
    for anchor, part in words.items():
        prose = reads(section_html(client, lang, "", anchor))
        assert part in prose and re.search(rf"\b{parts}\b|第 {parts} 节", prose), (anchor, part)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_section_of_mine_has_a_takeaway_with_live_numbers(page_html, lang):
    html = page_html(f"/{lang}/specdec/")
    for anchor in MINE:
        sec = re.search(r'<section id="%s".*?</section>' % anchor, html, re.S).group(0)
        m = re.search(r'<p class="takeaway live" data-live="takeaway">(.*?)</p>', sec, re.S)
        assert m and visible(m.group(1)).strip(), anchor
        if anchor != "parts":  # the parts' line is about the machine, not a run
            assert "data-field=" in m.group(1), anchor


def test_takeaways_follow_the_state(client):
    r = client.get("/api/section/tape?lang=en&gamma=2").get_json()
    assert "takeaway" in r["html"] and "γ + 1</span> = <span" in r["html"]["takeaway"]
    assert re.search(r'data-field="most" data-fmt="num:0">3<', r["html"]["takeaway"])
    # The lab's line follows its drafts' table (a part of the section).
    r = client.get("/api/section/lab.drafts?lang=en&gamma=3").get_json()
    assert "drafts_takeaway" in r["html"] and "fastest real draft" in r["html"]["drafts_takeaway"]
    assert r["data"]["best"] != "trigram"


def test_plural_forms_follow_live_numbers(page_html, client):
    html = page_html("/en/specdec/?gamma=1")
    text = " ".join(visible(section_html(client, "en", "?gamma=1", a)) for a in MINE)
    for wrong in ("γ = 1 times", "If all 1 guesses", "wrote 1 guesses", "wrote 1 tokens"):
        assert wrong not in text, wrong
    assert not re.search(r"(?<!\+ )\b1 (?:guesses|tokens)\b", text), re.findall(r".{40}\b1 (?:guesses|tokens)\b", text)
    assert "γ = 1 time," in text and "If the 1 guess passes" in text
    # The scripts' strings carry both forms (main.js picks one with Intl.PluralRules).
    i18n = json.loads(re.search(r'data-widget="tape"[^>]*data-i18n=\'([^\']*)\'', html).group(1)
                      .replace("&#34;", '"').replace("&quot;", '"').replace("&amp;", "&").replace("&#39;", "'"))
    assert i18n["status_replaced"]["one"].startswith("{n} guess kept")
    assert i18n["status_replaced"]["other"].startswith("{n} guesses kept")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_licence_and_the_inference_lab_source(page_html, lang):
    html = page_html(f"/{lang}/specdec/")
    assert 'href="https://creativecommons.org/licenses/by/4.0/"' in html and "CC BY 4.0" in html
    assert 'id="licence"' in html and 'href="#licence"' in html
    sources = re.search(r'<section id="sources".*?</section>', html, re.S).group(0)
    assert 'id="source-inference-lab"' in sources and "Inference Lab" in sources
    # The notes that cite it (six in my sections, more elsewhere) now have it listed.
    assert html.count("Inference Lab") >= 7


def test_reset_label_says_where_section_5_starts(app, client):
    assert data(app, "rule")["has_refusal"]
    assert "Back to the first refusal" in section_html(client, "en", "", "rule")
    assert not data(app, "rule", draft="trigram")["has_refusal"]
    assert "Back to the first pass" in section_html(client, "en", "?draft=trigram", "rule")


def test_lab_tubes_note_follows_a_repetitive_text(client):
    from tests.test_api_lab import REFRAIN
    book = client.get("/api/section/lab.tubes?lang=en").get_json()
    sha = client.post("/api/lab/text?lang=en", data=REFRAIN.encode(), content_type="text/plain").get_json()["text"]
    mine = client.get(f"/api/section/lab.tubes?lang=en&text={sha}").get_json()
    assert mine["data"]["context"] != book["data"]["context"]
    assert round(mine["data"]["overlap"], 2) != round(book["data"]["overlap"], 2)
    pct = f"{round(mine['data']['overlap'] * 100)}%"
    assert pct in mine["html"]["tubes_note"] and pct != f"{round(book['data']['overlap'] * 100)}%"


def test_markup_import_used():
    assert Markup  # (imported for readers of these tests: live_html returns strings of markup)


@pytest.mark.parametrize("query", ["", "?greedy=1&gamma=1"])
def test_chinese_sentences_of_a_paragraph_run_on(page_html, client, query):
    # Two translated sentences in one paragraph join with no space in Chinese ("。在这次…"),
    # with one in English; the prose, notes and answers of my sections.
    html = page_html(f"/zh/specdec/{query}")
    for anchor in MINE:
        sec = re.search(r'<section id="%s".*?</section>' % anchor, html, re.S).group(0)
        for par in re.findall(r"<p>.*?</p>", sec, re.S):
            text = re.sub(r"<[^>]+>", "", par)
            assert not re.search(r"[。；）][ \n]+[\u4e00-\u9fffA-Za-z“]", text), (anchor, text[:80])
    en = visible(section_html(client, "en", query, "alpha"))
    assert not re.search(r"[a-z][.][A-Z]", en)


def _satisfies(step, why):
    kept = [pr for pr in step["proposals"] if pr["accepted"]]
    refused = any(not pr["accepted"] for pr in step["proposals"])
    return {"sure": refused and bool(kept) and all(pr["accept_prob"] >= 1 for pr in kept),
            "mixed": refused and bool(kept), "refusal": refused, "first": True}[why]


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("state", [{}, {"gamma": 1}, {"gamma": 2}, {"gamma": 8}, {"gamma": 16},
                                   {"draft": "unigram"}, {"draft": "trigram"}, {"greedy": True},
                                   {"seed": 5}, {"seed": 11, "gamma": 3, "draft": "unigram"}])
def test_the_draft_section_opens_on_a_pass_chosen_from_the_run(app, lang, state):
    """The first picture of checking: the first pass that keeps guesses the target finds at least
    as likely as the draft (kept for certain) and refuses one, else the first that keeps one and
    refuses one, else the first refusal, else pass 1; no earlier pass fits a stronger choice."""
    with app.test_request_context(f"/{lang}/specdec/"):
        a = answer("draft", lang, {**{n: p.default for n, p in P.PAGE.items()}, **state})
        html = "".join(live_html("draft", a).values())
    steps, at, why = a["run"]["steps"], a["open"], a["open_why"]
    assert a["opening"] == steps[at] and a["open_num"] == at + 1
    order = ("mixed", "refusal", "first") if state.get("greedy") else ("sure", "mixed", "refusal", "first")
    assert why in order and _satisfies(steps[at], why)
    for stronger in order[:order.index(why) + 1]:
        assert not any(_satisfies(st, stronger) for st in steps[:at] if stronger != "first")
    for stronger in order[:order.index(why)]:
        assert not any(_satisfies(st, stronger) for st in steps)
    if why != "first":
        assert a["open_refused"] and a["open_replacement"] and a["open_replacement"] in html
    # What the pass is read after: the run's context and every token the earlier passes wrote.
    before = a["run"]["context"] + [w["token"] for st in steps[:at] for w in st["written"]]
    assert a["open_context"] == before[-8:]


def test_the_draft_sections_lanes_name_the_bonus_and_the_replacement(client):
    """The lane the bonus comes from names the token written there, and a refused lane what the
    target wrote instead (both server-rendered; the widget's script uses the same strings)."""
    for q, lang in (("draft=trigram", "en"), ("", "en"), ("draft=trigram", "zh")):
        page = client.get(f"/embed/{lang}/specdec/draft/?{q}").get_data(as_text=True)
        a = client.get(f"/api/section/draft?lang={lang}&{q}").get_json()["data"]
        step = a["opening"]
        lanes = re.search(r'<ol class="target-lanes">(.*?)</ol>', page, re.S).group(1)
        if step["bonus"]:
            assert f"“{step['bonus']}”" in lanes.split('<span class="lane-num">')[-1]
        if step["replacement"]:
            assert f"“{step['replacement']}”" in lanes


# ---- one run per state, as long as the sections asked so far need --------------------------------

@pytest.mark.parametrize("greedy", [False, True])
def test_a_section_asked_alone_runs_only_as_far_as_it_shows(app, greedy):
    """The tape alone (a control moved, a fresh seed) runs 40 tokens, not the 200 the α section
    measures; once α has asked for 200, the tape is cut from that run. Either way its answer is
    the same, in whichever order the sections were asked (Run.head is the shorter run)."""
    from views.sections import speculative as S
    seed = 918_273 + greedy              # a state no other test asks for
    S._RUNS.clear()
    alone = data(app, "tape", seed=seed, greedy=greedy)
    held = [r for k, r in S._RUNS.items() if k[-1] == seed]
    assert [len(r.tokens) for r in held] == [S.PAGE_RUN_TOKENS]
    data(app, "alpha", seed=seed, greedy=greedy)
    held = [r for k, r in S._RUNS.items() if k[-1] == seed]
    assert [len(r.tokens) for r in held] == [S.ALPHA_RUN_TOKENS]
    assert data(app, "tape", seed=seed, greedy=greedy) == alone
    assert data(app, "bench", seed=seed, greedy=greedy) == data(app, "bench", seed=seed, greedy=greedy)
    S._RUNS.clear()
    assert data(app, "tape", seed=seed, greedy=greedy) == alone


def test_the_runs_held_are_bounded(app):
    from views.sections import speculative as S
    S._RUNS.clear()
    for seed in range(700_000, 700_000 + S._RUNS.maxsize + 5):
        data(app, "tape", seed=seed)
    assert len(S._RUNS) == S._RUNS.maxsize
    S._RUNS.clear()
