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

from functools import lru_cache
from typing import Sequence

import numpy as np

import corpus

MODEL_ORDERS = {"unigram": 1, "bigram": 2, "trigram": 3}
UNK = -1  # id of a context token outside the vocabulary: the model backs off past it


class _Rows:
    """Continuation counts of each context, as one CSR-like table: row k holds the tokens seen after
    context k and how often. ``gamma`` and ``1 / total`` are precomputed per row."""

    def __init__(self, keys: np.ndarray, nxt: np.ndarray, cnt: np.ndarray, n_rows: int):
        # keys are row numbers, already sorted.
        self.start = np.searchsorted(keys, np.arange(n_rows + 1))
        self.nxt = nxt.astype(np.int64)
        self.cnt = cnt.astype(np.float64)
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


class NGramModel:
    """Witten–Bell interpolated model of one order over a fixed vocabulary."""

    def __init__(self, vocab: Sequence[str], unigrams, bigrams, trigrams, order: int, name: str = ""):
        if order not in (1, 2, 3):
            raise ValueError("order must be 1, 2 or 3")
        self.order = order
        self.name = name or {v: k for k, v in MODEL_ORDERS.items()}[order]
        self.vocab = list(vocab)
        self.index = {tok: i for i, tok in enumerate(self.vocab)}
        self.V = len(self.vocab)
        c1 = np.asarray(unigrams, dtype=np.float64)
        self.n_tokens = int(c1.sum())
        self._p1 = c1 / c1.sum()
        self._p1.setflags(write=False)
        if order >= 2:
            b = np.asarray(bigrams, dtype=np.int64).reshape(-1, 3)
            self._bi = _Rows(b[:, 0], b[:, 1], b[:, 2], self.V)
        if order >= 3:
            t = np.asarray(trigrams, dtype=np.int64).reshape(-1, 4)
            pair = t[:, 0] * self.V + t[:, 1]
            keys, row_of = np.unique(pair, return_inverse=True)
            self._pair_row = {int(k): i for i, k in enumerate(keys)}
            self._tri = _Rows(row_of, t[:, 2], t[:, 3], len(keys))
        # Contexts repeat a lot in running text: keep recent distributions and their cumulative sums.
        # 1024 vectors of V floats is about 24 MB per table for English; a larger cache bought
        # only 4 % on the 10,000-token benchmark and multiplied a server worker's memory.
        self._dist_cached = lru_cache(maxsize=1024)(self._dist)
        self._cdf_cached = lru_cache(maxsize=1024)(self._cdf)

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

    def dist(self, context: Sequence[int] = ()) -> np.ndarray:
        """P(· | context) over the whole vocabulary (read-only array that sums to 1).

        Only the last ``order − 1`` ids of the context are read."""
        return self._dist_cached(self._key(context))

    def sample(self, context: Sequence[int], rng: np.random.Generator) -> int:
        """One token drawn from P(· | context), by inverting the cached cumulative sum."""
        cdf = self._cdf_cached(self._key(context))
        return min(int(cdf.searchsorted(rng.random() * cdf[-1], side="right")), self.V - 1)

    def _cdf(self, h: tuple[int, ...]) -> np.ndarray:
        cdf = np.cumsum(self._dist_cached(h))
        cdf.setflags(write=False)
        return cdf

    def _dist(self, h: tuple[int, ...]) -> np.ndarray:
        if not h:
            return self._p1
        if len(h) == 1:
            p = self._bigram(h[0])
        else:
            p = self._trigram(h[0], h[1])
        p.setflags(write=False)
        return p

    def _bigram(self, b: int, scale: float = 1.0) -> np.ndarray:
        """scale · P_2(· | b), built in one pass over the vocabulary (the trigram asks for γ_h · P_2)."""
        if b == UNK or self._bi.total[b] == 0:
            return scale * self._p1
        nxt, cnt, total, g = self._bi.row(b)
        p = (scale * g) * self._p1
        p[nxt] += (scale * (1.0 - g) / total) * cnt
        return p

    def _trigram(self, a: int, b: int) -> np.ndarray:
        k = self._pair_row.get(a * self.V + b) if a != UNK and b != UNK else None
        if k is None:
            return self._bigram(b)
        nxt, cnt, total, g = self._tri.row(k)
        p = self._bigram(b, scale=g)
        p[nxt] += (1.0 - g) * cnt / total
        return p

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


@lru_cache(maxsize=None)
def load_models(lang: str) -> dict[str, NGramModel]:
    """The three models of one language, counted from its committed snapshot."""
    snap = corpus.load(lang)
    return {name: NGramModel.from_snapshot(snap, order) for name, order in MODEL_ORDERS.items()}
