"""What a node budget buys: tokens per pass of chains and trees of n guesses on the counted models.

Trees filled with the draft's likeliest tokens (serving engines' trees: top-k, EAGLE-2) and checked
exactly (``pointmass`` or ``naive``, same distribution) are deterministic at a given context, so
their expected tokens per pass there is exact: node v is reached iff the target's own draws follow
v's path, so (Sequoia, Proposition 3.4, with the target's path probabilities for f)

    E[tokens per pass] = 1 + Σ_{v ≠ root} Π_{u on the path to v} p(token_u | path before u).

These are *measured*: that sum averaged over the positions of a plain run of the target from the
language's example context (``CONTEXTS`` positions, seeded: where decoding actually goes).

* ``greedy_chain``: the draft's arg-max n times (depth n);
* ``topk``: the k likeliest children at every node, breadth first, depth ≤ d (``Shape.kary``);
* ``dynamic``: EAGLE-2 with top-k k and depth d (``sim.tree.eagle2``); a smaller budget keeps the
  first nodes of the larger one's value order, so one tree per context gives every budget;
* ``best``: Sequoia's dynamic programme (``sim.tree.shape``) on the acceptance vector measured on a
  second, separate run (P[k] = the mean of p(k-th likeliest token of q): the chance that the k-th
  child is the one kept); its shape for each budget then measured like the others. ``model`` is
  what the programme itself predicts under its positional-acceptance assumption.

Trees of *sampled* guesses are random even at one context; for them the positional-acceptance
*model* is given (Sequoia §3.1), from acceptance measured on the second run:

* ``chain``: the chain of the sections `alpha` to `speedup` (guesses drawn from q, Leviathan's rule):
  1 + α + … + α^n with α the mean Σ min(p, q) (``sim.theory.expected_tokens``);
* ``sequoia``: Sequoia's own method, children drawn without replacement and checked by its
  Algorithm 2, its acceptance vector estimated by running that check ``REPS`` times per position
  on a star of ``SEQUOIA_BRANCH`` children, and its best shape from the programme.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np

from .. import examples, pair
from ..dist import overlap
from ..ngram import NGramModel, load_models
from ..speculative import CONTEXT_KEPT, DRAFTS, plain_decode
from ..theory import expected_tokens
from .fill import eagle2, without
from .rules import check_children
from .shape import BRANCH_MAX, N_MAX, Shape, check_int, best_curve, best_shapes

CONTEXTS = 32          # positions averaged over (each one tree per method; see bench/cpu.py)
REPS = 8               # Sequoia's check run per position to estimate its acceptance vector
SEQUOIA_BRANCH = 8     # ... on a star of this many children (P[k] past 8 is below 0.02 here)
FIT_SEED, EVAL_SEED = 1, 0  # the run acceptance is measured on, and the run the trees are measured on


def contexts(target: NGramModel, lang: str, m: int, seed: int) -> list[tuple[int, ...]]:
    """The m positions of a plain target run (its first m tokens) from the language's example
    context, each as the ids a model reads there."""
    start = target.encode(list(examples.tubes_context(lang)))
    text = start + plain_decode(target, start, m, np.random.default_rng(seed))
    return [tuple(text[max(0, len(start) + i - CONTEXT_KEPT):len(start) + i]) for i in range(m)]


def acceptance_vector(target: NGramModel, draft: NGramModel, ctxs: Sequence[Sequence[int]],
                      b: int = BRANCH_MAX) -> list[float]:
    """P[k], k = 1..b (P[0] = 0): the mean over ``ctxs`` of p(the draft's k-th likeliest token),
    the chance that a node's k-th top-k child is the one kept (Sequoia Definition 3.2)."""
    P = np.zeros(b + 1)
    for ctx in ctxs:
        p = target.sparse(ctx)
        for k, (x, _) in enumerate(draft.sparse(ctx).top(b), 1):
            P[k] += p[x]
    return (P / len(ctxs)).tolist()


def sequoia_acceptance(target: NGramModel, draft: NGramModel, ctxs: Sequence[Sequence[int]],
                       rng: np.random.Generator, b: int = SEQUOIA_BRANCH, reps: int = REPS) -> list[float]:
    """P[k] for b children drawn without replacement and checked by Sequoia's Algorithm 2: the
    chance that the k-th child is the one kept. P[1] is exact, Σ min(p, q) averaged (the first
    child is an ordinary speculative guess), so a one-child-per-node shape is exactly the chain;
    the others are the share of ``reps`` checks per position in which child k was kept. Children
    are drawn as the checks reach them (the same distribution as drawing all b first)."""
    P = np.zeros(b + 1)

    def drawn(q):
        for k in range(1, b + 1):
            x = q.sample(rng.random())
            yield k, x
            q = without(q, [x])

    for ctx in ctxs:
        p, q = target.sparse(ctx), draft.sparse(ctx)
        for _ in range(reps):
            kept, _ = check_children(drawn(q), p, q, rng, "sequoia")
            if kept is not None:
                P[kept] += 1
    P /= len(ctxs) * reps
    P[1] = np.mean([overlap(target.sparse(c), draft.sparse(c)) for c in ctxs])
    return P.tolist()


def _rank_paths(shape: Shape) -> list[tuple[int, ...]]:
    """Each node's rank path (r_1, …, r_j): the r_1-th likeliest draft token, then the r_2-th
    likeliest after it, … (the root's is ())."""
    out = [()]
    for v, u in enumerate(shape.parents, 1):
        out.append(out[u] + (shape.ranks[v],))
    return out


class _Union:
    """Every rank path the fixed shapes use, parents first, so that one walk per context gives
    p(path) for all of them at once."""

    def __init__(self, shapes: Sequence[Shape]):
        paths = sorted({rp for s in shapes for rp in _rank_paths(s)[1:]}, key=lambda rp: (len(rp), rp))
        self.paths = paths
        self.index = {rp: i for i, rp in enumerate(paths)}
        self.parent = [self.index[rp[:-1]] if len(rp) > 1 else -1 for rp in paths]

    def nodes(self, shape: Shape) -> np.ndarray:
        """The union's indices of a shape's nodes 1..n, in node order."""
        return np.array([self.index[rp] for rp in _rank_paths(shape)[1:]], dtype=np.int64)

    def p_paths(self, target: NGramModel, draft: NGramModel, ctx: Sequence[int]) -> np.ndarray:
        """p(path) at ``ctx`` for every path of the union."""
        n = len(self.paths)
        pv = np.empty(n)
        ids: list[list[int]] = [None] * n
        at: dict[int, tuple] = {}        # parent index → (target there, draft's top list there)
        for i, (rp, u) in enumerate(zip(self.paths, self.parent)):
            ctx_u = list(ctx) if u < 0 else ids[u]
            got = at.get(u)
            if got is None:
                got = at[u] = (target.sparse(ctx_u), draft.sparse(ctx_u).top(self._width(u)))
            x = got[1][rp[-1] - 1][0]
            ids[i] = ctx_u + [x]
            pv[i] = (1.0 if u < 0 else pv[u]) * got[0][x]
        return pv

    def _width(self, u: int) -> int:
        """How many of the draft's likeliest tokens the children of path u use."""
        if not hasattr(self, "_widths"):
            w: dict[int, int] = {}
            for rp, par in zip(self.paths, self.parent):
                w[par] = max(w.get(par, 0), rp[-1])
            self._widths = w
        return self._widths[u]


def _prefix_depths(parents: Sequence[int], order: Sequence[int]) -> list[int]:
    """Depth of the tree made of the first j nodes of ``order`` (node ids), for every j."""
    depth = {0: 0}
    for v, u in enumerate(parents, 1):
        depth[v] = depth[u] + 1
    out, deepest = [], 0
    for v in order:
        deepest = max(deepest, depth[v])
        out.append(deepest)
    return out


def _pad(a, n: int) -> np.ndarray:
    """Extend a per-budget list to n entries with its last value (a tree that cannot grow more)."""
    a = np.asarray(a, dtype=np.float64)
    return np.concatenate([a, np.full(n - a.size, a[-1])])


def fit_acceptance(target: NGramModel, draft: NGramModel, fit: Sequence[Sequence[int]],
                   rng: np.random.Generator | None = None) -> dict:
    """What the shapes are fitted to, measured on the positions ``fit``: the top-k acceptance
    vector P, Sequoia's P for children drawn without replacement (``rng`` for its checks) and α,
    the mean Σ min(p, q). None of it depends on the tree's limits k and d."""
    rng = rng or np.random.default_rng(FIT_SEED)
    return {"acceptance": acceptance_vector(target, draft, fit),
            "sequoia_acceptance": sequoia_acceptance(target, draft, fit, rng),
            "alpha": float(np.mean([overlap(target.sparse(c), draft.sparse(c)) for c in fit]))}


@lru_cache(maxsize=16)
def acceptance(lang: str, draft: str = "bigram", m: int = CONTEXTS) -> dict:
    """``fit_acceptance`` on the seeded fitting run of ``lang`` (kept: shared by every budget
    table of the language and draft, and by a pass on Sequoia's best shape; do not change it)."""
    if draft not in DRAFTS:
        raise ValueError(f"draft must be one of {', '.join(DRAFTS)}")
    models = load_models(lang)
    target = models["trigram"]
    fitted = fit_acceptance(target, models[draft], contexts(target, lang, m, FIT_SEED))
    # α is the pair's (sim.pair: over a long run of the target's text, as every section prints it),
    # not the mean over these 32 positions, so the chain here is the sections `alpha` to `idle`'s chain; P[1] of
    # Sequoia's vector is that same chance, so its one-child-per-node shape stays the chain.
    a = pair.alpha(lang, draft)
    fitted["alpha"] = a
    fitted["sequoia_acceptance"] = [fitted["sequoia_acceptance"][0], a, *fitted["sequoia_acceptance"][2:]]
    return fitted


def measure(target: NGramModel, draft: NGramModel, ctxs: Sequence[Sequence[int]],
            fit: Sequence[Sequence[int]] | dict, k: int, d: int, n_max: int = N_MAX,
            rng: np.random.Generator | None = None) -> dict:
    """Tokens per pass (and depth) of every method for each budget n = 1..n_max (see the module
    docstring); ``fit``: the positions acceptance is measured on (or ``fit_acceptance`` of them,
    already measured); ``rng`` for Sequoia's checks."""
    k = check_int("k", k, 1, BRANCH_MAX)
    d = check_int("d", d, 1, N_MAX)
    n_max = check_int("n_max", n_max, 1, N_MAX)
    fitted = fit if isinstance(fit, dict) else fit_acceptance(target, draft, fit, rng)
    P, P_seq, alpha = fitted["acceptance"], fitted["sequoia_acceptance"], fitted["alpha"]
    shapes, seq_shapes = best_shapes(P, n_max, d), best_shapes(P_seq, n_max, d)
    kary, chain = Shape.kary(k, d, n_max), Shape.chain(n_max)
    union = _Union([chain, kary, *shapes])
    chain_at, kary_at = union.nodes(chain), union.nodes(kary)
    best_of = np.zeros((n_max, len(union.paths)))      # row n − 1: the best shape of budget n
    for j, s in enumerate(shapes):
        best_of[j, union.nodes(s)] = 1.0
    sums = {name: np.zeros(n_max) for name in ("greedy_chain", "topk", "dynamic", "best")}
    dyn_depth = np.zeros(n_max)
    for ctx in ctxs:
        pv = union.p_paths(target, draft, ctx)
        sums["greedy_chain"] += np.cumsum(pv[chain_at])
        sums["topk"] += _pad(np.cumsum(pv[kary_at]), n_max)
        sums["best"] += best_of @ pv
        tree = eagle2(draft, ctx, n_max, k, d)
        # The value order EAGLE-2's reranking keeps nodes in (a smaller budget keeps a prefix).
        order = sorted(range(1, tree.n + 1), key=lambda v: (-tree.path_q(v), tree.shape.depths[v], v))
        p_path = [1.0]
        for v, u in enumerate(tree.parents, 1):
            p_path.append(p_path[u] * target.sparse(tree.context_of(u))[tree.tokens[v]])
        sums["dynamic"] += _pad(np.cumsum([p_path[v] for v in order]), n_max)
        dyn_depth += _pad(_prefix_depths(tree.parents, order), n_max)
    m = len(ctxs)
    ns = list(range(1, n_max + 1))

    def tokens(name):
        return (1.0 + sums[name] / m).tolist()

    return {
        "n": ns, "k": k, "d": d, "contexts": m, "alpha": alpha,
        "acceptance": P, "sequoia_acceptance": P_seq,
        "chain": {"tokens": [expected_tokens(alpha, n) for n in ns], "depth": ns, "how": "model"},
        "greedy_chain": {"tokens": tokens("greedy_chain"), "depth": ns, "how": "measured"},
        "topk": {"tokens": tokens("topk"), "depth": _pad(_prefix_depths(kary.parents, range(1, kary.n + 1)),
                                                          n_max).astype(int).tolist(), "how": "measured"},
        # EAGLE-2's depth varies with the context; its mean is what the draft's cost sees.
        "dynamic": {"tokens": tokens("dynamic"), "depth": (dyn_depth / m).tolist(), "how": "measured"},
        "best": {"tokens": tokens("best"), "depth": [s.depth for s in shapes], "how": "measured",
                 "model": best_curve(P, n_max, d)[1:], "parents": [list(s.parents) for s in shapes]},
        "sequoia": {"tokens": best_curve(P_seq, n_max, d)[1:], "depth": [s.depth for s in seq_shapes],
                    "how": "model", "parents": [list(s.parents) for s in seq_shapes]},
    }


@lru_cache(maxsize=32)
def budget_table(lang: str, draft: str = "bigram", k: int = 4, d: int = 8, n_max: int = N_MAX,
                 m: int = CONTEXTS) -> dict:
    """``measure`` for one language and draft on the seeded runs (kept: it is the same every time;
    callers share the dict, so they must not change it)."""
    if draft not in DRAFTS:
        raise ValueError(f"draft must be one of {', '.join(DRAFTS)}")
    models = load_models(lang)
    target = models["trigram"]
    return measure(target, models[draft], contexts(target, lang, m, EVAL_SEED), acceptance(lang, draft, m),
                   k, d, n_max)
