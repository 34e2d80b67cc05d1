"""Prompt-lookup drafting: a draft with no second model, copied from the text so far.

Saxena (2023), "Prompt Lookup Decoding" (github.com/apoorvumang/prompt-lookup-decoding), also in
Hugging Face transformers as ``prompt_lookup_num_tokens``. Take the last n tokens of the text (try
n = 3, then 2, then 1), find their most recent earlier occurrence, and propose the (up to) γ tokens
that followed it. (Transformers takes the earliest occurrence; the most recent one is usually the
more relevant on long texts and is what we use.) With no occurrence, nothing is proposed and the
pass is a plain target step.

As a draft, q is a point mass on each proposed token: the guess x is kept with probability
min(1, p(x)/1) = p(x), and on a refusal the replacement comes from max(0, p − q) normalised, which
is p with x removed and renormalised. Together: P(x) = p(x), P(y) = (1 − p(x)) · p(y)/(1 − p(x))
= p(y). The proposal is a function of the past only, so the output is still exactly p
(Leviathan et al. 2023, Appendix A.1, holds for any q).

Looking up costs next to nothing next to a model run, so its draft cost c is ≈ 0.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .dist import Dist
from .ngram import NGramModel
from .speculative import CONTEXT_KEPT, Run, Step, check_args, verify

MAX_NGRAM = 3   # the longest n-gram looked up (Saxena's default is 3 as well)


class NgramIndex:
    """Where each n-gram (n = 1..max_ngram) of a growing text last started. Kept up to date as
    the text grows, so a lookup costs O(n) per pass instead of a scan over the whole text."""

    def __init__(self, text: Sequence[int] = (), max_ngram: int = MAX_NGRAM):
        self.max_ngram = max_ngram
        self.text: list[int] = [int(t) for t in text]
        self._last: dict[tuple[int, ...], int] = {}
        self._ends = 0   # n-grams ending before this position are indexed

    def append(self, token: int) -> None:
        self.text.append(int(token))

    def propose(self, gamma: int) -> list[int]:
        """Up to γ tokens that followed the most recent earlier occurrence of the text's last
        n-gram. Tries n = max_ngram down to 1; the occurrence must end before the last token, so
        at least one token follows it. [] when nothing matches (or γ = 0)."""
        h, L = self.text, len(self.text)
        if gamma < 1 or L < 2:
            return []
        # Index every n-gram ending at position ≤ L − 2: those start before the text's own last
        # n-gram and have a token after them. Later starts overwrite earlier: the most recent wins.
        while self._ends <= L - 2:
            e = self._ends
            for n in range(1, min(self.max_ngram, e + 1) + 1):
                self._last[tuple(h[e - n + 1:e + 1])] = e - n + 1
            self._ends += 1
        for n in range(min(self.max_ngram, L - 1), 0, -1):
            j = self._last.get(tuple(h[L - n:]))
            if j is not None:
                return h[j + n:j + n + gamma]
        return []


def propose(history: Sequence[int], gamma: int, max_ngram: int = MAX_NGRAM) -> list[int]:
    """``NgramIndex(history).propose(gamma)``: for a single lookup."""
    return NgramIndex(history, max_ngram).propose(gamma)


def lookup_step(target: NGramModel, history: Sequence[int], gamma: int, rng: np.random.Generator, *,
                greedy: bool = False, rule: str = "exact", index: NgramIndex | None = None) -> Step:
    """One pass with the lookup draft from the full text so far (``history``, token ids).

    The returned Step's ``gamma`` is the number of guesses actually proposed (0..γ): a lookup may
    find fewer than γ tokens, or none (then the step is the target's own token, as a bonus)."""
    check_args(gamma, rule)
    # ``index`` (over the same text as ``history``) spares building one for this pass.
    guesses = (index or NgramIndex(history)).propose(gamma)
    ctx = list(history[-CONTEXT_KEPT:])
    # q is a point mass on each guess: kept with probability p(x), refusals drawn from p without x.
    q_dists = [Dist.point(target.base, x) for x in guesses]
    return verify(Step(tuple(ctx), len(guesses), greedy, rule, [], target, guesses, q_dists), rng)


def generate_lookup(target: NGramModel, history: Sequence[int], n_tokens: int, gamma: int,
                    rng: np.random.Generator, *, greedy: bool = False, rule: str = "exact",
                    shown_context: int = CONTEXT_KEPT) -> Run:
    """Write ``n_tokens`` tokens after ``history`` with the lookup draft (γ guesses at most per pass).

    ``history`` is the whole prompt the lookup may copy from; the Run's context shows only its last
    ``shown_context`` tokens. The overlap Σ min(p, q) at a written position is p(x) where a guess x
    was checked, and 0 where nothing was proposed (no guess, nothing to keep); α, as for every draft,
    averages only the positions where a guess was checked (``Run.checked``)."""
    check_args(gamma, rule)
    if n_tokens < 1:
        raise ValueError("n_tokens must be at least 1")
    text = list(history)
    index = NgramIndex(text)
    start = len(text)
    steps, overlaps, checked = [], [], []
    while len(text) - start < n_tokens:
        step = lookup_step(target, text, gamma, rng, greedy=greedy, rule=rule, index=index)
        for i, (tok, _) in enumerate(step.written):
            checked.append(i < len(step.proposals))
            if i < len(step.proposals):
                overlaps.append(step.proposals[i].overlap)
            else:
                overlaps.append(0.0)
            text.append(tok)
            index.append(tok)
        steps.append(step)
    return Run(tuple(history[-shown_context:]), text[start:start + n_tokens], steps, overlaps, gamma,
               checked=checked)


def lookup_stats(run: Run) -> dict:
    """What the lookup draft did: how often it found a match and how long its proposals were."""
    passes = len(run.steps)
    proposed = [len(s.proposals) for s in run.steps]
    return {
        "match_rate": sum(1 for n in proposed if n) / passes if passes else None,
        "mean_proposed": float(np.mean(proposed)) if passes else None,
        "guesses": sum(proposed),
    }
