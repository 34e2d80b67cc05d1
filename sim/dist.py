"""A distribution over the vocabulary stored as a scaled unigram plus a few explicit entries.

Every Witten–Bell distribution (``sim.ngram``) has this shape. Unrolling the interpolation,

    P_3(w | a, b) = γ_ab γ_b · P_1(w)  +  (terms only for the tokens seen after b or after a b),

so p(w) = s · P_1(w) for every token w outside a short list ``idx`` (the continuations the counts
have seen: at most a few hundred, against a vocabulary of thousands), and p(w) = ``val`` there.
The two operations of speculative decoding keep that shape (Leviathan et al. 2023, §2.3 and
Definition 3.1): for p = (s_p, idx_p, val_p) and q = (s_q, idx_q, val_q) over U = idx_p ∪ idx_q,

    Σ_w min(p, q)     = min(s_p, s_q) · (1 − P_1(U))  +  Σ_{w∈U} min(p(w), q(w))
    max(0, p − q)     = max(0, s_p − s_q) · P_1  off U,   max(0, p(w) − q(w)) on U,

so sampling, p(x), arg-max, Σ min(p, q) and the residual all cost O(|U| + log V) instead of O(V).
``dense()`` gives the ordinary vector where a whole one is wanted (tests, the API's /dist).
"""
from __future__ import annotations

import numpy as np

_EMPTY_I = np.zeros(0, dtype=np.int64)
_EMPTY_F = np.zeros(0, dtype=np.float64)


class Base:
    """The unigram P_1 shared by every distribution of one vocabulary, with what sampling and
    arg-max need precomputed once: its cumulative sum and its tokens from likeliest down."""

    def __init__(self, p1: np.ndarray):
        self.p = np.asarray(p1, dtype=np.float64)
        self.V = self.p.size
        self.cdf = np.cumsum(self.p)
        # Stable, so equal probabilities keep index order: the same tie-break as np.argmax.
        self.order = np.argsort(-self.p, kind="stable")
        for a in (self.p, self.cdf, self.order):
            a.setflags(write=False)


class Dist:
    """p(w) = val[j] where w = idx[j], s · base.p[w] elsewhere. ``idx`` is sorted and unique.

    Immutable in use (arrays are read-only); the total mass is normally 1."""

    __slots__ = ("base", "s", "idx", "val", "off", "tag", "_cum")

    def __init__(self, base: Base, s: float, idx: np.ndarray = _EMPTY_I, val: np.ndarray = _EMPTY_F,
                 p1_of_idx: float | None = None, tag=None):
        self.base = base
        self.s = float(s)
        self.idx = idx
        self.val = val
        # Two Dists with the same tag (not None) have the same idx: the models tag a distribution
        # with the token whose continuations it lists, so p and q at one context skip the union.
        self.tag = tag
        # The mass off idx: s · (1 − P_1(idx)); the models pass P_1(idx), precomputed per row.
        if self.s:
            self.off = self.s * (1.0 - (float(base.p[idx].sum()) if p1_of_idx is None else p1_of_idx))
        else:
            self.off = 0.0
        self._cum = None

    @classmethod
    def point(cls, base: Base, x: int) -> "Dist":
        """All the mass on one token (the prompt-lookup draft's q)."""
        return cls(base, 0.0, np.array([x], dtype=np.int64), np.ones(1))

    @property
    def V(self) -> int:
        return self.base.V

    @property
    def mass(self) -> float:
        return self.off + float(self.val.sum())

    def __getitem__(self, x):
        """p(x) for a token id, or an array of them."""
        if isinstance(x, (int, np.integer)):
            j = int(self.idx.searchsorted(x))
            if j < self.idx.size and self.idx[j] == x:
                return float(self.val[j])
            return self.s * float(self.base.p[x])
        x = np.asarray(x)
        if not self.idx.size:
            return self.s * self.base.p[x]
        j = np.minimum(self.idx.searchsorted(x), self.idx.size - 1)
        return np.where(self.idx[j] == x, self.val[j], self.s * self.base.p[x])


    def dense(self) -> np.ndarray:
        """The whole vector (O(V)): for tests, the API and plots, never the loop."""
        p = self.s * self.base.p
        p[self.idx] = self.val
        return p

    def sample(self, u: float) -> int:
        """The token at cumulative mass u · mass, for u uniform in [0, 1): one draw from p.

        The explicit entries come first, then the tokens off idx in vocabulary order; like any
        inversion of a cumulative sum it is exact, and it uses one uniform per draw."""
        if self._cum is None:
            self._cum = np.cumsum(self.val)
        on = float(self._cum[-1]) if self.val.size else 0.0
        t = u * (on + self.off)
        if t < on or self.off <= 0.0:
            j = int(self._cum.searchsorted(t, side="right"))
            return int(self.idx[min(j, self.idx.size - 1)])
        return self._sample_off((t - on) / self.s)

    def _sample_off(self, t: float) -> int:
        """The token off idx where P_1's cumulative sum, with idx's own mass taken out, passes t."""
        base, idx = self.base, self.idx
        if not idx.size:
            return min(int(base.cdf.searchsorted(t, side="right")), base.V - 1)
        cut = np.cumsum(base.p[idx])               # P_1 mass of idx up to and including idx[j]
        below = base.cdf[idx] - cut                 # off-idx mass before idx[j] (and at it)
        j = int(below.searchsorted(t, side="right"))  # the gap before idx[j] (j = len: after the last)
        lo = int(idx[j - 1]) + 1 if j else 0
        hi = int(idx[j]) - 1 if j < idx.size else base.V - 1
        w = int(base.cdf.searchsorted(t + (float(cut[j - 1]) if j else 0.0), side="right"))
        w = min(max(w, lo), hi)
        if lo > hi:  # rounding at the very end of the mass: take the last token off idx
            w = int(np.setdiff1d(np.arange(base.V), idx)[-1])
        return w

    def argmax(self) -> int:
        """The likeliest token, the lowest id among equals (as np.argmax of ``dense()``)."""
        best, best_p = -1, -1.0
        if self.val.size:
            j = int(np.argmax(self.val))
            best, best_p = int(self.idx[j]), float(self.val[j])
        if self.s > 0:
            w = self._first_off()
            pw = self.s * float(self.base.p[w])
            if pw > best_p or (pw == best_p and w < best):
                best = w
        return best

    def _first_off(self, skip: int = 0) -> int:
        """The likeliest token off idx under P_1 (after ``skip`` of them)."""
        for w in self.base.order:
            if not self._has(w):
                if skip == 0:
                    return int(w)
                skip -= 1
        return -1

    def _has(self, w: int) -> bool:
        j = int(self.idx.searchsorted(w))
        return j < self.idx.size and self.idx[j] == w

    def top(self, k: int) -> list[tuple[int, float]]:
        """The k likeliest tokens as (id, p), likeliest first, lower ids first among equals;
        tokens with p = 0 are left out (a point mass has a top list of one)."""
        if k < 1:
            return []
        # The k largest explicit entries (and any equal to the k-th: partition is O(|idx|)),
        # then the k likeliest tokens off idx; the answer is among these.
        j = np.flatnonzero(self.val > 0)
        if j.size > k:
            kth = np.partition(self.val[j], j.size - k)[j.size - k]
            j = j[self.val[j] >= kth]
        cand = list(zip(self.idx[j].tolist(), self.val[j].tolist()))
        if self.s > 0:
            taken = 0
            for w in self.base.order:
                if taken == k:
                    break
                if not self._has(w):
                    cand.append((int(w), self.s * float(self.base.p[w])))
                    taken += 1
        cand.sort(key=lambda wv: (-wv[1], wv[0]))
        return cand[:k]


def _union(p: Dist, q: Dist) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """U = idx_p ∪ idx_q with p and q on it, skipping the set operation where one side is U."""
    if p.idx is q.idx or (p.tag is not None and p.tag == q.tag):
        return p.idx, p.val, q.val
    if not q.idx.size:
        return p.idx, p.val, q[p.idx]
    if not p.idx.size:
        return q.idx, p[q.idx], q.val
    U = np.union1d(p.idx, q.idx)
    return U, p[U], q[U]


def overlap(p: Dist, q: Dist) -> float:
    """Σ_w min(p(w), q(w)) in O(|idx_p ∪ idx_q|)."""
    U, pu, qu = _union(p, q)
    off = min(p.s, q.s)
    off_mass = off * (1.0 - float(p.base.p[U].sum())) if off else 0.0
    return off_mass + float(np.minimum(pu, qu).sum())


def residual(p: Dist, q: Dist) -> Dist:
    """max(0, p − q) normalised, as a Dist over the same base. Returns p itself when p and q agree
    to rounding (no mass left: a refusal cannot happen then except by rounding)."""
    U, pu, qu = _union(p, q)
    r = np.maximum(pu - qu, 0.0)
    s = max(p.s - q.s, 0.0)
    mass = (s * (1.0 - float(p.base.p[U].sum())) if s else 0.0) + float(r.sum())
    if mass <= 1e-15:
        return p
    return Dist(p.base, s / mass, U, r / mass)
