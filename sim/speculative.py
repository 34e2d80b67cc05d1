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

What α is depends on the mode. Sampling keeps a guess with probability Σ min(p, q) at its position
(Definition 3.1), so the run's α is the mean of Σ min(p, q) over the written positions. Greedy keeps
it iff arg-max q = arg-max p, so there the chance is 1 or 0 and α is the share of written positions
where the two arg-maxes agree. Either way the positions a pass writes are a run of kept guesses ended
by the first refusal (or the bonus): if each position were kept independently with chance α, a pass
would write (1 − α^(γ+1)) / (1 − α) tokens on average (Eq. 1); with Σ min(p, q) in greedy mode the
formula undercounts (0.67 against 97 % of guesses kept on a looping greedy text).

Two wrong rules are kept for teaching (inference-lab chapter 17): after a refusal, "resample-target"
draws the replacement from p itself (over-weighting what the draft already favoured), and
"keep-draft" keeps every guess (the text then follows q, not p).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from operator import length_hint
from collections.abc import Sequence

import numpy as np

from . import dist as sparse
from .dist import Dist, Draws, overlap  # overlap: Σ min(p, q), the chance a guess is kept (Definition 3.1)
from .ngram import NGramModel
from .param import choice, int_
from .theory import GAMMA_MAX

RULES = ("exact", "resample-target", "keep-draft")
DRAFTS = ("bigram", "unigram", "trigram")
# The loop's checks (the page narrows γ, sim/params.py): γ = 0 is the target alone.
GAMMA = int_("gamma", 0, GAMMA_MAX, None)
RULE = choice("rule", RULES, "exact")
CONTEXT_KEPT = 8  # the models read at most 2 tokens back; a trace shows a few more for the reader


def residual(p, q):
    """max(0, p − q), normalised. Its mass Σ max(0, p − q) is the total variation distance.

    Takes two ``Dist`` (the loop: O(continuations)) or two dense vectors (the tubes draw from it
    thousands of times at once)."""
    if isinstance(p, Dist):
        return sparse.residual(p, q)
    r = np.maximum(p - q, 0.0)
    mass = r.sum()
    # Only when p == q (to rounding) is the mass 0; then a refusal cannot happen except by
    # rounding, and p itself is the right answer.
    return r / mass if mass > 1e-15 else p


# Slots: a long run makes tens of thousands of these; without a __dict__ each, the collector
# has half as many objects to walk.
@dataclass(slots=True)
class Proposal:
    token: int
    q: float
    p: float
    r: float | None          # the uniform draw; None in greedy mode
    accepted: bool
    q_dist: Dist = field(repr=False)
    p_dist: Dist = field(repr=False)
    # Σ min(p, q) here, when the loop already knows it (else computed on first use).
    known_overlap: float | None = field(default=None, repr=False)

    @property
    def ratio(self) -> float:
        return self.p / self.q

    @property
    def accept_prob(self) -> float:
        return min(1.0, self.ratio)

    @property
    def overlap(self) -> float:
        """Σ min(p, q) at this position (read by the loop's statistics and by the trace)."""
        if self.known_overlap is None:
            self.known_overlap = overlap(self.p_dist, self.q_dist)
        return self.known_overlap

    @property
    def agree(self) -> bool:
        """The two arg-maxes agree: under greedy decoding, exactly when the guess is kept."""
        return self.q_dist.argmax() == self.p_dist.argmax()


@dataclass(slots=True)
class Step:
    context: tuple[int, ...]
    gamma: int
    greedy: bool
    rule: str
    proposals: list[Proposal]
    target: NGramModel = field(repr=False)
    guesses: list[int] = field(default_factory=list, repr=False)     # all γ, kept or not
    q_dists: list[Dist] = field(default_factory=list, repr=False)  # the draft at each guess
    residual: Dist | None = field(default=None, repr=False)
    replacement: int | None = None
    bonus: int | None = None

    def p_at(self, i: int) -> Dist:
        """The target's distribution at position i of the pass (i = 0..γ)."""
        return self.target.sparse(list(self.context) + self.guesses[:i])

    @property
    def p_dists(self) -> list[Dist]:
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
        bonus position (top = 0 leaves them out)."""
        def top_of(dist):
            if top < 1 or dist is None:
                return None
            return [[vocab[i], p] for i, p in dist.top(top)]

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
                    "overlap": pr.overlap,
                    "greedy_check": greedy_check(pr, vocab) if self.greedy else None,
                }
                for pr in self.proposals
            ],
            # Every guess the draft wrote, checked or thrown away, with p from the target's pass.
            "guesses": [{"token": vocab[g], "q": q[g],
                         "p": self.proposals[i].p if i < len(self.proposals) else self.p_at(i)[g]}
                        for i, (g, q) in enumerate(zip(self.guesses, self.q_dists))],
            "residual_top": top_of(self.residual),
            "replacement": vocab[self.replacement] if self.replacement is not None else None,
            "bonus": vocab[self.bonus] if self.bonus is not None else None,
            "bonus_top": top_of(self.p_at(self.gamma)) if self.bonus is not None and top > 0 else None,
            "written": [{"token": vocab[t], "kind": kind} for t, kind in self.written],
        }


def greedy_check(pr: Proposal, vocab: Sequence[str]) -> dict:
    """What a greedy check compares: the draft's top token with its q beside the target's top token
    with its p. The guess is the draft's top token; it is kept iff the two are the same token."""
    q_top, p_top = pr.q_dist.argmax(), pr.p_dist.argmax()
    return {"draft_top": vocab[q_top], "q": pr.q_dist[q_top],
            "target_top": vocab[p_top], "p": pr.p_dist[p_top], "agree": bool(q_top == p_top)}


def check_args(gamma: int, rule: str, gamma_min: int = 1) -> None:
    """The declarations' checks; a ParamError is a ValueError."""
    GAMMA.but(lo=gamma_min).check(gamma)
    RULE.check(rule)


def speculative_step(target: NGramModel, draft: NGramModel, context: Sequence[int], gamma: int,
                     rng: np.random.Generator, *, greedy: bool = False, rule: str = "exact") -> Step:
    """One draft-then-verify cycle from ``context`` (token ids). Writes 1 to γ+1 tokens."""
    check_args(gamma, rule)
    ctx = list(context[-CONTEXT_KEPT:])
    guesses, q_dists = [], []
    for _ in range(gamma):                      # the draft runs γ times, one after another
        q = draft.sparse(ctx + guesses)
        guesses.append(q.argmax() if greedy else q.sample(rng.random()))
        q_dists.append(q)
    return verify(Step(tuple(ctx), gamma, greedy, rule, [], target, guesses, q_dists), rng)


def verify(step: Step, rng: np.random.Generator) -> Step:
    """The target's one pass over ``step.guesses``: keep each with probability min(1, p/q) (greedy:
    iff it is p's arg-max), stop at the first refusal and put in a token, or add the bonus.

    Any draft fits, as long as ``step.q_dists`` holds the distribution each guess was drawn from.
    Each position of the pass is looked up when the check reaches it."""
    for i, (x, q) in enumerate(zip(step.guesses, step.q_dists)):
        p = step.p_at(i)
        px, qx = p[x], q[x]
        if step.greedy:
            r, accepted = None, x == p.argmax()
        else:
            r = float(rng.random())
            accepted = step.rule == "keep-draft" or r < px / qx
        step.proposals.append(Proposal(x, qx, px, r, accepted, q, p))
        if not accepted:
            if step.greedy:
                step.replacement = p.argmax()
            elif step.rule == "exact":
                step.residual = residual(p, q)
                step.replacement = step.residual.sample(rng.random())
            else:  # resample-target: the tempting mistake
                step.replacement = p.sample(rng.random())
            return step
    n = len(step.guesses)
    p = step.p_at(n)
    step.bonus = p.argmax() if step.greedy else p.sample(rng.random())
    return step


@dataclass
class Run:
    context: tuple[int, ...]
    tokens: list[int]
    steps: Sequence[Step]     # a list, or a fast run's columns (``_Passes``)
    overlaps: list[float]       # Σ min(p, q) at each written position
    gamma: int
    # Greedy runs: whether arg-max q = arg-max p at each written position (None when sampling).
    agreements: list[bool] | None = None
    # Whether a guess was checked at each written position (None: a model draft, which has a q at
    # every position). The lookup proposes nothing where its text has no match; α leaves those out.
    checked: list[bool] | None = None

    @property
    def accept_chances(self) -> list[float]:
        """The chance a guess is kept at each written position: Σ min(p, q) when sampling, 1 or 0
        (the arg-maxes agree or not) under greedy decoding. α is their mean."""
        if self.agreements is not None:
            return [float(a) for a in self.agreements]
        return self.overlaps

    def stats(self) -> dict:
        n_checked, n_kept, n_written = _pass_counts(self.steps)
        passes = len(n_checked)
        written = sum(n_written)
        proposed = sum(n_checked) if self.gamma else 0
        hist = [0] * (self.gamma + 1)
        for n in n_kept:
            hist[n] += 1
        # α over the positions the run returns (``tokens``; the last pass may write past them),
        # and only where the draft had a guess (the same definition for every draft).
        n = len(self.tokens)
        chances = self.accept_chances[:n]
        if self.checked is not None:
            chances = [x for x, ok in zip(chances, self.checked[:n]) if ok]
        return {
            "alpha": float(np.mean(chances)) if chances else None,
            # What α averages: "overlap" (Σ min(p, q), sampling) or "agreement" (greedy).
            "alpha_measure": "agreement" if self.agreements is not None else "overlap",
            "acceptance_rate": (sum(n_kept) / proposed) if proposed else None,
            "tokens_per_pass": written / passes if passes else None,
            "passes": passes,
            "accepted_hist": hist,
        }

    def head(self, n_tokens: int) -> "Run":
        """The run ``generate`` would have returned for ``n_tokens`` with the same seed: its passes
        up to the one that reaches n_tokens (the random draws happen in the same order)."""
        if n_tokens < 1:
            raise ValueError("n_tokens must be at least 1")
        written = 0
        for k, n in enumerate(_pass_counts(self.steps)[2], 1):
            written += n
            if written >= n_tokens:
                break
        if written < n_tokens:
            raise ValueError(f"the run wrote only {written} tokens")
        agreements = self.agreements[:written] if self.agreements is not None else None
        checked = self.checked[:written] if self.checked is not None else None
        return Run(self.context, self.tokens[:n_tokens], self.steps[:k], self.overlaps[:written],
                   self.gamma, agreements, checked)

    def to_json(self, vocab: Sequence[str], top: int = 8) -> dict:
        return {
            "context": [vocab[i] if i >= 0 else "<unk>" for i in self.context],
            "tokens": [vocab[i] for i in self.tokens],
            **self.stats(),
            "overlap": self.overlaps[:len(self.tokens)],
            "agreement": (self.agreements[:len(self.tokens)] if self.agreements is not None
                          else None),
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
    if _fast_ok(target) and _fast_ok(draft):
        return _generate_fast(target, draft, context, n_tokens, gamma, rng, greedy, rule)
    return generate_steps(target, draft, context, n_tokens, gamma, rng, greedy=greedy, rule=rule)


def generate_steps(target: NGramModel, draft: NGramModel, context: Sequence[int], n_tokens: int,
                   gamma: int, rng: np.random.Generator, *, greedy: bool = False,
                   rule: str = "exact") -> Run:
    """``generate`` written as its definition: one ``speculative_step`` and one ``write`` per pass.
    ``generate`` itself takes a faster path that must give the same run (the tests hold it)."""
    check_args(gamma, rule, gamma_min=0)
    ctx = list(context)
    start = len(ctx)
    steps, overlaps = [], []
    agreements = [] if greedy else None
    while len(ctx) - start < n_tokens:
        if gamma == 0:
            p = target.sparse(ctx)
            tok = p.argmax() if greedy else p.sample(rng.random())
            step = Step(tuple(ctx[-CONTEXT_KEPT:]), 0, greedy, rule, [], target, bonus=tok)
        else:
            step = speculative_step(target, draft, ctx[-CONTEXT_KEPT:], gamma, rng, greedy=greedy, rule=rule)
        write(step, ctx, overlaps, target, draft, agreements)
        steps.append(step)
    return Run(tuple(context), ctx[start:start + n_tokens], steps, overlaps, gamma, agreements)


def _fast_ok(model) -> bool:
    """A model whose distributions the fast loop may read from its memo directly."""
    return isinstance(model, NGramModel) and type(model).sparse is NGramModel.sparse


class _Uniforms:
    """``rng.random()`` one at a time, drawn in blocks: a Generator fills an array with the very
    numbers single calls would return, in order, at a fraction of a call's cost each. ``close``
    puts the generator where the single calls would have left it."""

    __slots__ = ("rng", "block", "state", "it")

    def __init__(self, rng: np.random.Generator, block: int):
        self.rng, self.block = rng, block
        self._fill()

    def _fill(self) -> None:
        self.state = self.rng.bit_generator.state
        self.it = iter(self.rng.random(self.block).tolist())

    def __call__(self) -> float:
        for u in self.it:
            return u
        self._fill()
        return next(self.it)

    def close(self) -> None:
        used = self.block - length_hint(self.it)
        self.rng.bit_generator.state = self.state
        if used:
            self.rng.random(used)


class _Passes(Sequence):
    """A fast run's passes, kept as the columns the loop appends to (a number or a reference per
    guess and per check, no object of their own), made into ``Step`` objects when first read. A
    long run that is only counted never makes them: a 10,000-token run would make about 4,000
    Steps, 7,000 Proposals and 12,000 lists, each one more object to allocate and for the
    collector to walk. Reads like the list of Steps ``generate_steps`` returns."""

    __slots__ = ("target", "gamma", "greedy", "rule", "ctx", "start", "overlaps", "at", "checked",
                 "refused", "ends", "residuals", "guessed", "qs", "ps", "pxs", "qxs", "rs", "_steps")

    def __init__(self, target, gamma, greedy, rule, ctx, start, overlaps):
        self.target, self.gamma, self.greedy, self.rule = target, gamma, greedy, rule
        self.ctx, self.start, self.overlaps = ctx, start, overlaps
        self.at, self.checked, self.refused, self.ends, self.residuals = [], [], [], [], []
        self.guessed, self.qs = [], []                              # γ per pass
        self.ps, self.pxs, self.qxs, self.rs = [], [], [], []       # one per check
        self._steps = None

    def counts(self) -> tuple[list[int], list[int], list[int]]:
        """Per pass: guesses checked, guesses kept, tokens written (``_pass_counts``)."""
        return (self.checked, [n - r for n, r in zip(self.checked, self.refused)],
                [n + (not r) for n, r in zip(self.checked, self.refused)])

    def _made(self) -> list[Step]:
        if self._steps is None:
            self._steps = list(self._make())
        return self._steps

    def _make(self):
        gamma, ctx, ov = self.gamma, self.ctx, self.overlaps
        k = 0                                       # the first check of the pass
        for i, (pos, n, refused, tok, res) in enumerate(
                zip(self.at, self.checked, self.refused, self.ends, self.residuals)):
            g = i * gamma
            guesses, q_dists = self.guessed[g:g + gamma], self.qs[g:g + gamma]
            w = pos - self.start                    # the pass's first written position
            proposals = [Proposal(guesses[j], self.qxs[k + j], self.pxs[k + j], self.rs[k + j],
                                  j < n - 1 or not refused, q_dists[j], self.ps[k + j], ov[w + j])
                         for j in range(n)]
            k += n
            yield Step(tuple(ctx[max(pos - CONTEXT_KEPT, 0):pos]), gamma, self.greedy, self.rule,
                       proposals, self.target, guesses, q_dists, res,
                       tok if refused else None, None if refused else tok)

    def __len__(self) -> int:
        return len(self.at)

    def __getitem__(self, i):
        if isinstance(i, slice) and not i.start and i.step in (None, 1) and i.stop is not None \
                and 0 <= i.stop < len(self.at) and self._steps is None:
            return self._head(i.stop)        # ``Run.head``: the first passes, still as columns
        return self._made()[i]

    def _head(self, k: int) -> "_Passes":
        out = _Passes(self.target, self.gamma, self.greedy, self.rule, self.ctx, self.start,
                      self.overlaps)
        n = sum(self.checked[:k])
        for name in ("at", "checked", "refused", "ends", "residuals"):
            setattr(out, name, getattr(self, name)[:k])
        for name in ("guessed", "qs"):
            setattr(out, name, getattr(self, name)[:k * self.gamma])
        for name in ("ps", "pxs", "qxs", "rs"):
            setattr(out, name, getattr(self, name)[:n])
        return out

    def __iter__(self):
        return iter(self._made())

    def __eq__(self, other) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)


def _pass_counts(steps: Sequence[Step]) -> tuple[list[int], list[int], list[int]]:
    """Per pass: guesses checked, guesses kept, tokens written (a fast run's without its Steps)."""
    if isinstance(steps, _Passes):
        return steps.counts()
    return ([len(s.proposals) for s in steps], [s.n_accepted for s in steps],
            [len(s.written) for s in steps])


def _generate_fast(target: NGramModel, draft: NGramModel, context: Sequence[int], n_tokens: int,
                   gamma: int, rng: np.random.Generator, greedy: bool, rule: str) -> Run:
    """``generate_steps`` with the same draws in the same order and the same arithmetic, without
    its per-call overheads: the uniforms come in blocks, distributions straight from the models'
    memos, the draft's drawn by bisection on lists (``sim.dist.Draws``), a guess's p and q from
    its place in the list the two models share (the draw finds it), the residual once per
    context in a run, Σ min(p, q) and argmax once per distribution, and the trace kept as
    columns (``_Passes``)."""
    t_get, d_get = target.sparse_memo.call, draft.sparse_memo.call
    kt, kd = target.order - 1, draft.order - 1
    p1 = target.base.p
    exact, keep_all = rule == "exact", rule == "keep-draft"
    ctx = list(context)
    start = len(ctx)
    end = start + n_tokens
    overlaps = []
    agreements = [] if greedy else None
    passes = _Passes(target, gamma, greedy, rule, ctx, start, overlaps)
    at, checked, refusals, ends, residuals = (passes.at, passes.checked, passes.refused,
                                              passes.ends, passes.residuals)
    guessed, qs, ps, pxs, qxs, rs = (passes.guessed, passes.qs, passes.ps, passes.pxs, passes.qxs,
                                     passes.rs)
    # By the last two tokens (which fix both models' contexts): the residual; by the draft's
    # context: its distribution made ready for drawing. (Σ min(p, q) is kept by p itself.)
    residual_at, draws_at = {}, {}
    # The target's distributions met in this run, by the last two tokens (a dict read; the memo
    # is asked once per context, which keeps it warm for the next request).
    target_at = {}

    def p_at(tail):
        p = target_at.get(tail)
        if p is None:
            p = target_at[tail] = t_get(tail[-kt:] if kt else ())
        return p

    # Per guess of the pass under way: the last two tokens before it, and its place in the
    # draft's list with its q (filled in place: no list per pass).
    tails, places, q_at = [()] * (gamma + 1), [0] * gamma, [0.0] * gamma
    uniform = (_Uniforms(rng, min(1024, 2 + n_tokens * (gamma + 2)))
               if hasattr(rng, "bit_generator") else rng.random)
    try:
        while len(ctx) < end:
            tail = tuple(ctx[-2:])
            at.append(len(ctx))
            g0 = len(guessed)
            for i in range(gamma):                  # the draft, γ times
                tails[i] = tail
                dk = tail[-kd:] if kd else ()
                if greedy:
                    q = d_get(dk)
                    x = q.argmax()
                else:
                    # A context's first draw in the run searches the distribution's own running
                    # sum; from its second, lists pay for themselves.
                    dr = draws_at.get(dk)
                    if dr is None:
                        q = draws_at[dk] = d_get(dk)
                        x, j = q.draw(uniform())
                        q_at[i] = float(q.val[j]) if j >= 0 else None
                    else:
                        if dr.__class__ is not Draws:
                            dr = draws_at[dk] = Draws(dr)
                        q = dr.dist
                        x, j = dr(uniform())
                        q_at[i] = dr.val[j] if j >= 0 else None
                    places[i] = j
                guessed.append(x)
                qs.append(q)
                tail = (tail[-1], x) if tail else (x,)
            tails[gamma] = tail                     # the bonus position
            refused = False
            for i in range(gamma):                  # the target's one pass, checked in order
                x, q, tail = guessed[g0 + i], qs[g0 + i], tails[i]
                p = target_at.get(tail) or p_at(tail)
                if not greedy and p.sup is q.sup:
                    j, qx = places[i], q_at[i]
                    if j >= 0:
                        px = float(p.val[j])
                    else:
                        w = float(p1[x])
                        px, qx = p.s * w, q.s * w
                else:
                    px, qx = p[x], q[x]
                if greedy:
                    r, accepted = None, x == p.argmax()
                else:
                    r = uniform()
                    accepted = keep_all or r < px / qx
                ps.append(p); pxs.append(px); qxs.append(qx); rs.append(r)
                overlaps.append(p.overlap_with(q))
                if greedy:
                    agreements.append(q.argmax() == p.argmax())
                if not accepted:
                    res = None
                    if greedy:
                        tok = p.argmax()
                    elif exact:
                        res = residual_at.get(tail)
                        if res is None:
                            res = residual_at[tail] = residual(p, q)
                        tok = res.sample(uniform())
                    else:
                        tok = p.sample(uniform())
                    ctx += guessed[g0:g0 + i]
                    checked.append(i + 1)
                    refused = True
                    break
            else:                                   # every guess kept: the bonus
                tail = tails[gamma]
                p = p_at(tail)
                tok = p.argmax() if greedy else p.sample(uniform())
                q = d_get(tail[-kd:] if kd else ())
                overlaps.append(p.overlap_with(q))
                if greedy:
                    agreements.append(p.argmax() == q.argmax())
                ctx += guessed[g0:]
                checked.append(gamma)
                res = None
            refusals.append(refused)
            ends.append(tok)
            residuals.append(res)
            ctx.append(tok)
    finally:
        if isinstance(uniform, _Uniforms):
            uniform.close()
    return Run(tuple(context), ctx[start:end], passes, overlaps, gamma, agreements)


def write(step: Step, ctx: list[int], overlaps: list[float], target: NGramModel, draft: NGramModel,
          agreements: list[bool] | None = None) -> None:
    """Append the step's tokens to ``ctx`` and Σ min(p, q) at each of their positions to ``overlaps``
    (and, given ``agreements``, whether arg-max q = arg-max p there)."""
    for i, (tok, _) in enumerate(step.written):
        if i < len(step.proposals):
            pr = step.proposals[i]
            overlaps.append(pr.overlap)
            if agreements is not None:
                agreements.append(pr.agree)
        else:  # the bonus position: the draft never looked there
            p, q = target.sparse(ctx), draft.sparse(ctx)
            overlaps.append(overlap(p, q))
            if agreements is not None:
                agreements.append(p.argmax() == q.argmax())
        ctx.append(tok)


def per_position_acceptance(run: "Run", positions: int | None = None) -> list[float]:
    """The share of drafting passes (those that made at least one guess) that kept guess k, for
    k = 1..positions (default: the run's γ), as vLLM's SpecDecodingLogging reports per-position
    acceptance: a pass that proposed fewer than k guesses did not keep a k-th. For a trained
    draft the shares fall off step by step (about α, α², …); copying keeps whole runs or none."""
    k_max = positions if positions is not None else run.gamma
    drafting = [s for s in run.steps if s.proposals]
    if not drafting or k_max < 1:
        return []
    return [sum(s.n_accepted >= k for s in drafting) / len(drafting) for k in range(1, k_max + 1)]


def plain_decode(target: NGramModel, context: Sequence[int], n_tokens: int, rng: np.random.Generator,
                 *, greedy: bool = False) -> list[int]:
    """The target alone, one token per pass: the baseline speculative decoding must reproduce."""
    ctx = list(context)
    for _ in range(n_tokens):
        p = target.sparse(ctx)
        ctx.append(p.argmax() if greedy else p.sample(rng.random()))
    return ctx[len(context):]
