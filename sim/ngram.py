"""Witten–Bell interpolated n-gram language models, orders 1 to 3, vectorised over the vocabulary.

Witten, Bell (1991), "The zero-frequency problem", IEEE Trans. Inf. Theory 37(4); interpolated as in
Chen, Goodman (1998), "An empirical study of smoothing techniques for language modeling", and as
NLTK's ``nltk.lm.WittenBellInterpolated`` computes it (our tests hold us to it to 1e-12):

    P_1(w)        = c(w) / N                                       (maximum likelihood)
    P_n(w | h)    = (1 − γ_h) · c(h, w) / c(h, ·)  +  γ_h · P_{n−1}(w | h')
    γ_h           = N1+(h, ·) / (N1+(h, ·) + c(h, ·))

where h' is h without its oldest token, c(h, ·) counts the n-grams that start with h and N1+(h, ·)
how many different tokens follow h. A context never seen (c(h, ·) = 0) backs off entirely to the
lower order. Every token of the vocabulary occurs in the text, so every distribution has full
support: q(x) > 0 for any draft, and p/q is always defined.

The target of the bench is the trigram (reads the two tokens before), the usual draft the bigram
(reads one), the draft that reads nothing the unigram.
"""
from __future__ import annotations

from bisect import bisect_left
from functools import lru_cache
from typing import Sequence

import numpy as np

import corpus

from .dist import Base, Dist, Support
from .memo import ByteMemo

MODEL_ORDERS = {"unigram": 1, "bigram": 2, "trigram": 3}
UNK = -1  # id of a context token outside the vocabulary: the model backs off past it
# Distributions each model keeps (least recently used out first), in bytes: sparse ones (a few
# hundred numbers each, so thousands fit), and dense vectors (V floats each, 24 kB for English).
# A book's six models (two languages, three orders) hold at most 6 × 10 MiB; a 10,000-token
# run reads about 12,000 contexts of the target (21 MiB), so the sparse bound decides its speed.
SPARSE_CACHE_BYTES, DENSE_CACHE_BYTES = 8 * 1024 * 1024, 2 * 1024 * 1024
# What each used to keep by count, for estimates that count per-entry bookkeeping.
SPARSE_CACHE, DENSE_CACHE = 4096, 256
# The trigram contexts' explicit entries are precomputed in one table up to this size (a book's
# fits; a long reader's text is computed context by context, through the cache).
TRIGRAM_TABLE_BYTES = 16 * 1024 * 1024


def _dist_bytes(d: Dist) -> int:
    """A sparse distribution's own memory: its values and, once drawn from, their running sum
    (the support is the model's, shared), and the object with its few numbers. Values that
    are a slice of a model's table are the table's: only their running sum is the entry's
    (and Σ min(p, q) kept against one draft, ``Dist.overlap_with`` and ``Dist.tie``)."""
    return (2 if d.val.base is None else 1) * d.val.nbytes + 2 * 112 + 250


def _array_bytes(a: np.ndarray) -> int:
    return a.nbytes + 112


class _Rows:
    """Continuation counts of each context, as one CSR-like table: row k holds the tokens seen after
    context k and how often. ``gamma`` and ``1 / total`` are precomputed per row."""

    def __init__(self, keys: np.ndarray, nxt: np.ndarray, cnt: np.ndarray, n_rows: int):
        # Sorted by row, then by next token: a row's tokens are then a sorted index (sim.dist).
        order = np.lexsort((nxt, keys))
        keys, nxt, cnt = keys[order], nxt[order], cnt[order]
        self.start = np.searchsorted(keys, np.arange(n_rows + 1))
        self.nxt = nxt.astype(np.int64)
        self.cnt = cnt.astype(np.float64)
        for a in (self.nxt, self.cnt):
            a.setflags(write=False)
        # reduceat wants every start < len; empty rows at the end (a token seen only as the text's
        # last) would point past it, so clip them (their total is zeroed just below).
        starts = np.minimum(self.start[:-1], max(len(self.cnt) - 1, 0))
        total = np.add.reduceat(self.cnt, starts) if len(self.cnt) else np.zeros(n_rows)
        n_plus = np.diff(self.start).astype(np.float64)
        total = np.where(n_plus > 0, total, 0.0)  # reduceat repeats a value for empty rows
        self.total = total
        with np.errstate(invalid="ignore", divide="ignore"):
            self.gamma = np.where(total > 0, n_plus / (n_plus + total), 1.0)

    def row(self, k: int):
        lo, hi = self.start[k], self.start[k + 1]
        return self.nxt[lo:hi], self.cnt[lo:hi], self.total[k], self.gamma[k]


class _PairIndex:
    """Row of each seen pair (a, b), keyed a·V + b: a sorted array searched by bisection. Reads
    like the dict it replaces (``get``, iteration over the keys, ``len``) at 8 bytes a pair
    instead of ~100, and without the 0.2 s of building a dict of 600,000 pairs."""

    __slots__ = ("keys", "_items")

    def __init__(self, keys: np.ndarray):
        self.keys = keys            # sorted, unique (np.unique's output)
        # The same numbers read as Python ints (a view, no copy): bisection on it costs half of
        # a numpy search for one key, which pays a conversion of the key on every call.
        self._items = memoryview(keys)

    def get(self, key: int, default=None):
        items = self._items
        i = bisect_left(items, key)
        return i if i < len(items) and items[i] == key else default

    def __iter__(self):
        return iter(self.keys.tolist())

    def __len__(self) -> int:
        return len(self.keys)


class Counts:
    """Everything the models of one text read, built once and shared by its three models (so that
    the draft's and the target's distributions at one context share their list of tokens, a
    ``sim.dist.Support``)."""

    def __init__(self, vocab: Sequence[str], unigrams, bigrams, trigrams):
        self.vocab = list(vocab)
        self.index = {tok: i for i, tok in enumerate(self.vocab)}
        self.V = V = len(self.vocab)
        c1 = np.asarray(unigrams, dtype=np.float64)
        self.n_tokens = int(c1.sum())
        self.p1 = c1 / c1.sum()
        self.p1.setflags(write=False)
        self.base = Base(self.p1)

        b = np.asarray(bigrams, dtype=np.int64).reshape(-1, 3)
        bi = self.bi = _Rows(b[:, 0], b[:, 1], b[:, 2], V)
        # Per entry of row b: P_2(w | b) itself, so a bigram distribution is a slice of
        # precomputed numbers (sim.dist), and its Support is built once per row.
        row = np.repeat(np.arange(V), np.diff(bi.start))
        with np.errstate(invalid="ignore", divide="ignore"):
            self.p2 = bi.gamma[row] * self.p1[bi.nxt] + (1.0 - bi.gamma[row]) / bi.total[row] * bi.cnt
        self._supports: dict[int, Support] = {}

        t = np.asarray(trigrams, dtype=np.int64).reshape(-1, 4)
        pair = t[:, 0] * V + t[:, 1]
        keys, row_of = np.unique(pair, return_inverse=True)
        self.pair_row = _PairIndex(keys)
        tri = self.tri = _Rows(row_of.reshape(-1), t[:, 2], t[:, 3], len(keys))
        # Trigram entry (a, b, w): its weight (1 − γ_ab) c(a, b, w) / c(a, b, ·), and where w sits
        # in the row of b. A row whose token is missing from b's row (possible for counts cut at
        # other places than ours) takes the slower general path.
        trow = np.repeat(np.arange(len(keys)), np.diff(tri.start))
        self.tri_add = (1.0 - tri.gamma[trow]) / tri.total[trow] * tri.cnt
        b_of = (keys % V)[trow]
        bi_key = row * V + bi.nxt
        g = bi_key.searchsorted(b_of * V + tri.nxt).clip(max=max(len(bi_key) - 1, 0))
        found = bi_key[g] == b_of * V + tri.nxt if len(bi_key) else np.zeros(len(trow), dtype=bool)
        self.tri_pos = np.where(found, g - bi.start[b_of], -1)
        self.tri_general = set(np.unique(trow[~found]).tolist())
        self.tri_val, self.tri_val_start, self.tri_min = self._trigram_table(keys % V, trow)
        # Beside the table, each row's off-list scale s = γ_ab·γ_b, the product
        # ``NGramModel._trigram`` takes otherwise (the same two doubles multiplied: the same bits).
        self.tri_s = tri.gamma * bi.gamma[keys % V] if self.tri_val is not None else None
        self._bigrams: dict[int, Dist] = {}

    def _trigram_table(self, b_rows: np.ndarray, trow: np.ndarray):
        """Every trigram context's explicit entries, (1 − γ_ab)·c(a, b, w)/c(a, b, ·) added to
        γ_ab·P_2(w | b) over b's row, in one read-only table, when it is small enough (a book's:
        8.6 MB English, 4.4 MB Chinese): a context's distribution is then a slice of it, as a
        bigram's is of ``p2``. The same operations, element by element, as ``_trigram`` does
        for one context, so the numbers are the same. (None, None) past the bound."""
        sizes = np.diff(self.bi.start)[b_rows]
        total = int(sizes.sum())
        if total * 8 > TRIGRAM_TABLE_BYTES or not len(b_rows):
            return None, None, None
        start = np.zeros(len(b_rows) + 1, dtype=np.int64)
        np.cumsum(sizes, out=start[1:])
        src = np.repeat(self.bi.start[b_rows] - start[:-1], sizes) + np.arange(total)
        val = np.repeat(self.tri.gamma, sizes) * self.p2[src]
        ok = self.tri_pos >= 0                  # rows with a token b never saw: ``_trigram``
        val[start[trow[ok]] + self.tri_pos[ok]] += self.tri_add[ok]
        val.setflags(write=False)
        # Each row's Σ min(p, q) on the list against the bigram at b, the draft the loop asks it
        # against most (``sim.dist.overlap`` sums a row the same way, so the bits agree). A row
        # is never empty: whatever follows (a, b) follows b.
        on_list = np.add.reduceat(np.minimum(val, self.p2[src]), start[:-1])
        on_list.setflags(write=False)
        return val, start, on_list

    def bigram(self, b: int) -> Dist:
        """P_2(· | b) for a token b seen followed by another, one object per row, so that a
        trigram distribution can keep its Σ min(p, q) against this very one."""
        d = self._bigrams.get(b)
        if d is None:
            lo, hi = self.bi.start[b], self.bi.start[b + 1]
            d = self._bigrams[b] = Dist(self.support(b), float(self.bi.gamma[b]), self.p2[lo:hi])
        return d

    def forget_bigrams(self) -> None:
        """Drop the kept bigrams (the text's models share them). A trigram kept elsewhere still
        holds its old bigram, which no draft returns now, so it computes its Σ min afresh."""
        self._bigrams.clear()

    def support(self, b: int) -> Support:
        """The tokens seen after b, shared by every distribution that lists them (a dict write
        is atomic under the GIL; two threads at worst build the same row twice)."""
        sup = self._supports.get(b)
        if sup is None:
            lo, hi = self.bi.start[b], self.bi.start[b + 1]
            sup = self._supports[b] = Support(self.base, self.bi.nxt[lo:hi])
        return sup


class NGramModel:
    """Witten–Bell interpolated model of one order over a fixed vocabulary."""

    def __init__(self, vocab: Sequence[str], unigrams, bigrams, trigrams, order: int, name: str = "",
                 counts: Counts | None = None, cache_bytes: int | None = None):
        if order not in (1, 2, 3):
            raise ValueError("order must be 1, 2 or 3")
        self.order = order
        self.name = name or {v: k for k, v in MODEL_ORDERS.items()}[order]
        c = self.counts = counts or Counts(vocab, unigrams, bigrams, trigrams)
        self.vocab, self.index, self.V, self.n_tokens = c.vocab, c.index, c.V, c.n_tokens
        self.base, self._p1, self._bi, self._tri, self._pair_row = c.base, c.p1, c.bi, c.tri, c.pair_row
        # Contexts repeat a lot in running text: keep recent distributions, bounded in bytes (a
        # reader's text gets cache_bytes for each of the two; at least one of each is kept).
        sparse_bytes = SPARSE_CACHE_BYTES if cache_bytes is None else cache_bytes
        dense_bytes = DENSE_CACHE_BYTES if cache_bytes is None else cache_bytes
        self.sparse_memo = ByteMemo(self._sparse, sparse_bytes, _dist_bytes)
        self.dist_memo = ByteMemo(self._dist, dense_bytes, _array_bytes)
        self._sparse_cached, self._dist_cached = self.sparse_memo.call, self.dist_memo.call

    @classmethod
    def from_snapshot(cls, snap: corpus.Snapshot, order: int) -> "NGramModel":
        return cls(snap.vocab, snap.unigrams, snap.bigrams, snap.trigrams, order)

    def encode(self, tokens: Sequence[str]) -> list[int]:
        return [self.index.get(tok, UNK) for tok in tokens]

    def decode(self, ids: Sequence[int]) -> list[str]:
        return [self.vocab[i] for i in ids]

    def _key(self, context: Sequence[int]) -> tuple[int, ...]:
        k = self.order - 1
        return tuple(context[-k:]) if k else ()

    def sparse(self, context: Sequence[int] = ()) -> Dist:
        """P(· | context) as a scaled unigram plus its seen continuations (``sim.dist.Dist``):
        what the speculative loop works with. Only the last ``order − 1`` ids are read."""
        return self._sparse_cached(self._key(context))

    def dist(self, context: Sequence[int] = ()) -> np.ndarray:
        """P(· | context) over the whole vocabulary (read-only array that sums to 1)."""
        return self._dist_cached(self._key(context))

    def sample(self, context: Sequence[int], rng: np.random.Generator) -> int:
        """One token drawn from P(· | context) (one uniform, inverted through the distribution)."""
        return self.sparse(context).sample(rng.random())

    def clear_caches(self) -> None:
        """Forget every kept distribution (benchmarks time the computation, not the cache)."""
        self.sparse_memo.cache_clear()
        self.dist_memo.cache_clear()
        self.counts.forget_bigrams()

    def _dist(self, h: tuple[int, ...]) -> np.ndarray:
        p = self._sparse_cached(h).dense()
        p.setflags(write=False)
        return p

    def _sparse(self, h: tuple[int, ...]) -> Dist:
        if not h:
            return Dist.unigram(self.base)
        if len(h) == 1:
            return self._bigram(h[0])
        return self._trigram(h[0], h[1])

    def _bigram(self, b: int) -> Dist:
        c = self.counts
        if b == UNK or c.bi.total[b] == 0:
            return Dist.unigram(self.base)
        return c.bigram(b)

    def _trigram(self, a: int, b: int) -> Dist:
        c = self.counts
        k = c.pair_row.get(a * self.V + b) if a != UNK and b != UNK else None
        if k is None:
            return self._bigram(b)
        if k not in c.tri_general and c.tri_val is not None:    # the book's: a slice of the table
            p = Dist(c.support(b), float(c.tri_s[k]), c.tri_val[c.tri_val_start[k]:c.tri_val_start[k + 1]])
            p.tie(c.bigram(b), float(c.tri_min[k]))
            return p
        g = float(c.tri.gamma[k])
        lo, hi = c.tri.start[k], c.tri.start[k + 1]
        b_lo, b_hi = c.bi.start[b], c.bi.start[b + 1]
        s = g * float(c.bi.gamma[b])
        val = g * c.p2[b_lo:b_hi]
        if k not in c.tri_general:  # the usual case: whatever follows (a, b) also follows b
            val[c.tri_pos[lo:hi]] += c.tri_add[lo:hi]
            return Dist(c.support(b), s, val)
        nxt, low = c.tri.nxt[lo:hi], c.support(b).idx
        idx = np.union1d(low, nxt)
        full = s * self._p1[idx]
        full[idx.searchsorted(low)] = val
        full[idx.searchsorted(nxt)] += c.tri_add[lo:hi]
        return Dist(Support(self.base, idx), s, full)

    def count_context(self, context: Sequence[int]) -> int:
        """How often the model's context (its last order − 1 ids) occurs followed by a token."""
        k = self.order - 1
        if k == 0:
            return self.n_tokens
        h = tuple(context[-k:])
        if len(h) < k or UNK in h:
            return 0
        if k == 1:
            return int(self._bi.total[h[0]])
        row = self._pair_row.get(h[0] * self.V + h[1])
        return 0 if row is None else int(self._tri.total[row])


def models_from_counts(vocab, unigrams, bigrams, trigrams, cache_bytes: int | None = None
                       ) -> dict[str, NGramModel]:
    """The unigram, bigram and trigram models of one text, sharing one table of counts;
    ``cache_bytes`` bounds each model's kept distributions (see NGramModel)."""
    counts = Counts(vocab, unigrams, bigrams, trigrams)
    return {name: NGramModel(vocab, None, None, None, order, counts=counts, cache_bytes=cache_bytes)
            for name, order in MODEL_ORDERS.items()}


@lru_cache(maxsize=None)
def load_models(lang: str) -> dict[str, NGramModel]:
    """The three models of one language, counted from its committed snapshot."""
    snap = corpus.load(lang)
    return models_from_counts(snap.vocab, snap.unigrams, snap.bigrams, snap.trigrams)
