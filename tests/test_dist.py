"""sim.dist: the sparse form gives the same numbers as the dense vector, operation by operation.

Every check compares against the plain numpy computation on ``dense()``, over contexts of both
books and over all three models, so an error in the bookkeeping of idx, s or the off-idx mass
shows up as a mismatch."""
from __future__ import annotations

import numpy as np
import pytest

from sim import dist as sparse
from sim.dist import Base, Dist, Support
from sim.ngram import load_models


def _contexts(lang, n=60, seed=0):
    T = load_models(lang)["trigram"]
    pairs = [divmod(k, T.V) for k in T._pair_row]
    rng = np.random.default_rng(seed)
    picks = [pairs[i] for i in rng.choice(len(pairs), n, replace=False)]
    # Also a context the trigram never saw (backs off to the bigram) and one with an unknown token.
    return picks + [(picks[0][1], picks[1][1]), (-1, picks[2][1])]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_sparse_matches_dense_for_every_model(lang):
    models = load_models(lang)
    for ctx in _contexts(lang):
        for m in models.values():
            d, s = m.dist(ctx), m.sparse(ctx)
            assert d.sum() == pytest.approx(1.0, abs=1e-12)
            assert s.mass == pytest.approx(1.0, abs=1e-12)
            np.testing.assert_array_equal(s.dense(), d)
            some = np.arange(0, m.V, 7)
            np.testing.assert_array_equal(s[some], d[some])
            assert s[int(some[3])] == d[some[3]]
            assert s.argmax() == int(np.argmax(d))
            # top: likeliest first, lower id first among equals
            ref = np.lexsort((np.arange(m.V), -d))[:10]
            assert [w for w, _ in s.top(10)] == [int(i) for i in ref]
            # the likeliest tokens off the list, found at once, are the first ones off_list gives
            from itertools import islice
            assert s.sup.off_top(16).tolist() == list(islice(s.sup.off_list(), 16))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_overlap_and_residual_match_dense(lang):
    models = load_models(lang)
    T = models["trigram"]
    for ctx in _contexts(lang, n=25, seed=1):
        p = T.sparse(ctx)
        for q in (models["bigram"].sparse(ctx), models["unigram"].sparse(ctx),
                  T.sparse((ctx[1], ctx[0])), Dist.point(T.base, p.argmax())):
            P, Q = p.dense(), q.dense()
            assert sparse.overlap(p, q) == pytest.approx(np.minimum(P, Q).sum(), abs=1e-12)
            r = np.maximum(P - Q, 0.0)
            expected = r / r.sum() if r.sum() > 1e-15 else P  # p == q: nothing left, p itself
            np.testing.assert_allclose(sparse.residual(p, q).dense(), expected, rtol=1e-9, atol=1e-15)
        assert sparse.residual(p, p) is p  # no mass left: p itself


def test_sampling_inverts_the_distribution_exactly():
    # With u on an even grid of n points, token w is drawn for a share of the grid equal to p(w)
    # up to one grid step at each end of its interval: |count/n − p(w)| ≤ 2/n. The residual of
    # p against q exercises a Dist with a non-zero scale and holes (the refused tokens).
    models = load_models("en")
    ctx = _contexts("en", n=3, seed=2)[0]
    p, q = models["trigram"].sparse(ctx), models["bigram"].sparse(ctx)
    n = 200_000
    u = (np.arange(n) + 0.5) / n
    for d in (p, q, models["unigram"].sparse(()), sparse.residual(p, models["unigram"].sparse(()))):
        counts = np.bincount([d.sample(x) for x in u], minlength=d.V)
        np.testing.assert_allclose(counts / n, d.dense() / d.mass, atol=2 / n)


def test_sampling_at_the_ends_stays_in_the_vocabulary():
    base = Base(np.array([0.5, 0.25, 0.25]))
    d = Dist(Support(base, np.array([1])), 0.5, np.array([0.625]))   # p = (0.25, 0.625, 0.125)
    assert d.mass == pytest.approx(1.0)
    assert d.sample(0.0) == 1            # explicit entries come first
    assert d.sample(0.7) == 0            # 0.625 ≤ 0.7 < 0.875
    assert d.sample(0.999999) == 2
    assert d.sample(1.0) == 2            # rounding past the end: the last token off idx
    hole = Dist(Support(base, np.array([2])), 0.5, np.array([0.0]))  # p = (0.25, 0.125, 0), mass 0.375
    assert {hole.sample(x) for x in np.linspace(0, 0.999, 50)} == {0, 1}


def test_point_mass():
    base = Base(np.full(4, 0.25))
    d = Dist.point(base, 2)
    assert d.mass == 1.0 and d[2] == 1.0 and d[0] == 0.0
    assert d.argmax() == 2 and d.sample(0.3) == 2
    assert d.top(2) == [(2, 1.0)]  # s = 0: no other token has any mass to list
