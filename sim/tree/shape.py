"""Tree shapes: where the guesses of one pass sit, before any token is chosen, and the best one.

A shape is the topology of a token tree (SpecInfer, Miao et al. 2024, arXiv:2305.09781,
Definition 3.1): node 0 is the root (the last token written, whose position the target works out
too), nodes 1..n are the n guesses, each with a parent that comes before it; the children of a
node are ordered (child 1, child 2, …: the draft's first, second, … proposal there). The node
budget n counts the guesses only, like γ for a chain: one target pass works out n + 1 positions.
Depth counts levels of guesses (the root is at depth 0), so a chain of γ guesses has depth γ.
Sequoia (below) counts the root in both: its size is our n + 1 and its depth our d + 1.

Fixed shapes: a chain; the k-ary tree filled breadth first up to depth d (what "top-k children at
each node" gives within a budget); k independent sequences of one length (SpecInfer's and
Sequoia's baseline, "k × L"); SpecInfer's expansion configuration ⟨k_1, …, k_m⟩ (§3).

The best shape: Chen et al. (2024), "Sequoia: Scalable, Robust, and Hardware-aware Speculative
Decoding", arXiv:2402.12374, §3.1. Under the positional acceptance assumption (Definition 3.1:
the chance that the k-th child of an accepted node is accepted depends on k alone, P[k]), a tree
T writes on average (Proposition 3.4)

    F(T) = Σ_{v ∈ T} f(v),   f(v) = Π_{i ∈ Path(v)} P[i],   f(root) = 1,

and the dynamic programme of Algorithm 1, with the depth bound of Appendix F.1.1 (Algorithm 4),
finds the tree of each size that maximises it:

    T[m, l, b] = max_{1 ≤ j ≤ m−1}  T[m − j, l, b − 1] + P[b] · T_max[j, l − 1],
    T[1, l, 0] = 1,   T_max[m, l] = max_b T[m, l, b],

m the size, l the depth limit (both counting the root), b the root's number of children: the tree
is its first b − 1 children's subtrees plus the last child's subtree of size j, which only counts
when the b-th child is accepted. ``brute_force`` checks it against every tree on small budgets.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Iterator, Sequence

import numpy as np

N_MAX = 64       # the largest node budget (guesses per pass) sim accepts
BRANCH_MAX = 16  # children per node at most (the draft's 16 likeliest tokens)


def check_int(name: str, value, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
        raise ValueError(f"{name} must be an integer from {lo} to {hi}, got {value!r}")
    return int(value)


@dataclass(frozen=True)
class Shape:
    """``parents[i − 1]`` is the parent of node i (node 0 is the root); every parent comes first,
    and siblings are in their order (the first listed is child 1)."""

    parents: tuple[int, ...]

    def __post_init__(self):
        if len(self.parents) > N_MAX:
            raise ValueError(f"a shape has at most {N_MAX} nodes besides the root, got {len(self.parents)}")
        for i, u in enumerate(self.parents, 1):
            if not (isinstance(u, (int, np.integer)) and 0 <= u < i):
                raise ValueError(f"node {i}'s parent must be an earlier node, got {u!r}")

    @property
    def n(self) -> int:
        """The node budget it uses: guesses, the root not counted."""
        return len(self.parents)

    @cached_property
    def children(self) -> tuple[tuple[int, ...], ...]:
        kids: list[list[int]] = [[] for _ in range(self.n + 1)]
        for i, u in enumerate(self.parents, 1):
            kids[u].append(i)
        return tuple(tuple(k) for k in kids)

    @cached_property
    def depths(self) -> tuple[int, ...]:
        d = [0]
        for u in self.parents:
            d.append(d[u] + 1)
        return tuple(d)

    @property
    def depth(self) -> int:
        return max(self.depths)

    @cached_property
    def ranks(self) -> tuple[int, ...]:
        """Each node's place among its siblings (1 = first child); 0 for the root."""
        r = [0] * (self.n + 1)
        for kids in self.children:
            for j, v in enumerate(kids, 1):
                r[v] = j
        return tuple(r)

    def path(self, v: int) -> list[int]:
        """The nodes from the root's child down to v (empty for the root)."""
        out = []
        while v:
            out.append(v)
            v = self.parents[v - 1]
        return out[::-1]

    # --- fixed shapes ---------------------------------------------------------------------

    @classmethod
    def chain(cls, n: int) -> "Shape":
        n = check_int("n", n, 0, N_MAX)
        return cls(tuple(range(n)))

    @classmethod
    def kary(cls, k: int, d: int, n: int) -> "Shape":
        """The k likeliest children at every node, breadth first, until depth d or n nodes."""
        k = check_int("k", k, 1, BRANCH_MAX)
        d = check_int("d", d, 1, N_MAX)
        n = check_int("n", n, 1, N_MAX)
        parents, depth, frontier = [], [0], [0]
        while frontier and len(parents) < n:
            nxt = []
            for u in frontier:
                if depth[u] >= d:
                    continue
                for _ in range(k):
                    if len(parents) == n:
                        break
                    parents.append(u)
                    depth.append(depth[u] + 1)
                    nxt.append(len(parents))
            frontier = nxt
        return cls(tuple(parents))

    @classmethod
    def sequences(cls, k: int, length: int) -> "Shape":
        """k independent sequences of ``length`` guesses from the root (SpecInfer's 5 × 8),
        listed level by level."""
        k = check_int("k", k, 1, BRANCH_MAX)
        length = check_int("length", length, 1, N_MAX)
        if k * length > N_MAX:
            raise ValueError(f"k × length must be at most {N_MAX}, got {k * length}")
        parents = [0] * k
        for level in range(1, length):
            parents += [(level - 1) * k + s + 1 for s in range(k)]
        return cls(tuple(parents))

    @classmethod
    def expansion(cls, ks: Sequence[int]) -> "Shape":
        """SpecInfer §3's expansion configuration ⟨k_1, …, k_m⟩: every node at depth i − 1 gets
        k_i children."""
        parents, frontier = [], [0]
        for k in ks:
            k = check_int("k", k, 1, BRANCH_MAX)
            nxt = []
            for u in frontier:
                for _ in range(k):
                    parents.append(u)
                    nxt.append(len(parents))
            frontier = nxt
            if len(parents) > N_MAX:
                raise ValueError(f"the expansion has more than {N_MAX} nodes")
        return cls(tuple(parents))

    def to_json(self) -> dict:
        return {"n": self.n, "depth": self.depth, "parents": [None, *self.parents],
                "depths": list(self.depths), "ranks": list(self.ranks)}


def attention_mask(parents: Sequence[int]) -> np.ndarray:
    """The tree attention mask (SpecInfer §4.1–4.2, the topology-aware causal mask) over nodes
    0..n: row i is True where node i may attend, i.e. at itself and its ancestors. The context
    before the root is seen by every node and is left out."""
    n = len(parents)
    m = np.zeros((n + 1, n + 1), dtype=bool)
    m[0, 0] = True
    for i, u in enumerate(parents, 1):
        m[i] = m[u]
        m[i, i] = True
    return m


# --- Sequoia's expected tokens and dynamic programme ---------------------------------------

def _acceptance(P: Sequence[float]) -> np.ndarray:
    """P as a float array indexed by child place: P[0] is unused (0), P[1] the first child's."""
    P = np.asarray(P, dtype=np.float64)
    if P.ndim != 1 or P.size < 2 or not np.all(np.isfinite(P)) or np.any(P < 0) or np.any(P > 1):
        raise ValueError("P must list at least one acceptance probability in 0..1 (P[0] unused)")
    return P


def expected_tokens(shape: Shape, P: Sequence[float]) -> float:
    """F(T) = Σ_v f(v) (Sequoia, Proposition 3.4): tokens a pass writes on average when the k-th
    child of an accepted node is accepted with probability P[k]. Children past len(P) − 1 count 0."""
    P = _acceptance(P)
    f = [1.0]
    for v, u in enumerate(shape.parents, 1):
        k = shape.ranks[v]
        f.append(f[u] * (P[k] if k < P.size else 0.0))
    return float(sum(f))


@dataclass(frozen=True)
class Programme:
    """Sequoia's tables: ``best[m, l]`` = T_max (size m and depth limit l, both counting the root;
    −inf where no tree fits), and what is needed to rebuild the trees."""

    P: tuple[float, ...]
    best: np.ndarray          # (N + 1, D + 1)
    table: np.ndarray         # T[m, l, b], (N + 1, D + 1, B + 1)
    split: np.ndarray         # argmax j of T[m, l, b]

    def tree(self, m: int, l: int) -> Shape:
        """The best tree of size m (root included) within depth limit l (root included)."""
        if not np.isfinite(self.best[m, l]):
            raise ValueError(f"no tree of {m} nodes fits within depth {l} and {self.table.shape[2] - 1} children")
        return Shape(_flatten(self._nested(m, l)))

    def _nested(self, m: int, l: int) -> list:
        """The tree as nested lists of children (child 1 first)."""
        if m == 1:
            return []
        b = int(np.argmax(self.table[m, l]))   # first best b: the fewest children among equals
        kids = []
        for bb in range(b, 0, -1):              # the last child's subtree first, as Algorithm 4
            j = int(self.split[m, l, bb])
            kids.insert(0, self._nested(j, l - 1))
            m -= j
        assert m == 1
        return kids


def _flatten(nested: list) -> tuple[int, ...]:
    """Breadth-first parent list of a nested tree, so siblings keep their order."""
    parents, queue = [], [(0, nested)]
    while queue:
        nxt = []
        for u, kids in queue:
            for sub in kids:
                parents.append(u)
                nxt.append((len(parents), sub))
        queue = nxt
    return tuple(parents)


def programme(P: Sequence[float], n: int, d: int) -> Programme:
    """Fill Sequoia's T for trees of up to n guesses and depth d (Algorithm 1 with Algorithm 4's
    depth bound), B = len(P) − 1 children at most per node. Vectorised over the depth limit."""
    P = _acceptance(P)
    n = check_int("n", n, 0, N_MAX)
    d = check_int("d", d, 0, N_MAX)
    return _programme(tuple(float(x) for x in P), n + 1, d + 1)


@lru_cache(maxsize=64)
def _programme(P: tuple[float, ...], N: int, D: int) -> Programme:
    B = len(P) - 1
    T = np.full((N + 1, D + 1, B + 1), -np.inf)
    split = np.zeros((N + 1, D + 1, B + 1), dtype=np.int64)
    T[1, 1:, 0] = 1.0
    best = np.full((N + 1, D + 1), -np.inf)
    best[1, 1:] = 1.0
    for m in range(2, N + 1):
        j = np.arange(1, m)                     # size of the last child's subtree
        sub = best[j, 1:D]                      # T_max[j, l − 1] for l = 2..D
        ok = np.isfinite(sub)
        for b in range(1, B + 1):
            # x[j, l] = T[m − j, l, b − 1] + P[b] · T_max[j, l − 1]; a subtree that cannot exist
            # stays −inf even when P[b] = 0 (0 · −inf would be nan)
            x = T[m - j, 2:, b - 1] + np.where(ok, P[b] * np.where(ok, sub, 0.0), -np.inf)
            arg = np.argmax(x, axis=0)
            T[m, 2:, b] = x[arg, np.arange(D - 1)]
            split[m, 2:, b] = j[arg]
        best[m] = T[m].max(axis=1)
    for a in (T, split, best):
        a.setflags(write=False)
    return Programme(P, best, T, split)


def best_shape(P: Sequence[float], n: int, d: int) -> tuple[Shape, float]:
    """The shape of at most n guesses and depth d that writes the most tokens per pass under P,
    and that number F. (With every P[k] > 0 it uses the whole budget when the depth and the
    branching allow.)"""
    prog = programme(P, n, d)
    col = prog.best[:, d + 1]
    m = int(np.argmax(np.where(np.isfinite(col), col, -1.0)))  # first best size: the smallest
    return prog.tree(m, d + 1), float(col[m])


def best_shapes(P: Sequence[float], n: int, d: int) -> list[Shape]:
    """``best_shape`` for every budget 1..n at depth limit d, from one programme."""
    prog = programme(P, n, d)
    col = np.where(np.isfinite(prog.best[:, d + 1]), prog.best[:, d + 1], -1.0)
    return [prog.tree(int(np.argmax(col[:j + 2])), d + 1) for j in range(1, n + 1)]


def best_curve(P: Sequence[float], n: int, d: int) -> list[float]:
    """F of the best shape for every budget 0..n at depth limit d (one programme for all)."""
    prog = programme(P, n, d)
    col = np.maximum.accumulate(np.where(np.isfinite(prog.best[1:, d + 1]), prog.best[1:, d + 1], 1.0))
    return [float(x) for x in col]


def all_shapes(m: int, l: int, b: int) -> Iterator[list]:
    """Every ordered tree of exactly m nodes (root included), depth ≤ l levels, ≤ b children per
    node, as nested lists: for brute force on small budgets (Catalan(m − 1) of them unbounded)."""
    if m == 1:
        yield []
        return
    if l <= 1:
        return

    def forests(size: int, slots: int):
        # Ordered forests of `size` nodes in at most `slots` trees of depth ≤ l − 1.
        if size == 0:
            yield []
            return
        if slots == 0:
            return
        for first in range(1, size + 1):
            for t in all_shapes(first, l - 1, b):
                for rest in forests(size - first, slots - 1):
                    yield [t] + rest

    yield from forests(m - 1, b)


def brute_force(P: Sequence[float], n: int, d: int) -> float:
    """max F over every tree of at most n guesses and depth d (children ≤ len(P) − 1): what the
    programme must equal."""
    P = _acceptance(P)
    best = 1.0
    for m in range(1, n + 2):
        for t in all_shapes(m, d + 1, P.size - 1):
            best = max(best, expected_tokens(Shape(_flatten(t)), P))
    return best
