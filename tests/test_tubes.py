"""sim.tubes: totals, the chi-square pooling, reproducibility."""
import numpy as np
import pytest

from sim.ngram import load_models
from sim.tubes import chi_square, run_tubes


def test_chi_square_pools_rare_tokens():
    # 100 draws; expected 50, 40, 6, 2, 2 -> the last two (4 together) join the smallest bin (6).
    p = np.array([0.5, 0.4, 0.06, 0.02, 0.02])
    counts = np.array([50, 40, 6, 2, 2])
    stat, pvalue, bins = chi_square(counts, p)
    assert bins == 3 and stat == pytest.approx(0.0) and pvalue == pytest.approx(1.0)
    assert chi_square(np.array([90, 10, 0, 0, 0]), p)[1] < 1e-6


def test_tubes_totals_and_reproducibility():
    m = load_models("en")
    ctx = m["trigram"].encode([",", "when"])
    a = run_tubes(m["trigram"], m["bigram"], ctx, 4, 50, np.random.default_rng(1))
    b = run_tubes(m["trigram"], m["bigram"], ctx, 4, 50, np.random.default_rng(1))
    assert a == b
    assert sum(a["plain"]["counts"].values()) == sum(a["speculative"]["counts"].values()) == 200
    assert a["speculative"]["kept"] + a["speculative"]["put_in"] == 200
    assert len(a["samples"]) == 4 and all(len(r["plain"]) == 50 for r in a["samples"])
    assert sum(a["p"].values()) <= 1.0


def test_keep_draft_never_puts_in():
    m = load_models("en")
    ctx = m["trigram"].encode([",", "when"])
    r = run_tubes(m["trigram"], m["bigram"], ctx, 2, 50, np.random.default_rng(1), rule="keep-draft")
    assert r["speculative"]["put_in"] == 0
