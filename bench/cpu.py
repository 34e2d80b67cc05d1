"""CPU time of the costliest requests the API allows, measured in-process (no network).

Each request runs with the render cache off and, for "cold", the models' distribution caches
cleared first: the worst a single request can cost. Prints the median and the maximum of the
process CPU time (time.process_time) over a few repetitions.
Usage: python3 bench/cpu.py [N] [--tree] | python3 bench/cpu.py --class

``--tree``: only the token-tree section's requests (issue 13: /api/tree…, its answers, its embed),
each at its caps (views/sections/trees.py, sim/params.py). Budget tables are kept per process
(sim.tree.budget); the rows marked "a new table" empty that cache before each request.

``--class``: the moves of bench/classroom.py's students instead (``class_mix``).
"""
from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app import create_app  # noqa: E402
from bench.classroom import MOVES, move  # noqa: E402
from corpus.text import LANGS  # noqa: E402
from sim import tree  # noqa: E402
from sim.ngram import load_models  # noqa: E402
from views.sections import lab as sections_lab  # noqa: E402

REQUESTS = [
    ("/api/run, traced at the caps (52 tokens, γ 16), unigram",
     "/api/run?tokens=52&gamma=16&draft=unigram&context=" + "x" * 200),
    ("/api/run, traced at the caps (100 tokens, γ 8), unigram", "/api/run?tokens=100&gamma=8&draft=unigram"),
    ("/api/run, traced at the caps (52 tokens, γ 16), bigram, zh",
     "/api/run?lang=zh&tokens=52&gamma=16&draft=bigram"),
    ("/api/run, counts only at the caps (105 tokens, γ 16), unigram",
     "/api/run?tokens=105&gamma=16&draft=unigram&trace=0"),
    ("/api/run, counts only (200 tokens, γ 8): the sections `alpha` to `speedup`",
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


def _new_table() -> None:
    tree.budget_table.cache_clear()
    tree.acceptance.cache_clear()


# Token trees at their caps: fixed shapes tokens × (n + 8) ≤ 2000 (27 tokens at n = 64), EAGLE-2
# tokens × (k + (d − 1)k²) ≤ 2400 (2 tokens at k 8, d 16; 9 at k 4, d 16), tubes 200 passes.
TREE_REQUESTS = [
    ("/api/tree, a page's request (40 tokens, best shape of 8)", "/api/tree?tokens=40"),
    ("/api/tree at the caps: 27 tokens, 64-node 8-ary tree, iid", "/api/tree?shape=kary&n=64&k=8&d=16&sampling=iid"),
    ("/api/tree at the caps: 27 tokens, best shape of 64, depth 16", "/api/tree?shape=best&n=64&d=16"),
    ("/api/tree at the caps: 27 tokens, chain of 64", "/api/tree?shape=chain&n=64&d=16"),
    ("/api/tree at the caps: 27 tokens, 8 sequences of 8, zh", "/api/tree?lang=zh&shape=sequences&n=64&k=8"),
    ("/api/tree at the caps: EAGLE-2 k 8 d 16 (2 tokens)", "/api/tree?shape=dynamic&n=64&k=8&d=16"),
    ("/api/tree at the caps: EAGLE-2 k 4 d 16 (9 tokens)", "/api/tree?shape=dynamic&n=64&k=4&d=16"),
    ("/api/tree/tubes at the caps: 4 × 50, star of 8, iid, sequoia",
     "/api/tree/tubes?rounds=4&sampling=iid&rule=sequoia"),
    ("/api/tree/tubes at the caps: 4 × 50, star of 8, wor, specinfer",
     "/api/tree/tubes?rounds=4&sampling=wor&rule=specinfer"),
    ("/api/tree/tubes at the caps: 4 × 50, star of 8, wor, zh", "/api/tree/tubes?lang=zh&rounds=4"),
    ("/api/tree/budget, table kept (curves, batch scan)", "/api/tree/budget?k=8&d=16&ctx=0"),
    ("/api/tree/budget, a new table (k 4, d 5: the page's)", "/api/tree/budget?k=4&d=5", _new_table),
    ("/api/tree/budget, a new table (k 8, d 16)", "/api/tree/budget?k=8&d=16", _new_table),
    ("/api/section/trees.pass at the caps (EAGLE-2 k 8 d 16)", "/api/section/trees.pass?lang=en&shape=dynamic&n=64&k=8&d=16"),
    ("/embed/en/specdec/trees/ (render)", "/embed/en/specdec/trees/"),
]


def clear_model_caches() -> None:
    for lang in LANGS:
        for m in load_models(lang).values():
            m.clear_caches()


def clear_answer_caches() -> None:
    """The lab keeps its recent runs and answers (like the render cache, which is off here)."""
    sections_lab.clear_caches()


def measure(client, url: str, n: int, cold: bool, before=None) -> list[float]:
    out = []
    for i in range(n):
        clear_answer_caches()
        if cold:
            clear_model_caches()
        if before is not None:
            before()
        t = time.process_time()
        # A new seed each time where the route takes one, so no answer repeats.
        seeded = url.startswith(("/api/run", "/api/tubes", "/api/lab/run", "/api/lab/drafts",
                                 "/api/lab/compare", "/api/lab/tubes", "/en/", "/embed/", "/api/tree?",
                                 "/api/tree/tubes", "/api/section/trees.pass"))
        seed = i + 1 + (1000 if cold else 0)
        r = client.get(url + (f"&seed={seed}" if "?" in url else f"?seed={seed}") if seeded else url)
        out.append((time.process_time() - t) * 1000)
        assert r.status_code == 200, (url, r.status_code)
    return out


def print_reference() -> None:
    """How fast this machine is at the moment, to scale the figures to another or compare two
    runs: one pure-Python reference loop."""
    t = time.process_time()
    sum(range(10**7))
    print(f"reference: sum(range(10**7)) takes {time.process_time() - t:.2f} s of CPU here")


def class_mix(reps: int = 5, per: int = 60) -> None:
    """``--class``: what each move of bench/classroom.py's students costs, as the server meets it:
    fresh seeds and values every time, gzip asked for, the render cache on (every answer is a
    miss and is stored). The least of ``reps`` runs of ``per`` requests, per move."""
    app = create_app({"RENDER_CACHE": True})
    client = app.test_client()
    rng = random.Random(7)
    gz = {"Accept-Encoding": "gzip"}
    for kind in range(len(MOVES)):
        for _ in range(10):
            client.get(move(kind, rng), headers=gz)
    best = {m: float("inf") for m in MOVES}
    for _ in range(reps):
        for kind, name in enumerate(MOVES):
            t = time.process_time()
            for _ in range(per):
                assert client.get(move(kind, rng), headers=gz).status_code == 200
            best[name] = min(best[name], (time.process_time() - t) / per * 1000)
    print_reference()
    print(f"CPU time per move of a student, ms (least of {reps} runs of {per} fresh requests)")
    for name, ms in best.items():
        print(f"{name:<8} {ms:6.2f}")
    print(f"{'mean':<8} {sum(best.values()) / len(best):6.2f}   (the moves are equally likely)")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python3 bench/cpu.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("n", nargs="?", type=int, default=7, help="repetitions per request (default 7)")
    parser.add_argument("--tree", action="store_true", help="only the token-tree section's requests")
    parser.add_argument("--class", dest="class_", action="store_true",
                        help="the moves of bench/classroom.py's students instead")
    args = parser.parse_args(argv)
    if args.class_:
        class_mix()
        return 0
    tree_only, n = args.tree, args.n
    if n < 1:
        parser.error("n must be at least 1")
    app = create_app({"TESTING": True, "RENDER_CACHE": False})
    client = app.test_client()
    requests = ([] if tree_only else REQUESTS) + TREE_REQUESTS
    for _label, url, *_ in requests:  # load models, choose the default contexts, compile templates
        client.get(url)
    print_reference()
    print(f"CPU time per request, ms (median / max of {n}; cold = model caches cleared first)")
    print(f"{'request':<62} {'warm':>13} {'cold':>13}")
    for label, url, *before in requests:
        warm = measure(client, url, n, cold=False, before=before[0] if before else None)
        cold = measure(client, url, n, cold=True, before=before[0] if before else None)
        print(f"{label:<62} {statistics.median(warm):>6.1f} /{max(warm):>5.1f} "
              f"{statistics.median(cold):>6.1f} /{max(cold):>5.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
