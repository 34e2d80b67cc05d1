"""Token trees from the n-gram drafts: a shape filled with the draft's guesses, or grown by it.

A token tree (SpecInfer, Miao et al. 2024, arXiv:2305.09781, Definition 3.1) puts several guesses
at a position: node v's children are guesses for the token after the path root → v, all checked by
the target in the same pass (``sim.tree.shape`` for the shapes and the attention mask). The draft q
fills the children of a node in one of three ways (``SAMPLINGS``):

* ``top``: the k likeliest tokens of q, deterministic (SpecInfer §3's expansion from "the top-k
  tokens"; the top-k sampling baseline of Sequoia §2.2; Medusa's and EAGLE's trees);
* ``iid``: k independent draws from q, repeats allowed (SpecInfer with one draft model, as
  Sequoia §2.2 compares it: "samples from a single draft model k times");
* ``wor``: k draws without replacement (Sequoia §3.2, Algorithm 2 lines 5 and 10–16: each draw
  from q with the tokens already drawn removed and renormalised).

Each draw uses one uniform from the injected generator, in node order, so a chain filled by
``iid`` draws its guesses exactly as ``sim.speculative.speculative_step`` does.

The dynamic tree is EAGLE-2's construction (Li et al. 2024, "EAGLE-2: Faster Inference of Language
Models with Dynamic Draft Trees", arXiv:2406.16858: an expansion phase, then a reranking phase;
written from the authors' code, SafeAILab/EAGLE, ``eagle/model/cnets.py``, ``Model.topK_genrate``,
the paper's own text not read here): a node's value is the draft's probability of its whole path,
Π q along it. Expansion: the root's k likeliest
children; then at each of the next levels, the k nodes of the newest level with the highest value
are each given their k likeliest children. Reranking: of every node made, the n with the highest
value are kept. A child's value is at most its parent's, so the kept nodes form a tree (ties go to
the shallower, then the earlier node, so a parent always ranks before its child).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from ..dist import Dist, Support
from ..ngram import NGramModel
from ..speculative import CONTEXT_KEPT
from .shape import BRANCH_MAX, N_MAX, Shape, check_int, attention_mask, best_shape

SAMPLINGS = ("top", "iid", "wor")
SHAPES = ("chain", "kary", "sequences", "dynamic", "best")


def without(d: Dist, xs: Sequence[int]) -> Dist:
    """d with no mass on the tokens ``xs``, renormalised: the draft after tokens already drawn
    (Sequoia Algorithm 2, lines 10 and 16), or a point-mass draft's residual, max(0, R − δ_x)
    normalised, which is R without x. O(|idx| + |xs|)."""
    xs = sorted({int(x) for x in xs})
    idx = d.idx
    pos = [int(j) for j in idx.searchsorted(xs)] if idx.size else []
    if idx.size and all(j < idx.size and idx[j] == x for j, x in zip(pos, xs)):
        sup, val = d.sup, d.val.copy()          # the usual case: every token is on d's list
    else:
        sup = Support(d.base, np.union1d(idx, np.asarray(xs, dtype=np.int64)))
        val = np.array(d[sup.idx], dtype=np.float64)
        pos = sup.idx.searchsorted(xs)
    val[pos] = 0.0
    mass = (d.s * (1.0 - sup.p1) if d.s else 0.0) + float(val.sum())
    if mass <= 1e-15:
        # Only when xs hold all the mass. The n-gram drafts give every token q > 0 and a pass
        # removes at most BRANCH_MAX of them, so Sequoia's fallback to a uniform over the tokens
        # not yet drawn (Algorithm 2, lines 12–14) is never needed here.
        raise ValueError("no mass left once these tokens are removed")
    return Dist(sup, d.s / mass, val / mass)


@dataclass
class Tree:
    """One pass's guesses. Node 0 is the root; ``tokens[0]`` is −1."""

    context: tuple[int, ...]
    shape: Shape
    sampling: str                   # top | iid | wor
    construction: str               # "shape" (a fixed shape filled) or "eagle2"
    tokens: list[int]
    q: list[float]                  # probability under the distribution the node was drawn from
    q_draft: list[float]            # the draft's q(x) at the parent (= q except for wor)
    draws: list[float | None]       # the uniform that drew the node (None: top, or the root)
    q_dists: dict[int, Dist] = field(default_factory=dict, repr=False)  # the draft at each parent

    @property
    def n(self) -> int:
        return self.shape.n

    @property
    def parents(self) -> tuple[int, ...]:
        return self.shape.parents

    @property
    def children(self):
        return self.shape.children

    def path_tokens(self, v: int) -> list[int]:
        return [self.tokens[u] for u in self.shape.path(v)]

    def context_of(self, v: int) -> list[int]:
        """The text a model reads at node v: the context, then the guesses down to v."""
        return list(self.context) + self.path_tokens(v)

    def path_q(self, v: int) -> float:
        """Π q_draft along the path: the draft's probability of the path (EAGLE-2's value)."""
        out = 1.0
        for u in self.shape.path(v):
            out *= self.q_draft[u]
        return out

    def mask(self) -> np.ndarray:
        return attention_mask(self.shape.parents)

    def to_json(self, vocab: Sequence[str], p: Sequence[float] | None = None) -> dict:
        """Nodes (token, parent, depth, rank, q, q_draft, path_q, the uniform that drew it) and the
        attention mask; ``p`` adds the target's p(token) at each node's parent."""
        nodes = []
        for v in range(self.n + 1):
            node = {"id": v, "parent": None if v == 0 else self.shape.parents[v - 1],
                    "depth": self.shape.depths[v], "rank": self.shape.ranks[v],
                    "children": list(self.shape.children[v]),
                    "token": None if v == 0 else vocab[self.tokens[v]]}
            if v:
                node.update(q=self.q[v], q_draft=self.q_draft[v], path_q=self.path_q(v), draw=self.draws[v])
                if p is not None:
                    node["p"] = p[v]
            nodes.append(node)
        return {"context": [vocab[i] if i >= 0 else "<unk>" for i in self.context],
                "sampling": self.sampling, "construction": self.construction,
                "n": self.n, "depth": self.shape.depth, "nodes": nodes,
                "mask": self.mask().astype(int).tolist()}


def check_sampling(sampling: str) -> None:
    if sampling not in SAMPLINGS:
        raise ValueError(f"sampling must be one of {', '.join(SAMPLINGS)}")


def build(draft: NGramModel, context: Sequence[int], shape: Shape, sampling: str,
          rng: np.random.Generator | None = None) -> Tree:
    """Fill ``shape`` with the draft's guesses, node by node in order (one uniform per drawn node;
    ``top`` draws nothing and needs no generator)."""
    check_sampling(sampling)
    if sampling != "top" and rng is None:
        raise ValueError(f"sampling {sampling!r} needs a random generator")
    ctx = tuple(context[-CONTEXT_KEPT:])
    tree = Tree(ctx, shape, sampling, "shape", [-1], [1.0], [1.0], [None])
    left: dict[int, Dist] = {}      # wor: the draft at each parent with its drawn tokens removed
    tops: dict[int, list] = {}
    for v, u in enumerate(shape.parents, 1):
        q = tree.q_dists.get(u)
        if q is None:
            q = tree.q_dists[u] = draft.sparse(tree.context_of(u))
        if sampling == "top":
            if u not in tops:
                tops[u] = q.top(len(shape.children[u]))
            x, qx = tops[u][shape.ranks[v] - 1]
            tree.tokens.append(x)
            tree.q.append(qx)
            tree.draws.append(None)
        else:
            from_ = left.get(u, q) if sampling == "wor" else q
            w = float(rng.random())
            x = from_.sample(w)
            tree.tokens.append(x)
            tree.q.append(from_[x])
            tree.draws.append(w)
            if sampling == "wor" and shape.ranks[v] < len(shape.children[u]):  # a sibling follows
                left[u] = without(from_, [x])
        tree.q_draft.append(q[x])
    return tree


def eagle2(draft: NGramModel, context: Sequence[int], n: int, k: int, d: int) -> Tree:
    """EAGLE-2's dynamic tree of at most n guesses: expand the k best nodes of each level (value:
    the draft's path probability) into their k likeliest children, d levels deep, then keep the n
    best of all the nodes made (fewer if fewer were made: k + (d − 1)k² at most)."""
    n = check_int("n", n, 1, N_MAX)
    k = check_int("k", k, 1, BRANCH_MAX)
    d = check_int("d", d, 1, N_MAX)
    ctx = tuple(context[-CONTEXT_KEPT:])
    # Candidates: (value, depth, order, parent candidate or −1, token, q)
    cands: list[tuple[float, int, int, int, int, float]] = []
    q_of: dict[int, Dist] = {}       # candidate → the draft at its context (−1: the root)

    def path(c: int) -> list[int]:
        out = []
        while c >= 0:
            out.append(cands[c][4])
            c = cands[c][3]
        return out[::-1]

    def expand(c: int) -> list[int]:
        q = q_of[c] = draft.sparse(list(ctx) + (path(c) if c >= 0 else []))
        value = cands[c][0] if c >= 0 else 1.0
        depth = cands[c][1] + 1 if c >= 0 else 1
        made = []
        for x, qx in q.top(k):
            cands.append((value * qx, depth, len(cands), c, x, qx))
            made.append(len(cands) - 1)
        return made

    level = expand(-1)
    for _ in range(d - 1):
        frontier = sorted(level, key=lambda c: (-cands[c][0], c))[:k]
        level = [c2 for c in frontier for c2 in expand(c)]
    kept = sorted(sorted(range(len(cands)), key=lambda c: (-cands[c][0], cands[c][1], c))[:n])
    node_of = {c: i for i, c in enumerate(kept, 1)}
    parents = tuple(node_of[cands[c][3]] if cands[c][3] >= 0 else 0 for c in kept)
    qs = [cands[c][5] for c in kept]
    tree = Tree(ctx, Shape(parents), "top", "eagle2", [-1] + [cands[c][4] for c in kept],
                [1.0] + qs, [1.0] + qs, [None] * (len(kept) + 1))
    tree.q_dists = {0: q_of[-1], **{node_of[c]: q for c, q in q_of.items() if c in node_of}}
    return tree


@dataclass(frozen=True)
class Plan:
    """How each pass makes its tree: a fixed ``shape`` filled by ``sampling``, or EAGLE-2's dynamic
    tree (``eagle2`` = (n, k, d), sampling "top")."""

    sampling: str
    shape: Shape | None = None
    eagle2: tuple[int, int, int] | None = None

    def __post_init__(self):
        check_sampling(self.sampling)
        if (self.shape is None) == (self.eagle2 is None):
            raise ValueError("a plan has either a shape or EAGLE-2's (n, k, d)")
        if self.eagle2 is not None and self.sampling != "top":
            raise ValueError("EAGLE-2's tree takes the draft's likeliest tokens: sampling 'top'")

    @classmethod
    def fixed(cls, shape: Shape, sampling: str) -> "Plan":
        return cls(sampling, shape=shape)

    @classmethod
    def dynamic(cls, n: int, k: int, d: int) -> "Plan":
        return cls("top", eagle2=(n, k, d))

    def build(self, draft: NGramModel, context: Sequence[int], rng: np.random.Generator | None) -> Tree:
        if self.eagle2 is not None:
            return eagle2(draft, context, *self.eagle2)
        return build(draft, context, self.shape, self.sampling, rng)

    @property
    def n(self) -> int:
        return self.shape.n if self.shape is not None else self.eagle2[0]


def plan(shape: str, n: int, k: int, d: int, sampling: str, P: Sequence[float] | None = None) -> Plan:
    """The plan named by ``shape`` (``SHAPES``) within n guesses: a chain of n; the k-ary tree to
    depth d; k sequences of n // k; EAGLE-2's tree (top-k k, depth d; sampling "top"); or
    Sequoia's best shape of depth ≤ d for the acceptance vector ``P``."""
    if shape not in SHAPES:
        raise ValueError(f"shape must be one of {', '.join(SHAPES)}")
    n = check_int("n", n, 1, N_MAX)
    k = check_int("k", k, 1, BRANCH_MAX)
    d = check_int("d", d, 1, N_MAX)
    if shape == "dynamic":
        if sampling != "top":
            raise ValueError("EAGLE-2's tree takes the draft's likeliest tokens: sampling must be 'top'")
        return Plan.dynamic(n, k, d)
    if shape == "chain":
        return Plan.fixed(Shape.chain(n), sampling)
    if shape == "kary":
        return Plan.fixed(Shape.kary(k, d, n), sampling)
    if shape == "sequences":
        if n < k:
            raise ValueError(f"n must be at least k ({k}) for {k} sequences")
        return Plan.fixed(Shape.sequences(k, n // k), sampling)
    if P is None:
        raise ValueError("the best shape needs an acceptance vector P")
    return Plan.fixed(best_shape(P, n, d)[0], sampling)
