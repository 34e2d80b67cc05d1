"""/api/run, /api/tubes, /api/theory: answers, determinism, caps and parameter errors."""
from __future__ import annotations

import pytest

from sim.ngram import load_models


def get(client, path, **params):
    return client.get(path, query_string=params)


# ---- /api/run ---------------------------------------------------------------------------------

def test_same_seed_same_run(client):
    a = get(client, "/api/run", seed=7, gamma=3, tokens=30).get_json()
    b = get(client, "/api/run", seed=7, gamma=3, tokens=30).get_json()
    c = get(client, "/api/run", seed=8, gamma=3, tokens=30).get_json()
    assert a == b
    assert a["tokens"] != c["tokens"]  # 30 tokens from different seeds: equal only by a fluke


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("draft", ["bigram", "unigram", "trigram"])
def test_run_tokens_in_vocab_and_kinds_right(client, lang, draft):
    run = get(client, "/api/run", lang=lang, draft=draft, gamma=4, tokens=60, seed=3).get_json()
    vocab = set(load_models(lang)["trigram"].vocab)
    assert len(run["tokens"]) == 60
    assert set(run["tokens"]) <= vocab
    written = []
    for step in run["steps"]:
        kinds = [w["kind"] for w in step["written"]]
        n_kept = sum(p["accepted"] for p in step["proposals"])
        # Kept guesses first, then exactly one token of the target's own: a replacement after
        # a refusal, or the bonus when all γ passed.
        assert kinds == ["kept"] * n_kept + (["bonus"] if n_kept == 4 else ["replaced"])
        assert [w["token"] for w in step["written"][:n_kept]] == [g["token"] for g in step["guesses"][:n_kept]]
        assert len(step["guesses"]) == 4
        written += [w["token"] for w in step["written"]]
    assert written[:60] == run["tokens"]
    if draft == "trigram":  # the draft is the target: every guess passes (q = p, ratio 1)
        assert run["alpha"] == pytest.approx(1.0)
        assert all(w["kind"] != "replaced" for s in run["steps"] for w in s["written"])


def test_run_residual_rows_are_the_normalised_residual(client):
    run = get(client, "/api/run", gamma=4, tokens=80, seed=1).get_json()
    refused = [s for s in run["steps"] if s["replacement"] is not None]
    assert refused
    for s in refused:
        rows = s["residual_rows"]
        for r in rows:
            # residual = max(0, p − q) / Σ max(0, p − q); the sum is 1 − overlap.
            expect = max(0.0, r["p"] - r["q"]) / (1 - s["proposals"][-1]["overlap"])
            assert r["residual"] == pytest.approx(expect, rel=1e-9, abs=1e-12)
        assert any(r["refused"] and r["residual"] == 0 for r in rows)
        assert sum(r["drawn"] for r in rows) == 1


def test_run_greedy_has_no_r(client):
    run = get(client, "/api/run", greedy=1, tokens=20).get_json()
    assert all(p["r"] is None for s in run["steps"] for p in s["proposals"])


def test_run_gamma_zero_is_plain_decoding(client):
    run = get(client, "/api/run", gamma=0, tokens=10).get_json()
    assert run["passes"] == 10 and all(s["written"][0]["kind"] == "bonus" for s in run["steps"])


def test_run_custom_context(client):
    run = get(client, "/api/run", context="the Mock", tokens=5).get_json()
    assert run["context"] == ["the", "Mock"]


# ---- /api/tubes -------------------------------------------------------------------------------

def test_tubes_deterministic_and_prefix_stable(client):
    one = get(client, "/api/tubes", rounds=1, seed=5).get_json()
    two = get(client, "/api/tubes", rounds=2, seed=5).get_json()
    assert one == get(client, "/api/tubes", rounds=1, seed=5).get_json()
    # Adding a round keeps the rounds already drawn (the widget relies on this).
    assert two["samples"][0] == one["samples"][0]
    assert len(two["samples"]) == 2 and all(len(r["plain"]) == 50 for r in two["samples"])
    assert one["context"] == [",", "when"]
    sp = two["speculative"]
    assert sp["kept"] + sp["put_in"] == 100


def test_tubes_keep_draft_drifts_from_p(client):
    # 20 rounds of 200 trials = 4000 draws: the draft's q differs from p (0.09 vs 0.19 for "the"),
    # so keeping every guess must fail the chi-square test, while the exact rule must not.
    wrong = get(client, "/api/tubes", rule="keep-draft", rounds=20, trials=200, seed=2).get_json()
    right = get(client, "/api/tubes", rule="exact", rounds=20, trials=200, seed=2).get_json()
    assert wrong["speculative"]["pvalue"] < 1e-6
    assert wrong["speculative"]["put_in"] == 0
    assert right["speculative"]["pvalue"] > 1e-4


# ---- /api/theory ------------------------------------------------------------------------------

def test_theory_plate_numbers(client):
    th = get(client, "/api/theory", alpha=0.631, gamma=4, c=0.1).get_json()
    # (1 − 0.631^5) / (1 − 0.631) = 2.44; best γ = 3 at 1.75× (the seed plate's numbers).
    assert th["expected_tokens"] == pytest.approx(2.44, abs=0.005)
    assert th["best_gamma"] == 3 and th["best_speedup"] == pytest.approx(1.75, abs=0.01)
    assert th["cycle"] == {"draft": pytest.approx(0.4), "verify": 1.0, "total": pytest.approx(1.4),
                           "share": pytest.approx(100 * 0.4 / 1.4)}
    assert th["curve"]["gamma"] == list(range(1, 17))
    assert max(th["curve"]["speedup"]) == pytest.approx(th["best_speedup"])


# ---- errors and caps --------------------------------------------------------------------------

BAD = [
    ("/api/run", "gamma", "17"), ("/api/run", "gamma", "-1"), ("/api/run", "gamma", "two"),
    ("/api/run", "tokens", "201"), ("/api/run", "tokens", "0"), ("/api/run", "draft", "fourgram"),
    ("/api/run", "rule", "sloppy"), ("/api/run", "greedy", "maybe"), ("/api/run", "seed", "-5"),
    ("/api/run", "lang", "fr"), ("/api/run", "context", "x" * 201), ("/api/run", "bogus", "1"),
    ("/api/tubes", "rounds", "21"), ("/api/tubes", "trials", "201"), ("/api/tubes", "trials", "1.5"),
    ("/api/tubes", "rule", "nope"), ("/api/tubes", "gamma", "4"),
    ("/api/theory", "alpha", "1.5"), ("/api/theory", "alpha", "nan"), ("/api/theory", "c", "-0.1"),
    ("/api/theory", "gamma", "0"), ("/api/theory", "gamma", "17"), ("/api/theory", "seed", "1"),
]


@pytest.mark.parametrize("path,param,value", BAD)
def test_bad_parameter_is_400_naming_it(client, path, param, value):
    r = client.get(path, query_string={param: value})
    assert r.status_code == 400
    err = r.get_json()["error"]
    assert err["param"] == param
    assert err["allowed"] and err["message"]


def test_caps_at_the_limit_are_allowed(client):
    # tokens × (γ+1) ≤ 1800 for statistics alone, ≤ 900 with the trace of every pass.
    assert get(client, "/api/run", tokens=200, gamma=8, trace=0).status_code == 200
    assert get(client, "/api/run", tokens=105, gamma=16, trace=0).status_code == 200
    assert get(client, "/api/run", tokens=100, gamma=8).status_code == 200
    assert get(client, "/api/run", tokens=52, gamma=16).status_code == 200
    assert get(client, "/api/run", tokens=200, gamma=3).status_code == 200


def test_untraced_run_is_the_traced_run_without_its_passes(client):
    traced = get(client, "/api/run", tokens=60, gamma=5, seed=4).get_json()
    counted = get(client, "/api/run", tokens=60, gamma=5, seed=4, trace=0).get_json()
    assert "steps" not in counted and traced["steps"]
    assert counted["params"]["trace"] is False and traced["params"]["trace"] is True
    for key in ("tokens", "alpha", "acceptance_rate", "tokens_per_pass", "passes", "accepted_hist",
                "overlap", "tokens_per_pass_formula", "context"):
        assert counted[key] == traced[key], key
    assert get(client, "/api/tubes", rounds=20, trials=200).status_code == 200


@pytest.mark.parametrize("trace", [0, 1])
def test_greedy_run_reports_the_greedy_alpha(client, trace):
    # Under greedy decoding α is the share of positions where the arg-maxes agree, and the
    # formula built on it is the one the page compares with the count (issue 12).
    r = get(client, "/api/run", greedy=1, tokens=200 if not trace else 100, gamma=4, seed=1,
            trace=trace).get_json()
    assert r["alpha_measure"] == "agreement"
    assert len(r["agreement"]) == len(r["tokens"])
    assert all(isinstance(a, bool) for a in r["agreement"])
    assert r["alpha"] > 0.9  # the looping greedy text: almost every guess kept
    assert r["tokens_per_pass_formula"] > 4.5
    plain = get(client, "/api/run", greedy=0, tokens=100, gamma=4, seed=1, trace=trace).get_json()
    assert plain["alpha_measure"] == "overlap" and plain["agreement"] is None
