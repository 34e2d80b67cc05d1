"""CPU time of the costliest requests the API allows, measured in-process (no network).

Each request runs with the render cache off and, for "cold", the models' distribution caches
cleared first: the worst a single request can cost. Prints the median and the maximum of the
process CPU time (time.process_time) over a few repetitions. Usage: python3 bench/cpu.py [N] [--tree]

The token-tree section (issue 13) has no route yet; ``TREE_CALLS`` times the sim calls a route
would make at candidate caps, so the caps can be chosen within the same budget (``--tree``: only
those).
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app import create_app  # noqa: E402
from sim.ngram import load_models  # noqa: E402
from corpus.text import LANGS

REQUESTS = [
    ("/api/run, traced at the caps (52 tokens, γ 16), unigram",
     "/api/run?tokens=52&gamma=16&draft=unigram&context=" + "x" * 200),
    ("/api/run, traced at the caps (100 tokens, γ 8), unigram", "/api/run?tokens=100&gamma=8&draft=unigram"),
    ("/api/run, traced at the caps (52 tokens, γ 16), bigram, zh",
     "/api/run?lang=zh&tokens=52&gamma=16&draft=bigram"),
    ("/api/run, counts only at the caps (105 tokens, γ 16), unigram",
     "/api/run?tokens=105&gamma=16&draft=unigram&trace=0"),
    ("/api/run, counts only (200 tokens, γ 8): sections 7-8",
     "/api/run?tokens=200&gamma=8&trace=0"),
    ("/api/run, a widget's request (40 tokens, γ 4)", "/api/run?tokens=40&gamma=4"),
    ("/api/tubes, caps (20 rounds × 200 trials)", "/api/tubes?rounds=20&trials=200"),
    ("/api/dist, top 100", "/api/dist?top=100&context=the"),
    ("/api/theory", "/api/theory?gamma=16"),
    ("/api/roofline", "/api/roofline?batch=1024&ctx=131072"),
    ("/api/lab/breakeven", "/api/lab/breakeven?gamma=16"),
    ("/api/lab/run, 200 tokens, γ 8, adaptive (cost)", "/api/lab/run?tokens=200&gamma=8&adapt=cost"),
    ("/api/lab/run, 100 tokens, γ 8, lookup", "/api/lab/run?gamma=8&draft=lookup"),
    ("/api/lab/drafts at the caps (100 tokens, γ 8)", "/api/lab/drafts?gamma=8"),
    ("/api/lab/compare at the caps (60 tokens, γ 8)", "/api/lab/compare?gamma=8&adapt=cost"),
    ("/api/lab/tubes", "/api/lab/tubes?lang=en"),
    ("/embed/en/specdec/tape/ (render)", "/embed/en/specdec/tape/"),
    ("/embed/en/specdec/lab/ (render)", "/embed/en/specdec/lab/"),
    ("/embed/en/specdec/ (whole plate embed, render)", "/embed/en/specdec/"),
    ("/en/specdec/ (whole plate, render)", "/en/specdec/"),
]


def _tree_calls():
    """(label, call(seed)) for the token-tree sim functions at candidate caps."""
    import json

    import numpy as np

    from sim import tree_budget, tree_cost
    from sim.tree import Plan, plan
    from sim.tree_rules import generate_tree
    from sim.tree_tubes import run_tree_tubes, star, tree_tubes_context

    def run(lang, tokens, p, trace=True):
        def call(seed):
            m = load_models(lang)
            target = m["trigram"]
            ctx = target.encode(list(tree_tubes_context(lang)))
            r = generate_tree(target, m["bigram"], ctx, tokens, p, np.random.default_rng(seed))
            json.dumps(r.to_json(target.vocab, trace=0 if trace else None), ensure_ascii=False)
        return call

    def tubes(lang, sampling, rule, rounds, trials):
        def call(seed):
            m = load_models(lang)
            target = m["trigram"]
            ctx = target.encode(list(tree_tubes_context(lang)))
            json.dumps(run_tree_tubes(target, m["bigram"], ctx, Plan.fixed(star(8), sampling), rule, rounds,
                                      trials, np.random.default_rng(seed)), ensure_ascii=False)
        return call

    def budget(cold, k=4, d=8, batch=64):
        def call(seed):
            if cold:
                tree_budget.budget_table.cache_clear()
            t = tree_budget.budget_table("en", "bigram", k, d)
            json.dumps({"curves": tree_cost.curves(t, "h100-sxm", "llama-3.1-8b", batch, 4096, 0.05),
                        "scan": tree_cost.batch_scan(t, "h100-sxm", "llama-3.1-8b", 4096, 0.05), "table": t})
        return call

    kary64 = plan("kary", 64, 4, 8, "wor")
    return [
        ("tree run, 40 tokens, 64-node 4-ary tree, wor, traced", run("en", 40, kary64)),
        ("tree run, 100 tokens, 64-node 4-ary tree, wor, traced", run("en", 100, kary64)),
        ("tree run, 100 tokens, 64-node 4-ary tree, wor, zh", run("zh", 100, kary64)),
        ("tree run, 40 tokens, 64-node 4-ary tree, top, traced", run("en", 40, plan("kary", 64, 4, 8, "top"))),
        ("tree run, 40 tokens, EAGLE-2 n 64 k 8 d 8, traced", run("en", 40, plan("dynamic", 64, 8, 8, "top"))),
        ("tree run, 40 tokens, EAGLE-2 n 64 k 4 d 16, traced", run("en", 40, plan("dynamic", 64, 4, 16, "top"))),
        ("tree run, 40 tokens, 8 sequences of 8, iid, traced", run("en", 40, plan("sequences", 64, 8, 8, "iid"))),
        ("tree run, 40 tokens, 16-node 2-ary tree, wor, traced", run("en", 40, plan("kary", 16, 2, 4, "wor"))),
        ("tree tubes, 20 × 50 passes, star of 8, wor, sequoia", tubes("en", "wor", "sequoia", 20, 50)),
        ("tree tubes, 10 × 20 passes, star of 8, wor, sequoia", tubes("en", "wor", "sequoia", 10, 20)),
        ("tree tubes, 20 × 50 passes, star of 8, iid, specinfer", tubes("en", "iid", "specinfer", 20, 50)),
        ("tree tubes, 10 × 50 passes, star of 8, wor, sequoia, zh", tubes("zh", "wor", "sequoia", 10, 50)),
        ("tree budget: table (cache emptied) + curves + batch scan", budget(True)),
        ("tree budget: table (cache emptied), k 8, d 16", budget(True, 8, 16)),
        ("tree budget: curves + batch scan, table kept", budget(False)),
    ]


def measure_call(call, n: int, cold: bool) -> list[float]:
    out = []
    for i in range(n):
        if cold:
            clear_model_caches()
        t = time.process_time()
        call(i + 1 + (1000 if cold else 0))
        out.append((time.process_time() - t) * 1000)
    return out


def clear_model_caches() -> None:
    for lang in LANGS:
        for m in load_models(lang).values():
            m.clear_caches()


def clear_answer_caches() -> None:
    """The lab keeps its recent runs and answers (like the render cache, which is off here)."""
    from views import sections_lab
    sections_lab.clear_caches()


def measure(client, url: str, n: int, cold: bool) -> list[float]:
    out = []
    for i in range(n):
        clear_answer_caches()
        if cold:
            clear_model_caches()
        t = time.process_time()
        # A new seed each time where the route takes one, so no answer repeats.
        seeded = url.startswith(("/api/run", "/api/tubes", "/api/lab/run", "/api/lab/drafts",
                                 "/api/lab/compare", "/api/lab/tubes", "/en/", "/embed/"))
        seed = i + 1 + (1000 if cold else 0)
        r = client.get(url + (f"&seed={seed}" if "?" in url else f"?seed={seed}") if seeded else url)
        out.append((time.process_time() - t) * 1000)
        assert r.status_code == 200, (url, r.status_code)
    return out


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    tree_only = "--tree" in args
    args = [a for a in args if a != "--tree"]
    n = int((args or ["7"])[0])
    app = create_app({"TESTING": True, "RENDER_CACHE": False})
    client = app.test_client()
    requests = [] if tree_only else REQUESTS
    for _label, url in REQUESTS:  # load models, choose the default contexts, compile templates
        client.get(url)
    calls = _tree_calls()
    for _label, call in calls:
        call(0)
    # How fast this machine is, to scale the figures to another: one pure-Python reference loop.
    t = time.process_time()
    sum(range(10**7))
    print(f"reference: sum(range(10**7)) takes {time.process_time() - t:.2f} s of CPU here")
    print(f"CPU time per request, ms (median / max of {n}; cold = model caches cleared first)")
    print(f"{'request':<62} {'warm':>13} {'cold':>13}")
    for label, url in requests:
        warm = measure(client, url, n, cold=False)
        cold = measure(client, url, n, cold=True)
        print(f"{label:<62} {statistics.median(warm):>6.1f} /{max(warm):>5.1f} "
              f"{statistics.median(cold):>6.1f} /{max(cold):>5.1f}")
    print("token trees, sim calls a route would make (no route yet):")
    for label, call in calls:
        warm = measure_call(call, n, cold=False)
        cold = measure_call(call, n, cold=True)
        print(f"{label:<62} {statistics.median(warm):>6.1f} /{max(warm):>5.1f} "
              f"{statistics.median(cold):>6.1f} /{max(cold):>5.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
