"""Speculative decoding: one step with its full trace, the loop, and plain decoding.

Leviathan, Kalman, Matias (2023), "Fast Inference from Transformers via Speculative Decoding",
ICML 2023, arXiv:2211.17192 (Algorithm 1; the proof that the output has the target's distribution in
Appendix A.1). Chen et al. (2023), "Accelerating Large Language Model Decoding with Speculative
Sampling", arXiv:2302.01318 (the same rule, found independently).

One step: the draft q proposes γ tokens x_1..x_γ, one after another; the target p is then evaluated
once at all γ+1 positions. Guess x_i is kept with probability min(1, p(x_i)/q(x_i)); at the first
refusal the target puts in a token drawn from the residual max(0, p − q) / Σ max(0, p − q) and the
rest are dropped; if every guess is kept the target's last position gives a bonus token. Greedy
mode proposes q's arg-max and keeps a guess iff it is p's arg-max, replacing it by p's arg-max.

Two wrong rules are kept for teaching (inference-lab chapter 17): after a refusal, "resample-target"
draws the replacement from p itself (over-weighting what the draft already favoured), and
"keep-draft" keeps every guess (the text then follows q, not p).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from .ngram import NGramModel

RULES = ("exact", "resample-target", "keep-draft")
DRAFTS = ("bigram", "unigram", "trigram")
GAMMA_MAX = 16
CONTEXT_KEPT = 8  # the models read at most 2 tokens back; a trace shows a few more for the reader


def sample(p: np.ndarray, rng: np.random.Generator) -> int:
    """One draw from p by inverting its cumulative sum (much faster than ``rng.choice(p=...)``)."""
    cdf = p.cumsum()
    return min(int(cdf.searchsorted(rng.random() * cdf[-1], side="right")), p.size - 1)


def residual(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """max(0, p − q), normalised. Its mass Σ max(0, p − q) is the total variation distance."""
    r = np.maximum(p - q, 0.0)
    mass = r.sum()
    # Only when p == q (to rounding) is the mass 0; then a refusal cannot happen except by
    # rounding, and p itself is the right answer.
    return r / mass if mass > 1e-15 else p


def overlap(p: np.ndarray, q: np.ndarray) -> float:
    """Σ min(p, q): the chance that a guess drawn from q is kept (Leviathan et al., Definition 3.1)."""
    return float(np.minimum(p, q).sum())


@dataclass
class Proposal:
    token: int
    q: float
    p: float
    r: float | None          # the uniform draw; None in greedy mode
    accepted: bool
    q_dist: np.ndarray = field(repr=False)
    p_dist: np.ndarray = field(repr=False)

    @property
    def ratio(self) -> float:
        return self.p / self.q

    @property
    def accept_prob(self) -> float:
        return min(1.0, self.ratio)


@dataclass
class Step:
    context: tuple[int, ...]
    gamma: int
    greedy: bool
    rule: str
    proposals: list[Proposal]
    target: NGramModel = field(repr=False)
    guesses: list[int] = field(default_factory=list, repr=False)     # all γ, kept or not
    q_dists: list[np.ndarray] = field(default_factory=list, repr=False)  # the draft at each guess
    residual: np.ndarray | None = field(default=None, repr=False)
    replacement: int | None = None
    bonus: int | None = None

    def p_at(self, i: int) -> np.ndarray:
        """The target's distribution at position i of the pass (i = 0..γ)."""
        return self.target.dist(list(self.context) + self.guesses[:i])

    @property
    def p_dists(self) -> list[np.ndarray]:
        """The target at all γ+1 positions of its one pass. The loop itself reads only the
        positions it needs (p_at), since the rest cannot change what is written."""
        return [self.p_at(i) for i in range(self.gamma + 1)]

    @property
    def n_accepted(self) -> int:
        return sum(pr.accepted for pr in self.proposals)

    @property
    def written(self) -> list[tuple[int, str]]:
        """(token, kind): kind is "kept" (a guess kept), "replaced" or "bonus" (the target's own)."""
        out = [(pr.token, "kept") for pr in self.proposals if pr.accepted]
        if self.replacement is not None:
            out.append((self.replacement, "replaced"))
        if self.bonus is not None:
            out.append((self.bonus, "bonus"))
        return out

    def to_json(self, vocab: Sequence[str], top: int = 8) -> dict:
        """The trace as JSON; ``top`` > 0 adds the likeliest tokens of q, p, the residual and the
        bonus position (top = 0 leaves them out: they cost an O(V) pass each)."""
        def top_of(dist):
            if top < 1 or dist is None:
                return None
            # argpartition finds the top entries in O(V); only those few get sorted.
            part = np.argpartition(-dist, top)[:top] if top < dist.size else np.arange(dist.size)
            idx = part[np.lexsort((part, -dist[part]))]
            return [[vocab[i], float(dist[i])] for i in idx]

        return {
            "context": [vocab[i] if i >= 0 else "<unk>" for i in self.context],
            "gamma": self.gamma,
            "greedy": self.greedy,
            "rule": self.rule,
            "proposals": [
                {
                    "token": vocab[pr.token], "q": pr.q, "p": pr.p, "ratio": pr.ratio,
                    "accept_prob": (1.0 if pr.accepted else 0.0) if self.greedy else pr.accept_prob,
                    "r": pr.r, "accepted": pr.accepted,
                    "q_top": top_of(pr.q_dist), "p_top": top_of(pr.p_dist),
                    "overlap": overlap(pr.p_dist, pr.q_dist),
                }
                for pr in self.proposals
            ],
            # Every guess the draft wrote, checked or thrown away, with p from the target's pass.
            "guesses": [{"token": vocab[g], "q": float(q[g]), "p": float(self.p_at(i)[g])}
                        for i, (g, q) in enumerate(zip(self.guesses, self.q_dists))],
            "residual_top": top_of(self.residual),
            "replacement": vocab[self.replacement] if self.replacement is not None else None,
            "bonus": vocab[self.bonus] if self.bonus is not None else None,
            "bonus_top": top_of(self.p_at(self.gamma)) if self.bonus is not None and top > 0 else None,
            "written": [{"token": vocab[t], "kind": kind} for t, kind in self.written],
        }


def check_args(gamma: int, rule: str, gamma_min: int = 1) -> None:
    if not (gamma_min <= gamma <= GAMMA_MAX):
        raise ValueError(f"gamma must be an integer from {gamma_min} to {GAMMA_MAX}")
    if rule not in RULES:
        raise ValueError(f"rule must be one of {', '.join(RULES)}")


def speculative_step(target: NGramModel, draft: NGramModel, context: Sequence[int], gamma: int,
                     rng: np.random.Generator, *, greedy: bool = False, rule: str = "exact") -> Step:
    """One draft-then-verify cycle from ``context`` (token ids). Writes 1 to γ+1 tokens."""
    check_args(gamma, rule)
    ctx = list(context[-CONTEXT_KEPT:])
    guesses, q_dists = [], []
    for _ in range(gamma):                      # the draft runs γ times, one after another
        q = draft.dist(ctx + guesses)
        guesses.append(int(np.argmax(q)) if greedy else draft.sample(ctx + guesses, rng))
        q_dists.append(q)
    return verify(Step(tuple(ctx), gamma, greedy, rule, [], target, guesses, q_dists), rng)


def verify(step: Step, rng: np.random.Generator) -> Step:
    """The target's one pass over ``step.guesses``: keep each with probability min(1, p/q) (greedy:
    iff it is p's arg-max), stop at the first refusal and put in a token, or add the bonus.

    Any draft fits, as long as ``step.q_dists`` holds the distribution each guess was drawn from.
    Each position of the pass is looked up when the check reaches it."""
    for i, (x, q) in enumerate(zip(step.guesses, step.q_dists)):
        p = step.p_at(i)
        if step.greedy:
            r, accepted = None, x == int(np.argmax(p))
        else:
            r = float(rng.random())
            accepted = step.rule == "keep-draft" or bool(r < p[x] / q[x])
        step.proposals.append(Proposal(x, float(q[x]), float(p[x]), r, accepted, q, p))
        if not accepted:
            if step.greedy:
                step.replacement = int(np.argmax(p))
            elif step.rule == "exact":
                step.residual = residual(p, q)
                step.replacement = sample(step.residual, rng)
            else:  # resample-target: the tempting mistake
                step.replacement = sample(p, rng)
            return step
    n = len(step.guesses)
    step.bonus = (int(np.argmax(step.p_at(n))) if step.greedy
                  else step.target.sample(list(step.context) + step.guesses, rng))
    return step


@dataclass
class Run:
    context: tuple[int, ...]
    tokens: list[int]
    steps: list[Step]
    overlaps: list[float]       # Σ min(p, q) at each written position
    gamma: int

    def stats(self) -> dict:
        passes = len(self.steps)
        written = sum(len(s.written) for s in self.steps)
        proposed = sum(len(s.proposals) for s in self.steps) if self.gamma else 0
        hist = [0] * (self.gamma + 1)
        for s in self.steps:
            hist[s.n_accepted] += 1
        return {
            "alpha": float(np.mean(self.overlaps)) if self.overlaps else None,
            "acceptance_rate": (sum(s.n_accepted for s in self.steps) / proposed) if proposed else None,
            "tokens_per_pass": written / passes if passes else None,
            "passes": passes,
            "accepted_hist": hist,
        }

    def to_json(self, vocab: Sequence[str], top: int = 8) -> dict:
        return {
            "context": [vocab[i] if i >= 0 else "<unk>" for i in self.context],
            "tokens": [vocab[i] for i in self.tokens],
            **self.stats(),
            "overlap": self.overlaps[:len(self.tokens)],
            "steps": [s.to_json(vocab, top) for s in self.steps],
        }


def generate(target: NGramModel, draft: NGramModel, context: Sequence[int], n_tokens: int, gamma: int,
             rng: np.random.Generator, *, greedy: bool = False, rule: str = "exact") -> Run:
    """Write ``n_tokens`` tokens after ``context``. γ = 0 is plain decoding by the target alone.

    The last cycle may write past ``n_tokens``; ``tokens`` is cut there, the statistics count
    every cycle whole."""
    check_args(gamma, rule, gamma_min=0)
    if n_tokens < 1:
        raise ValueError("n_tokens must be at least 1")
    ctx = list(context)
    start = len(ctx)
    steps, overlaps = [], []
    while len(ctx) - start < n_tokens:
        if gamma == 0:
            p = target.dist(ctx)
            tok = int(np.argmax(p)) if greedy else target.sample(ctx, rng)
            step = Step(tuple(ctx[-CONTEXT_KEPT:]), 0, greedy, rule, [], target, bonus=tok)
        else:
            step = speculative_step(target, draft, ctx[-CONTEXT_KEPT:], gamma, rng, greedy=greedy, rule=rule)
        write(step, ctx, overlaps, target, draft)
        steps.append(step)
    return Run(tuple(context), ctx[start:start + n_tokens], steps, overlaps, gamma)


def write(step: Step, ctx: list[int], overlaps: list[float], target: NGramModel, draft: NGramModel) -> None:
    """Append the step's tokens to ``ctx`` and Σ min(p, q) at each of their positions to ``overlaps``."""
    for i, (tok, _) in enumerate(step.written):
        if i < len(step.proposals):
            p, q = step.proposals[i].p_dist, step.proposals[i].q_dist
        else:  # the bonus position: the draft never looked there
            p, q = target.dist(ctx), draft.dist(ctx)
        overlaps.append(overlap(p, q))
        ctx.append(tok)


def plain_decode(target: NGramModel, context: Sequence[int], n_tokens: int, rng: np.random.Generator,
                 *, greedy: bool = False) -> list[int]:
    """The target alone, one token per pass: the baseline speculative decoding must reproduce."""
    ctx = list(context)
    for _ in range(n_tokens):
        ctx.append(int(np.argmax(target.dist(ctx))) if greedy else target.sample(ctx, rng))
    return ctx[len(context):]
