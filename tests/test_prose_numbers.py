"""Prose that follows the controls it names, and numbers printed as a person reads them (issue 20,
classes 4 and 5), plus the reality lines beside the ideal."""
from __future__ import annotations

import re
from html import unescape

import numpy as np
import pytest

from sim import params as P
from sim import roofline
from views import format as F
from views.sections import answer, live_html

DEFAULTS = {n: p.default for n, p in P.PAGE.items()}


def render(app, unit, lang="en", **values):
    with app.test_request_context(f"/{lang}/specdec/"):
        a = answer(unit, lang, {**DEFAULTS, **values})
        html = live_html(unit, a)
    return a, {k: unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", v))) for k, v in html.items()}


def test_pvalues_are_never_zero(app):
    with app.test_request_context("/en/specdec/"):
        assert F.fmt(0.0, "pvalue") == F.fmt(1e-300, "pvalue") == F.fmt(4.9e-11, "pvalue") == "< 10⁻⁶"
        assert F.fmt(2e-6, "pvalue") == F.fmt(2e-6, "prob") and F.fmt(0.42, "pvalue") == "0.420"
    # Section 6 with a wrong rule over 20 rounds: its p-value underflows to 0; the page says "< 10⁻⁶".
    a, t = render(app, "exact", rounds=20, rule="keep-draft")
    assert a["tubes"]["speculative"]["pvalue"] < 1e-6
    assert "< 10⁻⁶" in t["takeaway"] and "< 10⁻⁶" in t["read_spec"] and not re.search(r"p-value 0(?![.,]\d)", " ".join(t.values()))


def test_shares_are_not_rounded_to_zero_or_to_the_whole(app):
    with app.test_request_context("/en/specdec/"):
        assert F.pct(0.003, 0) == "0.3%" and F.pct(0.0003, 0) == "0.03%" and F.pct(0.22, 0) == "22%"
        assert F.pct(0.9996, 1) == "99.96%" and F.pct(1.0, 0) == "100%" and F.pct(0.0, 0) == "0%"
    # Section 2's takeaway at one stream: the readout's 0.3 %, not "0 %".
    a, t = render(app, "batch", batch=1)
    assert "0.3%" in t["takeaway"] and " 0% " not in t["takeaway"] + " "


def test_busy_only_only_when_the_arithmetic_is_mostly_idle(app):
    for lanes in (9, 120, 295):
        a, t = render(app, "reader", lanes=lanes)
        rd = a["reader"]
        if rd["past_ridge"]:
            continue
        # The sentence is in the section's "Go further" fold (live block "more"), issue 22.
        text = t["prose"] + t["more"] + t.get("answer", "")
        assert ("busy only" in text) == (not rd["mostly_busy"]), (lanes, rd["busy"])
        assert ("already busy" in text) == rd["mostly_busy"]


@pytest.mark.parametrize("gpus,model", [(1, "llama-3.1-8b"), (2, "llama-3.1-70b")])
def test_one_gpu_holds_two_gpus_hold(app, gpus, model):
    a, t = render(app, "batch", model=model, batch=1024, ctx=4096)
    assert a["capacity"]["gpus"] == gpus and not a["capacity"]["fits_on_gpus"]
    text = " ".join(t.values())
    assert ("SXM holds 80 GB" in text) == (gpus == 1) and ("SXM hold 160 GB" in text) == (gpus == 2)


def test_section_1_times_the_arithmetic_on_the_gpus_it_splits_the_model_over(app):
    a, t = render(app, "onebyone", model="llama-3.1-70b")
    o = a["onebyone"]
    assert o["gpus"] == 2
    step = roofline.decode_step("h100-sxm", "llama-3.1-70b", 1, 0)
    assert o["compute_us"] == pytest.approx(step["t_compute_s"] * 1e6 / 2)
    # The busy share is the arithmetic time over the step time, both on the same two GPUs.
    assert o["busy"] == pytest.approx(o["compute_us"] / (o["ideal_ms_per_token"] * 1e3), rel=1e-6)
    assert "2 GPUs' units" in t["more"]  # the arithmetic's sentence, in the section's fold


@pytest.mark.parametrize("draft,word", [("bigram", "bigram model (it reads one)"), ("unigram", "unigram model"),
                                        ("trigram", "the same trigram")])
def test_section_3_names_the_chosen_draft(app, draft, word):
    _a, t = render(app, "draft", draft=draft)
    assert word in t["more"]  # the models are named in the section's "Go further" fold


def test_section_7s_answer_compares_both_drafts_and_8_says_where_alpha_comes_from(app):
    from sim import pair
    a, t = render(app, "alpha", draft="unigram")
    assert a["compare"] == {"bigram": pair.alpha("en", "bigram"), "unigram": pair.alpha("en", "unigram")}
    assert F.num(a["compare"]["bigram"], 3) in t["answer"] and F.num(a["compare"]["unigram"], 3) in t["answer"]
    _a, t = render(app, "speedup", alpha=0.99)
    assert "measured above" not in t["prose"] and "You set" in t["prose"]
    _a, t = render(app, "speedup")
    # The section that measures α, by its number as the registry gives it (not a number written here).
    from views.sections import BY_ANCHOR
    assert f"measured in section {BY_ANCHOR['alpha'].num}" in t["prose"]


def test_section_11_names_the_depth_cap_and_the_dynamic_tree(app):
    a, t = render(app, "trees.budget", d=1, draft="trigram", k=8)
    assert a["depth_capped"] and "depth limit, d = 1" in t["budget_takeaway"]
    assert "cost more arithmetic" not in t["budget_takeaway"]
    # The readout names the tree it counts (EAGLE-2's dynamic tree), whatever the shape above.
    assert "dynamic tree (EAGLE-2)" in t["budget_readouts"]
    # EAGLE-2's shape takes the likeliest tokens and the exact check that goes with them.
    p = answer_of(app, "trees.pass", shape="dynamic")
    tb = answer_of(app, "trees.tubes")
    assert p["exact"] and tb["check"]["exact"]


def answer_of(app, unit, **values):
    with app.test_request_context("/en/specdec/"):
        return answer(unit, "en", {**DEFAULTS, **values})


def test_the_buttons_draw_counters_leave_every_other_section_alone(app):
    for name, unit in (("draw", "exact"), ("tpass", "trees.pass"), ("tdraw", "trees.tubes")):
        readers = [u for u in P.PAGE[name].sections]
        assert readers == [unit]
    base, moved = answer_of(app, "exact"), answer_of(app, "exact", draw=1)
    assert base["tube_cols"] != moved["tube_cols"]
    assert answer_of(app, "exact", draw=0)["tube_cols"] == base["tube_cols"]   # 0: the seed alone


def test_bench_presets_fit_and_set_what_they_depend_on(page_html, app):
    import json
    html = page_html("/en/specdec/")
    presets = [json.loads(unescape(p)) for p in re.findall(r"data-preset='(\{.*?\})'", html)]
    assert len(presets) == 4
    for p in presets:
        # Every value the bench's speed depends on (the GPU and model too: pressed after a GPU
        # was changed, a preset showed its point on that GPU), not only the ones it changes.
        assert {"draft", "greedy", "gamma", "batch", "ctx", "gpu", "model"} <= set(p), p
        a = answer_of(app, "bench", **p)
        assert a["fits"] and a["capacity"]["fits_on_gpus"], p


def test_achievable_bandwidth_sits_between_the_datasheet_and_the_engine():
    for key, (lo, hi) in roofline.ACHIEVABLE_BANDWIDTH.items():
        g = roofline.GPUS[key]
        a = roofline.achievable_bandwidth(key)
        assert lo < hi < g.bandwidth and a["mid"] == (lo + hi) / 2 and 0.75 < a["share"] < 0.9
    assert roofline.achievable_bandwidth("b200") is None and "mi300x" in roofline.ACHIEVABLE_NOTE


def test_section_1_draws_three_lines_and_names_the_one_in_use(app):
    from sim import published
    for eff, which in ((1.0, "ideal"), (0.88, "achievable"), (round(published.engine_efficiency(), 2), "engine"),
                       (0.5, "own")):
        a, t = render(app, "onebyone", eff=eff)
        assert a["engine"]["which"] == which, eff
        assert "What the memory delivers, measured" in t["reality"]
        assert "The speeds use" in t["eff_lines"]
    a, _t = render(app, "onebyone", eff=0.88)
    assert a["onebyone"]["achievable_tokens_per_s"] == pytest.approx(
        a["onebyone"]["ideal_tokens_per_s"] * roofline.achievable_bandwidth("h100-sxm")["share"])


def test_per_position_acceptance_as_vllm_counts_it():
    from sim.ngram import load_models
    from sim.speculative import generate, per_position_acceptance
    m = load_models("en")
    ctx = m["trigram"].encode([",", "when"])
    run = generate(m["trigram"], m["bigram"], ctx, 120, 4, np.random.default_rng(3))
    per = per_position_acceptance(run)
    assert len(per) == 4 and all(a >= b for a, b in zip(per, per[1:]))
    assert per[0] == pytest.approx(np.mean([s.n_accepted >= 1 for s in run.steps]))
    # Kept guesses per pass = the sum over positions.
    assert sum(per) == pytest.approx(np.mean([s.n_accepted for s in run.steps]))
