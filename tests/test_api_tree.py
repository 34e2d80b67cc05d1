"""/api/tree, /api/tree/tubes and /api/tree/budget: the page's numbers, every cap refused with a
message in the reader's language naming a parameter the request gave, and the largest allowed
requests doing a bounded, counted amount of model work (CPU time: bench/cpu.py, README)."""
from __future__ import annotations

import re

import pytest

from sim import params as P
from sim.ngram import NGramModel, load_models
from views.sections import trees as st
from views.sections import answer

HAN = re.compile(r"[\u4e00-\u9fff]")


def test_defaults_and_determinism(client):
    a = client.get("/api/tree?seed=5").get_json()
    assert a == client.get("/api/tree?seed=5").get_json()
    assert a["plan"]["shape"] == "best" and a["plan"]["sampling"] == "wor" and a["plan"]["rule"] == "sequoia"
    assert a["exact"] and a["tokens_asked"] == 40 == len(a["tokens"]) and a["pass_no"] == 0
    assert a["context"] == [",", "when"] and len(a["pass"]["tree"]["mask"]) == 9
    # Absent, the sampling follows the shape and the rule the sampling (sim.tree.rules.NATURAL).
    d = client.get("/api/tree?shape=dynamic").get_json()
    assert d["plan"]["sampling"] == "top" and d["plan"]["rule"] == "pointmass" and d["exact"]
    g = client.get("/api/tree?greedy=1&shape=kary").get_json()
    assert g["plan"]["sampling"] == "top" and g["pass"]["greedy"]


def test_the_api_gives_the_page_s_run(app, client):
    q = {"draft": "unigram", "seed": 7, "n": 12, "k": 3, "d": 4, "shape": "kary", "sampling": "iid",
         "trule": "stale"}
    with app.test_request_context("/en/specdec/"):
        page = answer("trees.pass", "en", {**{n: p.default for n, p in P.PAGE.items()}, **q})
    api = client.get("/api/tree", query_string={**{k: v for k, v in q.items() if k != "trule"}, "rule": "stale",
                                                "trace": page["pass_no"]}).get_json()
    for key in ("tokens", "passes", "mean_acceptance_length", "acceptance_per_position", "log_line", "exact", "why"):
        assert api[key] == page[key], key
    assert api["pass"] == page["pass"]
    tubes = client.get("/api/tree/tubes?sampling=top&rule=specinfer&rounds=2&trials=50&seed=3").get_json()
    with app.test_request_context("/en/specdec/"):
        part = answer("trees.tubes", "en", {**{n: p.default for n, p in P.PAGE.items()},
                                            "sampling": "top", "trule": "specinfer", "trounds": 2, "seed": 3})
    assert tubes == part["tubes"]
    budget = client.get("/api/tree/budget?gpu=h200&batch=16&context=512&c=0.2&k=3&d=7").get_json()
    with app.test_request_context("/en/specdec/"):
        part = answer("trees.budget", "en", {**{n: p.default for n, p in P.PAGE.items()},
                                             "gpu": "h200", "batch": 16, "ctx": 512, "c": 0.2, "k": 3, "d": 7})
    assert budget["curves"]["best_tree"]["speedup"] == pytest.approx(part["verdict"]["best_tree"]["speedup"])
    assert budget["batch_scan"]["trees_stop_paying_batch"] == part["scan"]["trees_stop"]
    assert client.get("/api/tree/budget?ctx=512&gpu=h200&batch=16&c=0.2&k=3&d=7").get_json() == budget


@pytest.mark.parametrize("path,param,allowed", [
    ("/api/tree?n=65", "n", "an integer from 1 to 64"),
    ("/api/tree?k=9", "k", "an integer from 1 to 8"),
    ("/api/tree?d=17", "d", "an integer from 1 to 16"),
    ("/api/tree?tokens=201", "tokens", "an integer from 1 to 200"),
    # A tree of 64 fixed guesses: 2000 // (64 + 8) = 27 tokens.
    ("/api/tree?shape=kary&n=64&tokens=28", "tokens", "an integer from 1 to 27"),
    # EAGLE-2 with k 8 and d 16 makes 8 + 15 × 64 = 968 candidates a pass: 2400 // 968 = 2 tokens.
    ("/api/tree?shape=dynamic&k=8&d=16&tokens=3", "tokens", "an integer from 1 to 2"),
    ("/api/tree?shape=dynamic&sampling=iid", "sampling", "one of top"),
    ("/api/tree?greedy=1&sampling=wor", "sampling", "one of top"),
    ("/api/tree?shape=sequences&k=5&n=4", "n", "an integer from 5 to 64"),
    ("/api/tree?rule=exact", "rule", "one of naive, pointmass, specinfer, sequoia, stale"),
    ("/api/tree?trule=stale", "trule", None),                        # the page's name, not the API's
    ("/api/tree/tubes?rounds=5", "rounds", "an integer from 1 to 4"),  # 5 × 50 > 200 passes
    ("/api/tree/tubes?rounds=3&trials=80", "rounds", "an integer from 1 to 2"),
    ("/api/tree/tubes?trials=201", "trials", "an integer from 1 to 200"),
    ("/api/tree/tubes?k=9", "k", "an integer from 1 to 8"),
    ("/api/tree/budget?k=9", "k", "an integer from 1 to 8"),
    ("/api/tree/budget?d=17", "d", "an integer from 1 to 16"),
    ("/api/tree/budget?batch=1025", "batch", "an integer from 1 to 1024"),
    ("/api/tree/budget?n=8", "n", None),
])
def test_over_cap_and_bad_values_are_refused_in_the_reader_s_language(client, path, param, allowed):
    for lang in ("en", "zh"):
        r = client.get(path, headers={"Accept-Language": lang})
        assert r.status_code == 400, path
        err = r.get_json()["error"]
        assert err["param"] == param
        if allowed and lang == "en":
            assert err["allowed"] == allowed
        assert bool(HAN.search(err["message"])) == (lang == "zh"), err["message"]


def test_a_pass_past_the_run_is_refused(client):
    a = client.get("/api/tree?seed=2&tokens=10").get_json()
    last = a["passes"] - 1
    assert client.get(f"/api/tree?seed=2&tokens=10&trace={last}").status_code == 200
    r = client.get(f"/api/tree?seed=2&tokens=10&trace={last + 1}", headers={"Accept-Language": "zh"})
    err = r.get_json()["error"]
    assert r.status_code == 400 and err["param"] == "trace" and str(last) in err["allowed"]
    assert HAN.search(err["message"]) and str(last + 1) in err["message"]


class Reads:
    """Counts the models' distribution reads (every one goes through NGramModel.sparse here)."""

    def __init__(self, monkeypatch):
        self.n = 0
        real = NGramModel.sparse

        def sparse(model, context=()):
            self.n += 1
            return real(model, context)
        monkeypatch.setattr(NGramModel, "sparse", sparse)
        for lang in ("en", "zh"):
            for m in load_models(lang).values():
                m.clear_caches()


@pytest.mark.parametrize("query", [
    {"shape": "chain", "n": 64, "d": 16}, {"shape": "kary", "n": 64, "k": 8, "d": 16, "sampling": "iid"},
    {"shape": "best", "n": 64, "d": 16}, {"shape": "sequences", "n": 64, "k": 8, "sampling": "top"},
    {"shape": "dynamic", "n": 64, "k": 8, "d": 16}, {"shape": "dynamic", "n": 64, "k": 4, "d": 16},
])
def test_the_largest_runs_read_the_models_a_bounded_number_of_times(client, monkeypatch, query):
    client.get("/api/tree", query_string={**query, "lang": "zh"})     # acceptance and contexts, kept per process
    reads = Reads(monkeypatch)
    r = client.get("/api/tree", query_string={**query, "lang": "zh", "seed": 11, "context": "说" * 200})
    assert r.status_code == 200
    a = r.get_json()
    n, k, d = query["n"], query.get("k", 4), query["d"] if "d" in query else 5
    assert a["tokens_asked"] == st.tokens_cap(query["shape"], n, k, d)
    # By hand, per pass: the draft is read once at each node that has children (≤ n + 1; EAGLE-2:
    # once at the root and at each of the k best of d − 1 levels, 1 + (d − 1)k), the target once at
    # each node the walk visits (≤ d + 1); the traced pass reads the target once more at each node
    # with children (≤ n + 1). Every pass writes a token, so there are at most tokens passes.
    draft = 1 + (d - 1) * k if query["shape"] == "dynamic" else n + 1
    walk = (d if query["shape"] != "sequences" else n // k) + 1
    assert 1 <= a["passes"] <= a["tokens_asked"]
    assert reads.n <= a["passes"] * (draft + walk) + n + 1, reads.n


def test_tubes_at_the_cap_draw_200_passes(client):
    a = client.get("/api/tree/tubes?rounds=4&trials=50&k=8&sampling=iid&rule=sequoia").get_json()
    assert a["rounds"] * a["trials"] == P.TREE_TUBE_PASSES == sum(a["tree"]["counts"].values())
    assert a["tree"]["kept"] + a["tree"]["put_in"] == 200 and a["exact"] is False
    assert a["context"] == ["it", "."] and len(a["samples"]) == 4
