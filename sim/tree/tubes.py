"""Tubes for trees: plain sampling from the target against the first token of a tree pass.

As in ``sim.tubes``, one tube lets the target p draw the next token itself and the other keeps the
first token a verification pass writes; here the pass checks a tree of guesses (``sim.tree.rules``)
with the rule as a choice, exact or wrong. A chi-square test of each tube's counts against p says
whether the difference is chance. Only the root's children decide the first token, so the tubes
use a star: k guesses for the next token and nothing deeper.

Where to look (``tree_tubes_context``): the mistakes show where the draft is confidently wrong,
so the refused mass matters. Among the frequent two-token contexts (seen ≥ ``MIN_COUNT`` times,
at least one of them a word) we take the one where the subtlest mistake, q not renormalised after
a sibling drawn without replacement, moves the first token's distribution furthest from p, as
measured by its chi-square distance Σ (P − p)²/p for two children, computed exactly:
with q fixed the residuals R_1 = norm(max(0, p − q)) and R_2 = norm(max(0, R_1 − q)) do not depend
on the draws, so (w = max(0, q − p), the mass refused at the first check; a_2 = min(1, R_1/q))

    P(y) = min(p, q)(y) + Σ_x w(x)/(1 − q(x)) · [A(y) − q(x)(1{y = x} a_2(x) + (1 − a_2(x)) R_2(y))],
    A(y) = q(y) a_2(y) + R_2(y) Σ_z q(z)(1 − a_2(z)),

the second child x_2 being drawn from q without x_1 (Sequoia §3.2) but checked against q. The other
three mistakes are larger there (tests/test_tree_rules.py holds all four to it).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Sequence

import numpy as np

from .. import examples
from ..ngram import NGramModel, load_models
from .fill import Plan, without
from .rules import check_children, check_rule, is_exact, tree_step
from .shape import Shape
from ..tubes import chi_square

MIN_COUNT = 20      # a context the trigram has really seen (as sim.examples)
STAR = 8            # guesses for the first token in the tubes


def star(k: int = STAR) -> Shape:
    """k guesses for the next token, nothing deeper."""
    return Shape.kary(k, 1, k)


def first_tokens(target: NGramModel, draft: NGramModel, context: Sequence[int], plan: Plan, rule: str,
                 n: int, rng: np.random.Generator) -> np.ndarray:
    """The first token written by each of n independent tree passes from ``context``, through
    ``sim.tree.rules.tree_step`` (the whole tree drawn, checked and walked)."""
    return np.fromiter((tree_step(target, draft, context, plan, rng, rule=rule).written[0][0]
                        for _ in range(n)), dtype=np.int64, count=n)


def star_first_tokens(target: NGramModel, draft: NGramModel, context: Sequence[int], k: int, sampling: str,
                      rule: str, n: int, rng: np.random.Generator, return_kept: bool = False):
    """As ``first_tokens`` on ``star(k)``, in the same distribution, faster: the root's children
    are drawn only as the checks reach them (the later ones cannot change the first token), and
    ``naive``'s first token is the target's own draw y whether or not a child holds it.
    ``return_kept``: also whether each first token was a kept guess (else the target put it in;
    for ``naive``, whether y was among the children, which are then drawn in full)."""
    check_rule(rule)
    p, q = target.sparse(context), draft.sparse(context)
    top = [x for x, _ in q.top(k)] if sampling == "top" else None

    def drawn(made: list[int]):
        d = q
        for c in range(1, k + 1):
            x = top[c - 1] if top is not None else d.sample(rng.random())
            made.append(x)
            yield c, x
            if sampling == "wor" and c < k:
                d = without(d, [x])

    out = np.empty(n, dtype=np.int64)
    was_kept = np.zeros(n, dtype=bool)
    for i in range(n):
        if rule == "naive":
            # The children do not change y (drawn first here, with the pass's first uniform);
            # they are drawn after it, only when asked whether y was among them.
            out[i] = p.sample(rng.random())
            if return_kept:
                made = []
                for _c, _x in drawn(made):
                    pass
                was_kept[i] = int(out[i]) in made
            continue
        made: list[int] = []
        kept, final = check_children(drawn(made), p, q, rng, rule)
        out[i] = made[kept - 1] if kept is not None else final.sample(rng.random())
        was_kept[i] = kept is not None
    return (out, was_kept) if return_kept else out


def run_tree_tubes(target: NGramModel, draft: NGramModel, context: Sequence[int], plan: Plan, rule: str,
                   rounds: int, trials: int, rng: np.random.Generator, top: int = 12) -> dict:
    """Fill both tubes for ``rounds`` rounds of ``trials`` trials; totals and chi-square p-values.
    ``plan`` must be a star (k children of the root, nothing deeper: all the first token needs)."""
    check_rule(rule)
    if rounds < 1 or trials < 1:
        raise ValueError("rounds and trials must be at least 1")
    if plan.shape is None or plan.shape.depth > 1:
        raise ValueError("the tubes check a star: k children of the root, nothing deeper")
    k = plan.shape.n
    p = target.dist(context)
    ps = target.sparse(context)
    vocab = target.vocab
    plain, tree, kept = [], [], []
    for _ in range(rounds):
        plain.append(np.fromiter((ps.sample(rng.random()) for _ in range(trials)), dtype=np.int64, count=trials))
        x, kx = star_first_tokens(target, draft, context, k, plan.sampling, rule, trials, rng, return_kept=True)
        tree.append(x)
        kept.append(kx)
    plain_c = np.bincount(np.concatenate(plain), minlength=p.size)
    tree_c = np.bincount(np.concatenate(tree), minlength=p.size)
    shown = set(np.argsort(-p, kind="stable")[:top].tolist()) | set(np.flatnonzero(plain_c).tolist()) \
        | set(np.flatnonzero(tree_c).tolist())
    shown = sorted(shown, key=lambda i: (-p[i], i))
    q = draft.dist(context)

    def tube(counts):
        stat, pvalue, bins = chi_square(counts, p)
        return {"counts": {vocab[i]: int(counts[i]) for i in np.flatnonzero(counts)},
                "chi2": stat, "bins": bins, "pvalue": pvalue}

    chain = k == 1
    n_kept = int(sum(int(kx.sum()) for kx in kept))
    return {
        "context": [vocab[i] if i >= 0 else "<unk>" for i in context],
        "sampling": plan.sampling, "rule": rule, "exact": is_exact(plan.sampling, rule, chain),
        "rounds": rounds, "trials": trials,
        "p": {vocab[i]: float(p[i]) for i in shown},
        "q": {vocab[i]: float(q[i]) for i in shown},
        "plain": tube(plain_c),
        "tree": {**tube(tree_c), "kept": n_kept, "put_in": rounds * trials - n_kept},
        "samples": [{"plain": [vocab[i] for i in a], "tree": [vocab[i] for i in b], "kept": kx.tolist()}
                    for a, b, kx in zip(plain, tree, kept)],
    }


def renorm_mistake(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The first token's exact distribution when two children are drawn from q without
    replacement but checked as SpecInfer's independent draws (the module docstring's P)."""
    mn = np.minimum(p, q)
    w = q - mn
    R1 = np.maximum(p - q, 0.0)
    R1 /= R1.sum()
    a2 = np.minimum(1.0, R1 / q)     # q > 0 everywhere: the n-gram drafts have full support
    R2 = np.maximum(R1 - q, 0.0)
    R2 = R2 / R2.sum() if R2.sum() > 0 else R1
    A = q * a2 + R2 * float(np.sum(q * (1.0 - a2)))
    return (mn + A * float(np.sum(w / (1.0 - q))) - w / (1.0 - q) * q * a2
            - R2 * float(np.sum(w * q * (1.0 - a2) / (1.0 - q))))


@lru_cache(maxsize=None)
def tree_tubes_context(lang: str) -> tuple[str, ...]:
    """The context where the subtlest wrong tree rule shows most (see the module docstring)."""
    models = load_models(lang)
    target, draft = models["trigram"], models["bigram"]
    best, best_score = None, -1.0
    for c in examples.disagreeing_contexts(lang, MIN_COUNT, n=10**6):
        if not any(examples._is_word(t) for t in c["tokens"]):
            continue
        p, q = target.dist(c["ids"]), draft.dist(c["ids"])
        score = float(np.sum((renorm_mistake(p, q) - p) ** 2 / p))
        if score > best_score:
            best, best_score = tuple(c["tokens"]), score
    return best
