"""The caps on request size hold: over-cap values are refused, and the largest allowed request
does a bounded, counted amount of model work (counted, never timed: CPU times are measured by
bench/cpu.py and reported in the README).

Work is counted by wrapping `NGramModel.sparse` and `NGramModel.dist` (every model evaluation
goes through one of them) and by the misses of each model's distribution caches (the builds).
"""
from __future__ import annotations

import itertools

import pytest

from sim.ngram import NGramModel, load_models
from views.api import speculative as spec_api

CAPS = {"tokens": 200, "rounds": 20, "trials": 200, "gamma": 16}


def test_caps_are_the_agreed_ones():
    from sim import params as P
    assert (P.TOKENS_MAX, P.ROUNDS_MAX, P.TRIALS_MAX, P.GAMMA_MAX) == \
        (CAPS["tokens"], CAPS["rounds"], CAPS["trials"], CAPS["gamma"])
    assert (P.API_RUN["tokens"].hi, P.API_TUBES["rounds"].hi, P.API_TUBES["trials"].hi,
            P.API_RUN["gamma"].hi) == tuple(CAPS.values())


@pytest.mark.parametrize("path,param", [
    ("/api/run?tokens=201", "tokens"),
    ("/api/run?tokens=1000000", "tokens"),
    ("/api/run?gamma=17", "gamma"),
    ("/api/run?gamma=-1", "gamma"),
    ("/api/tubes?rounds=21", "rounds"),
    ("/api/tubes?trials=201", "trials"),
    ("/api/tubes?trials=0", "trials"),
    ("/api/theory?gamma=17", "gamma"),
    ("/api/dist?top=101", "top"),
    ("/api/run?context=" + "a" * 201, "context"),
    ("/api/tubes?context=" + "说" * 201, "context"),
    ("/api/roofline?batch=1025", "batch"),
    ("/api/roofline?lanes=513", "lanes"),
    ("/api/roofline?ctx=131073", "ctx"),
    ("/api/run?seed=" + "9" * 2000, "seed"),
])
def test_over_cap_values_are_refused(client, path, param):
    r = client.get(path)
    assert r.status_code == 400
    err = r.get_json()["error"]
    assert err["param"] == param
    assert err["allowed"]


class Counter:
    """Counts model evaluations and cache misses (distribution builds) across all six models."""

    def __init__(self, monkeypatch):
        # The default contexts are chosen from the data once per process (sim.examples caches
        # them, gunicorn.conf.py computes them before the workers fork): not per-request work.
        from views.sections.shared import default_context
        for lang in ("en", "zh"):
            default_context(lang)
        self.dist = 0
        self.sparse = 0
        real_dist, real_sparse = NGramModel.dist, NGramModel.sparse

        def dist(model, context=()):
            self.dist += 1
            return real_dist(model, context)

        def sparse(model, context=()):
            self.sparse += 1
            return real_sparse(model, context)

        monkeypatch.setattr(NGramModel, "dist", dist)
        monkeypatch.setattr(NGramModel, "sparse", sparse)
        self.models = [m for lang in ("en", "zh") for m in load_models(lang).values()]
        for m in self.models:  # cold caches: the worst case a request can meet
            m.clear_caches()

    @property
    def builds(self) -> int:
        return sum(m.sparse_memo.misses + m.dist_memo.misses
                   for m in self.models)

    @property
    def dense_builds(self) -> int:
        return sum(m.dist_memo.misses for m in self.models)


LARGEST_RUNS = [
    dict(lang=lang, draft=draft, greedy=greedy, rule=rule)
    for lang, draft, greedy, rule in itertools.product(
        ("en", "zh"), ("unigram", "bigram"), (0, 1), ("exact", "keep-draft"))
    # keep-draft never refuses, so greedy adds nothing new there
    if not (greedy and rule == "keep-draft")
]


@pytest.mark.parametrize("trace", [1, 0])
@pytest.mark.parametrize("args", LARGEST_RUNS, ids=lambda a: "-".join(map(str, a.values())))
def test_largest_run_does_bounded_work(client, monkeypatch, args, trace):
    gamma = CAPS["gamma"]
    # The joint cap at γ = 16: 900 // 17 = 52 tokens traced, 1800 // 17 = 105 counted only.
    tokens = (spec_api.MAX_TRACED_POSITIONS if trace else spec_api.MAX_POSITIONS) // (gamma + 1)
    count = Counter(monkeypatch)
    r = client.get("/api/run", query_string={**args, "tokens": tokens, "gamma": gamma, "trace": trace,
                                             "seed": 7, "context": "x" * 200})
    assert r.status_code == 200
    body = r.get_json()
    passes = body["passes"]
    assert ("steps" in body) == bool(trace)
    # Every pass writes at least one token, so there are at most `tokens` passes.
    assert 1 <= passes <= tokens
    assert len(body["tokens"]) == tokens
    # Per pass (by hand, from sim/speculative.py and views/sections/speculative.py): the draft
    # reads γ contexts; the target reads at most γ+1 positions; writing reads both models at the
    # bonus position; the trace re-reads the γ target positions for the guesses. That is at most
    # γ + (γ+1) + 2 + γ = 3γ + 3 reads; 8(γ+1) leaves room for a trace field added later without
    # letting the work run away.
    per_pass = 8 * (gamma + 1)
    assert count.dist + count.sparse <= passes * per_pass, (count.dist, count.sparse, passes)
    # Builds: a pass touches at most γ+1 distinct contexts per model (two models): 2(γ+1).
    assert count.builds <= passes * 2 * (gamma + 1)
    # The loop never builds a whole O(V) vector: only sparse distributions.
    assert count.dense_builds == 0
    # And in absolute terms, the most any run request can cost on cold caches:
    assert count.dist + count.sparse <= spec_api.MAX_POSITIONS * 8  # 14,400


def test_tokens_and_gamma_are_capped_jointly(client):
    # Counted only: 200 tokens up to γ = 8 (200 × 9 = 1800 positions); at γ = 16, 1800 // 17 = 105.
    assert client.get("/api/run?tokens=200&gamma=8&trace=0").status_code == 200
    assert client.get("/api/run?tokens=105&gamma=16&trace=0").status_code == 200
    r = client.get("/api/run?tokens=106&gamma=16&trace=0")
    assert r.status_code == 400
    err = r.get_json()["error"]
    assert err["param"] == "tokens" and err["allowed"] == "an integer from 1 to 105"
    assert err["message"] == "tokens must be an integer from 1 to 105 when γ is 16; 106 is out of range."
    # Traced: 900 positions, so 100 tokens at γ = 8 (900 // 9) and 52 at γ = 16 (900 // 17).
    assert client.get("/api/run?tokens=100&gamma=8").status_code == 200
    r = client.get("/api/run?tokens=101&gamma=8")
    assert r.status_code == 400
    assert r.get_json()["error"]["allowed"] == "an integer from 1 to 100"
    assert "every pass is traced" in r.get_json()["error"]["message"]
    assert client.get("/api/run?tokens=53&gamma=16").status_code == 400


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_largest_tubes_does_two_model_reads(client, monkeypatch, lang):
    count = Counter(monkeypatch)
    rounds, trials = CAPS["rounds"], CAPS["trials"]
    r = client.get("/api/tubes", query_string={"lang": lang, "rounds": rounds, "trials": trials,
                                               "draft": "unigram", "seed": 3})
    assert r.status_code == 200
    body = r.get_json()
    # p and q are read once at the context; every trial after that is a vectorised draw.
    assert count.dist == 2 and count.sparse == 0
    assert count.dense_builds <= 2  # each dense vector is built from its sparse form: 4 builds in all
    assert count.builds <= 4
    assert len(body["samples"]) == rounds
    assert all(len(s["plain"]) == trials and len(s["speculative"]) == trials
               for s in body["samples"])
    assert sum(body["plain"]["counts"].values()) == rounds * trials


def test_dist_reads_one_distribution(client, monkeypatch):
    count = Counter(monkeypatch)
    r = client.get("/api/dist", query_string={"context": "the " * 50, "top": 100})
    assert r.status_code == 200
    assert count.dist == 1 and count.dense_builds <= 1 and count.builds <= 2
    assert len(r.get_json()["probs"]) == 100


def test_theory_does_no_model_work(client, monkeypatch):
    count = Counter(monkeypatch)
    r = client.get("/api/theory", query_string={"gamma": CAPS["gamma"], "alpha": 0.99, "c": 1})
    assert r.status_code == 200
    assert count.dist == count.sparse == count.builds == 0
