"""CPU time of the costliest requests the API allows, measured in-process (no network).

Each request runs with the render cache off and, for "cold", the models' distribution caches
cleared first: the worst a single request can cost. Prints the median and the maximum of the
process CPU time (time.process_time) over a few repetitions. Usage: python3 bench/cpu.py [N]
"""
from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app import create_app  # noqa: E402
from sim.ngram import load_models  # noqa: E402

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


def clear_model_caches() -> None:
    for lang in ("en", "zh"):
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
    n = int((argv or sys.argv[1:] or ["7"])[0])
    app = create_app({"TESTING": True, "RENDER_CACHE": False})
    client = app.test_client()
    for _label, url in REQUESTS:  # load models, choose the default contexts, compile templates
        client.get(url)
    # How fast this machine is, to scale the figures to another: one pure-Python reference loop.
    t = time.process_time()
    sum(range(10**7))
    print(f"reference: sum(range(10**7)) takes {time.process_time() - t:.2f} s of CPU here")
    print(f"CPU time per request, ms (median / max of {n}; cold = model caches cleared first)")
    print(f"{'request':<62} {'warm':>13} {'cold':>13}")
    for label, url in REQUESTS:
        warm = measure(client, url, n, cold=False)
        cold = measure(client, url, n, cold=True)
        print(f"{label:<62} {statistics.median(warm):>6.1f} /{max(warm):>5.1f} "
              f"{statistics.median(cold):>6.1f} /{max(cold):>5.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
