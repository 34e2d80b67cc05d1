"""sim.memo.ByteMemo: a memo bounded in bytes, least recently used out first."""
from __future__ import annotations

import numpy as np

from sim.memo import ENTRY_OVERHEAD, ByteMemo
from sim.ngram import DENSE_CACHE_BYTES, SPARSE_CACHE_BYTES, load_models


def test_bounded_in_bytes_least_recently_used_first():
    calls = []
    memo = ByteMemo(lambda k: calls.append(k) or bytes(1000), 3 * (1000 + ENTRY_OVERHEAD), len)
    for k in "abc":
        memo(k)
    memo("a")                        # a hit: now the most recently used
    memo("d")                        # over the bound: b, the least recently used, goes
    assert calls == list("abcd") and memo.nbytes <= memo.max_bytes and len(memo) == 3
    memo("b")
    assert calls[-1] == "b" and memo.misses == 5
    memo("a")
    assert calls[-1] == "b"          # a was kept


def test_one_value_larger_than_the_bound_is_still_kept_alone():
    memo = ByteMemo(lambda k: bytes(10_000), 100, len)
    memo(1)
    memo(2)
    assert len(memo) == 1 and memo(2) == bytes(10_000) and memo.misses == 2


def test_the_book_models_caches_stay_within_their_bytes():
    rng = np.random.default_rng(0)
    for m in load_models("en").values():
        for _ in range(3000):
            ctx = tuple(int(i) for i in rng.integers(0, m.V, size=2))
            m.sparse(ctx)
            if _ % 10 == 0:
                m.dist(ctx)
        assert m.sparse_memo.max_bytes == SPARSE_CACHE_BYTES and m.dist_memo.max_bytes == DENSE_CACHE_BYTES
        assert m.sparse_memo.nbytes <= SPARSE_CACHE_BYTES and m.dist_memo.nbytes <= DENSE_CACHE_BYTES
