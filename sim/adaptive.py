"""Adaptive γ: choose the number of guesses of each pass from what the previous passes showed.

Two policies:

* ``hf``: the heuristic of Hugging Face transformers' assisted generation
  (``AssistedCandidateGenerator.update_candidate_strategy``, schedule "heuristic"): start at γ₀;
  after a pass where every guess was kept γ += 2, otherwise γ −= 1, never below 1 (and here never
  above sim's cap of 16).
* ``cost``: estimate α from the recent passes and take the γ the cost model says is best,
  ``theory.best_gamma(α̂, c)``. Each checked guess is one Bernoulli(α) trial (kept or refused;
  guesses after a refusal are never checked), so α̂ = kept / checked, both counts discounted by
  ``DECAY`` per pass (an exponential moving average) and started from a weak prior of
  ``PRIOR_ALPHA`` worth ``PRIOR_WEIGHT`` guesses.

γ changes only between passes and only from what earlier passes wrote, so every pass is an
ordinary speculative step with a γ fixed in advance: the output keeps the target's distribution.

Speed is modelled as in Leviathan et al. (2023, Theorem 3.8): a pass with γ guesses costs γc + 1
target runs (c: one draft run over one target run), so a run's speed-up over plain decoding is
tokens written / Σ (γ_i c + 1).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from . import theory
from .ngram import NGramModel
from .speculative import CONTEXT_KEPT, GAMMA_MAX, Run, check_args, generate, speculative_step, write

POLICIES = ("hf", "cost")
DECAY = 0.8          # weight of the past per pass in the α̂ average (about the last 5 passes count)
PRIOR_ALPHA = 0.5    # α̂ before any pass: no knowledge either way
PRIOR_WEIGHT = 2.0   # ... worth two guesses, so the first passes move it quickly
HF_UP, HF_DOWN = 2, 1  # transformers: +2.0 when all candidates matched, −1.0 otherwise


@dataclass
class GammaPolicy:
    """The rule that picks the next pass's γ from the passes so far."""
    policy: str
    gamma: int                 # γ of the next pass
    c: float = 0.0
    gamma_max: int = GAMMA_MAX
    kept: float = PRIOR_ALPHA * PRIOR_WEIGHT
    checked: float = PRIOR_WEIGHT

    def __post_init__(self):
        if self.policy not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}")
        check_args(self.gamma_max, "exact")
        if not 1 <= self.gamma <= self.gamma_max:
            raise ValueError(f"gamma must be an integer from 1 to {self.gamma_max}")

    @property
    def alpha_hat(self) -> float:
        return self.kept / self.checked

    def update(self, n_proposed: int, n_accepted: int) -> int:
        """Record one pass (guesses proposed, of them kept) and return the next γ."""
        refused = n_accepted < n_proposed
        self.kept = DECAY * self.kept + n_accepted
        self.checked = DECAY * self.checked + n_accepted + (1 if refused else 0)
        if self.policy == "hf":
            self.gamma = self.gamma - HF_DOWN if refused else self.gamma + HF_UP
        else:
            self.gamma = theory.best_gamma(min(1.0, self.alpha_hat), self.c, self.gamma_max)[0]
        self.gamma = max(1, min(self.gamma_max, self.gamma))
        return self.gamma


def generate_adaptive(target: NGramModel, draft: NGramModel, context: Sequence[int], n_tokens: int,
                      gamma0: int, rng: np.random.Generator, *, policy: str = "hf", c: float = 0.0,
                      gamma_max: int = GAMMA_MAX, greedy: bool = False, rule: str = "exact") -> Run:
    """Like ``speculative.generate``, with γ set before each pass by ``policy``.

    The Run's ``gamma`` is the largest γ used; each step keeps its own (``step.gamma``)."""
    if n_tokens < 1:
        raise ValueError("n_tokens must be at least 1")
    pol = GammaPolicy(policy, gamma0, c, gamma_max)
    ctx = list(context)
    start = len(ctx)
    steps, overlaps = [], []
    agreements = [] if greedy else None  # greedy α: where the arg-maxes agree (sim.speculative)
    while len(ctx) - start < n_tokens:
        step = speculative_step(target, draft, ctx[-CONTEXT_KEPT:], pol.gamma, rng, greedy=greedy, rule=rule)
        write(step, ctx, overlaps, target, draft, agreements)
        steps.append(step)
        pol.update(step.gamma, step.n_accepted)
    return Run(tuple(context), ctx[start:start + n_tokens], steps, overlaps,
               max(s.gamma for s in steps), agreements)


def pass_cost(run: Run, c: float) -> float:
    """The run's time in target runs: Σ (γ_i c + 1) over its passes (the draft runs γ_i times)."""
    return sum(s.gamma * c + 1.0 for s in run.steps)


def modelled_speedup(run: Run, c: float) -> float:
    """Tokens written per unit time over plain decoding's one token per target run."""
    written = sum(len(s.written) for s in run.steps)
    return written / pass_cost(run, c)


def gammas(run: Run) -> list[int]:
    return [s.gamma for s in run.steps]


def compare(target: NGramModel, draft: NGramModel, context: Sequence[int], n_tokens: int, gamma0: int,
            seed: int, c: float, *, gamma_max: int = GAMMA_MAX) -> dict:
    """Both adaptive policies (γ kept within 1..gamma_max) against every fixed γ in 1..gamma_max,
    each run from the same seed.

    The best fixed γ is picked after the fact (by modelled speed-up), an oracle no server has:
    an adaptive policy that comes close to it without knowing α in advance is doing well."""
    fixed = {g: generate(target, draft, context, n_tokens, g, np.random.default_rng(seed))
             for g in range(1, gamma_max + 1)}
    adaptive = {policy: generate_adaptive(target, draft, context, n_tokens, gamma0,
                                          np.random.default_rng(seed), policy=policy, c=c,
                                          gamma_max=gamma_max)
                for policy in POLICIES}
    return compare_runs(fixed, adaptive, gamma0, c)


def compare_runs(fixed: dict[int, Run], adaptive: dict[str, Run], gamma0: int, c: float) -> dict:
    """``compare``'s answer from runs already made (fixed γ → run, policy → run), so a caller
    that keeps runs can reuse them."""
    def summary(run: Run) -> dict:
        passes = len(run.steps)
        written = sum(len(s.written) for s in run.steps)
        return {"tokens_per_pass": written / passes, "passes": passes,
                "speedup": modelled_speedup(run, c), "gammas": gammas(run)}

    def bare(s: dict) -> dict:
        return {k: v for k, v in s.items() if k != "gammas"}

    fixed_s = {g: summary(run) for g, run in fixed.items()}
    best = max(fixed_s, key=lambda g: (fixed_s[g]["speedup"], -g))
    out = {"c": c, "gamma0": gamma0, "fixed": {str(g): bare(s) for g, s in fixed_s.items()},
           "best_fixed_gamma": best, "best_fixed": bare(fixed_s[best]),
           "start_fixed": bare(fixed_s[gamma0])}
    for policy, run in adaptive.items():
        out[policy] = summary(run)
    return out
