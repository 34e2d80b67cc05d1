"""A distribution over the vocabulary stored as a scaled unigram plus a few explicit entries.

Every Witten–Bell distribution (``sim.ngram``) has this shape. Unrolling the interpolation,

    P_3(w | a, b) = γ_ab γ_b · P_1(w)  +  (terms only for the tokens seen after b or after a b),

so p(w) = s · P_1(w) for every token w outside a short sorted list ``idx`` (the continuations
the counts have seen: at most a few hundred, against a vocabulary of thousands), and p(w) = ``val``
there. The two operations of speculative decoding keep that shape (Leviathan et al. 2023, §2.3
and Definition 3.1): for p = (s_p, idx_p, val_p) and q = (s_q, idx_q, val_q) over
U = idx_p ∪ idx_q,

    Σ_w min(p, q)     = min(s_p, s_q) · (1 − P_1(U))  +  Σ_{w∈U} min(p(w), q(w))
    max(0, p − q)     = max(0, s_p − s_q) · P_1  off U,   max(0, p(w) − q(w)) on U,

so sampling, p(x), arg-max, Σ min(p, q) and the residual all cost O(|U| + log V) instead of O(V).
What depends only on ``idx`` (its unigram mass, where sampling off it lands, the likeliest token
off it) lives in a ``Support`` that the models build once per context row and share between
the draft and the target. ``dense()`` gives the ordinary vector where a whole one is wanted.
"""
from __future__ import annotations

from bisect import bisect_right

import numpy as np


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
        self.empty = Support(self, np.zeros(0, dtype=np.int64))
        self._cdf_list = None

    @property
    def cdf_list(self) -> list[float]:
        """``cdf`` as a Python list, made on first use (``Draws`` searches it by bisection)."""
        if self._cdf_list is None:
            self._cdf_list = self.cdf.tolist()
        return self._cdf_list


class Support:
    """A sorted list of token ids and what the off-list part of a distribution needs to know
    about it; computed on first use and kept (the models share one per context row)."""

    __slots__ = ("base", "idx", "_p1", "_cut", "_below", "_first")

    def __init__(self, base: Base, idx: np.ndarray):
        self.base, self.idx = base, idx
        self._p1 = self._cut = self._below = self._first = None

    @property
    def p1(self) -> float:
        """P_1(idx): the unigram mass on the list."""
        if self._p1 is None:
            self._p1 = float(self.cut[-1]) if self.idx.size else 0.0
        return self._p1

    @property
    def cut(self) -> np.ndarray:
        """P_1 mass of idx[0..j], for each j."""
        if self._cut is None:
            self._cut = self.base.p[self.idx].cumsum()
        return self._cut

    @property
    def below(self) -> np.ndarray:
        """P_1 mass off the list up to idx[j]: where inverting the off-list part crosses a gap."""
        if self._below is None:
            self._below = self.base.cdf[self.idx] - self.cut
        return self._below

    def off_list(self):
        """The tokens off the list, likeliest under P_1 first (lowest id among equals)."""
        return (int(w) for w in self.base.order if not self.has(int(w)))

    def off_top(self, k: int) -> np.ndarray:
        """The first k tokens of ``off_list``, found at once: at most |idx| of P_1's k + |idx|
        likeliest tokens are on the list, so the rest of them are the k wanted."""
        head = self.base.order[:k + self.idx.size]
        if self.idx.size:
            j = np.minimum(self.idx.searchsorted(head), self.idx.size - 1)
            head = head[self.idx[j] != head]
        return head[:k]

    @property
    def first_off(self) -> int:
        """The likeliest token off the list, −1 if none (kept: arg-max asks for it every time)."""
        if self._first is None:
            self._first = next(self.off_list(), -1)
        return self._first

    def has(self, w: int) -> bool:
        j = int(self.idx.searchsorted(w))
        return j < self.idx.size and self.idx[j] == w


class Dist:
    """p(w) = val[j] where w = sup.idx[j], s · base.p[w] elsewhere.

    Immutable in use (arrays are read-only); the total mass is normally 1."""

    # The kept pairs (q, a number) are two slots each, not a tuple: a long run makes thousands of
    # distributions, and every tuple is one more object for the garbage collector to walk.
    __slots__ = ("sup", "s", "val", "off", "_cum", "_on", "_arg", "_ov_q", "_ov", "_tie_q", "_tie")

    def __init__(self, sup: Support, s: float, val: np.ndarray):
        self.sup = sup
        self.s = s
        self.val = val
        self.off = s * (1.0 - sup.p1) if s else 0.0   # the mass off the list
        self._cum = None
        self._on = None    # the mass on the list, as ``sample`` sums it
        self._arg = None   # ``argmax()``, kept: the loop asks it of the same distribution often
        self._ov_q = self._ov = None     # the last q asked and Σ min(self, q) (``overlap_with``)
        self._tie_q = self._tie = None   # a q over the same list and Σ min on it, known beforehand

    @classmethod
    def unigram(cls, base: Base, s: float = 1.0) -> "Dist":
        return cls(base.empty, s, np.zeros(0))

    @classmethod
    def point(cls, base: Base, x: int) -> "Dist":
        """All the mass on one token (the prompt-lookup draft's q)."""
        return cls(Support(base, np.array([x], dtype=np.int64)), 0.0, np.ones(1))

    @property
    def base(self) -> Base:
        return self.sup.base

    @property
    def idx(self) -> np.ndarray:
        return self.sup.idx

    @property
    def V(self) -> int:
        return self.sup.base.V

    @property
    def mass(self) -> float:
        return self.off + float(self.val.sum())

    def __getitem__(self, x):
        """p(x) for a token id, or an array of them."""
        idx = self.sup.idx
        if isinstance(x, (int, np.integer)):
            j = int(idx.searchsorted(x))
            if j < idx.size and idx[j] == x:
                return float(self.val[j])
            return self.s * float(self.sup.base.p[x])
        x = np.asarray(x)
        if not idx.size:
            return self.s * self.sup.base.p[x]
        j = np.minimum(idx.searchsorted(x), idx.size - 1)
        return np.where(idx[j] == x, self.val[j], self.s * self.sup.base.p[x])

    def dense(self) -> np.ndarray:
        """The whole vector (O(V)): for tests, the API and plots, never the loop."""
        p = self.s * self.sup.base.p
        p[self.sup.idx] = self.val
        return p

    def sample(self, u: float) -> int:
        """The token at cumulative mass u · mass, for u uniform in [0, 1): one draw from p.

        The explicit entries come first, then the tokens off the list in vocabulary order; like
        any inversion of a cumulative sum it is exact, and it uses one uniform per draw."""
        if self._cum is None:
            self._cum = self.val.cumsum()
        on = float(self._cum[-1]) if self.val.size else 0.0
        t = u * (on + self.off)
        if t < on or self.off <= 0.0:
            j = int(self._cum.searchsorted(t, side="right"))
            return int(self.sup.idx[min(j, self.sup.idx.size - 1)])
        return self._sample_off((t - on) / self.s)

    def draw(self, u: float) -> tuple[int, int]:
        """``sample(u)`` and the token's place in the list (−1 when it is off the list), so that
        a distribution over the same list reads its probability without a search. The same
        arithmetic as ``sample``, step for step: the same u gives the same token."""
        cum = self._cum
        if cum is None:
            cum = self._cum = self.val.cumsum()
        on = self._on
        if on is None:
            on = self._on = float(cum[-1]) if self.val.size else 0.0
        t = u * (on + self.off)
        if t < on or self.off <= 0.0:
            j = min(int(cum.searchsorted(t, side="right")), self.val.size - 1)
            return int(self.sup.idx[j]), j
        return self._sample_off((t - on) / self.s), -1

    def _sample_off(self, t: float) -> int:
        """The token off the list where P_1's cumulative sum, the list's own mass taken out,
        passes t."""
        sup, base = self.sup, self.sup.base
        idx = sup.idx
        if not idx.size:
            return min(int(base.cdf.searchsorted(t, side="right")), base.V - 1)
        j = int(sup.below.searchsorted(t, side="right"))  # in the gap before idx[j] (or after all)
        lo = int(idx[j - 1]) + 1 if j else 0
        hi = int(idx[j]) - 1 if j < idx.size else base.V - 1
        w = int(base.cdf.searchsorted(t + (float(sup.cut[j - 1]) if j else 0.0), side="right"))
        if lo > hi:  # rounding at the very end of the mass: the last token off the list
            return int(np.setdiff1d(np.arange(base.V), idx)[-1])
        return min(max(w, lo), hi)

    def argmax(self) -> int:
        """The likeliest token, the lowest id among equals (as np.argmax of ``dense()``)."""
        if self._arg is None:
            self._arg = self._argmax()
        return self._arg

    def _argmax(self) -> int:
        best, best_p = -1, -1.0
        if self.val.size:
            j = int(self.val.argmax())
            best, best_p = int(self.sup.idx[j]), float(self.val[j])
        if self.s > 0 and self.sup.first_off >= 0:
            w = self.sup.first_off
            pw = self.s * float(self.sup.base.p[w])
            if pw > best_p or (pw == best_p and w < best):
                best = w
        return best

    def tie(self, q: "Dist", on_list: float) -> None:
        """Tell this distribution Σ_w min(p(w), q(w)) over its list, computed beforehand (a
        table of them, ``sim.ngram``), for a q over the same list; ``overlap`` then adds the
        part off the list."""
        assert q.sup is self.sup
        self._tie_q, self._tie = q, on_list

    def overlap_with(self, q: "Dist") -> float:
        """``overlap(self, q)``, kept for the last q asked: the loop asks each of the target's
        distributions against the same draft's again and again."""
        if self._ov_q is q:
            return self._ov
        ov = overlap(self, q)
        self._ov_q, self._ov = q, ov
        return ov

    def top(self, k: int) -> list[tuple[int, float]]:
        """The k likeliest tokens as (id, p), likeliest first, lower ids first among equals;
        tokens with p = 0 are left out (a point mass has a top list of one)."""
        if k < 1:
            return []
        # The k largest explicit entries (and any equal to the k-th: partition is O(|idx|)),
        # then the k likeliest tokens off the list; the answer is among these.
        j = np.flatnonzero(self.val > 0)
        if j.size > k:
            kth = np.partition(self.val[j], j.size - k)[j.size - k]
            j = j[self.val[j] >= kth]
        cand = list(zip(self.sup.idx[j].tolist(), self.val[j].tolist()))
        if self.s > 0:
            off = self.sup.off_top(k)
            cand += zip(off.tolist(), (self.s * self.sup.base.p[off]).tolist())
        cand.sort(key=lambda wv: (-wv[1], wv[0]))
        return cand[:k]


class Draws:
    """One distribution made ready for many draws in a row (a loop that draws from the same
    context again and again): its running sum and its list of tokens as Python lists, searched
    by bisection, where a numpy search costs a call's overhead every draw. ``draws(u)`` is
    ``d.draw(u)``, token for token: the same numbers compared in the same order."""

    __slots__ = ("dist", "val", "_cum", "_idx", "_on", "_total", "_off", "_gaps")

    def __init__(self, d: Dist):
        self.dist = d
        cum = d.val.cumsum()
        self._cum = cum.tolist()
        self._idx = d.sup.idx.tolist()
        self.val = d.val.tolist()    # p(x) where x = idx[j]: what a check reads
        self._on = self._cum[-1] if self._cum else 0.0
        self._off = d.off
        self._total = self._on + d.off
        self._gaps = None

    def __call__(self, u: float) -> tuple[int, int]:
        t = u * self._total
        if t < self._on or self._off <= 0.0:
            j = bisect_right(self._cum, t)
            if j >= len(self._cum):
                j = len(self._cum) - 1
            return self._idx[j], j
        return self._sample_off((t - self._on) / self.dist.s), -1

    def _sample_off(self, t: float) -> int:
        """``Dist._sample_off`` on lists."""
        d = self.dist
        idx = self._idx
        if not idx:
            return d._sample_off(t)
        if self._gaps is None:
            self._gaps = (d.sup.below.tolist(), d.sup.cut.tolist(), d.base.cdf_list)
        below, cut, cdf = self._gaps
        j = bisect_right(below, t)
        lo = idx[j - 1] + 1 if j else 0
        hi = idx[j] - 1 if j < len(idx) else d.base.V - 1
        if lo > hi:
            return d._sample_off(t)
        w = bisect_right(cdf, t + (cut[j - 1] if j else 0.0))
        return min(max(w, lo), hi)


def _union(p: Dist, q: Dist) -> tuple[Support, np.ndarray, np.ndarray]:
    """U = idx_p ∪ idx_q with p and q on it, skipping the set operation where one side is U."""
    if p.sup is q.sup:
        return p.sup, p.val, q.val
    if not q.sup.idx.size:
        return p.sup, p.val, q[p.sup.idx]
    if not p.sup.idx.size:
        return q.sup, p[q.sup.idx], q.val
    U = np.union1d(p.sup.idx, q.sup.idx)
    return Support(p.sup.base, U), p[U], q[U]


_FIRST = np.zeros(1, dtype=np.intp)


def _total(a: np.ndarray) -> float:
    """Σ a, added as ``np.add.reduceat`` adds one row of a table (ndarray.sum adds in another
    order, which differs in the last bits): a table of sums made at once agrees with it."""
    return float(np.add.reduceat(a, _FIRST)[0]) if a.size else 0.0


def overlap(p: Dist, q: Dist) -> float:
    """Σ_w min(p(w), q(w)) in O(|idx_p ∪ idx_q|), or O(1) where p knows its sum on the list
    against this q (``Dist.tie``)."""
    off = min(p.s, q.s)
    if p._tie_q is q:
        return (off * (1.0 - p.sup.p1) if off else 0.0) + p._tie
    U, pu, qu = _union(p, q)
    return (off * (1.0 - U.p1) if off else 0.0) + _total(np.minimum(pu, qu))


def residual(p: Dist, q: Dist) -> Dist:
    """max(0, p − q) normalised, over the same base. Returns p itself when p and q agree to
    rounding (no mass left: a refusal cannot happen then except by rounding)."""
    U, pu, qu = _union(p, q)
    r = np.maximum(pu - qu, 0.0)
    s = max(p.s - q.s, 0.0)
    mass = (s * (1.0 - U.p1) if s else 0.0) + float(r.sum())
    if mass <= 1e-15:
        return p
    return Dist(U, s / mass, r / mass)
