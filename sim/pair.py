"""The draft's α as a property of the pair (target, draft, language, greedy), not of a run.

α is the chance a guess is kept, averaged over the text the target writes (Leviathan et al. 2023,
arXiv:2211.17192, §3: β, the chance a guess is kept at one prefix, is Σ min(p, q); α is the
expectation of β). A 200-token run at one γ and one seed averages over its own 200 positions: a
different γ or seed writes a different text and gets a different α (0.618 at γ 1, 0.654 at γ 8 for
the same pair). The pair's α is measured once, over a long run of the target's own sampled text
(plain decoding from the language's example context, a fixed seed), so it is the same for every
γ, seed and section.

When sampling, the chance at a position is Σ min(p, q). Under greedy decoding both models put all
their mass on their arg-max (temperature 0), so the same β is 1 where the two arg-maxes agree and
0 where they do not; Leviathan et al.'s Table 3 gives α at temperature 0 (arg-max) beside α at
temperature 1 for each pair. Greedy α is that agreement over the same positions of the same
sampled text, not over the target's own greedy text: a counted model's greedy text falls into a
loop within a few dozen tokens (English: ", and the Queen" again and again) where the two
favourites agree at every position, so α over it would be the loop's (1.000 for the English
bigram), not the pair's. A greedy run's own agreement, over its loop, is shown beside the pair's
figure as the run's.

Deterministic: the same models give the same figure. It takes about 0.2 s of CPU for one draft
on this machine, so it is computed once per process (``lru_cache``), not committed;
docs/numbers.md lists the figures.
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from . import examples
from .dist import overlap
from .ngram import load_models
from .speculative import CONTEXT_KEPT, DRAFTS, plain_decode

PAIR_TOKENS = 10_000   # positions of the target's own text averaged over (standard error < 0.005)
PAIR_SEED = 0          # the seed of that text (fixed: the pair's α is one number)


def chances(target, draft, text, start: int, greedy: bool) -> list[float]:
    """The chance a guess is kept at each position of ``text`` from ``start`` on."""
    out = []
    for i in range(start, len(text)):
        ctx = text[max(0, i - CONTEXT_KEPT):i]
        p, q = target.sparse(ctx), draft.sparse(ctx)
        out.append(float(p.argmax() == q.argmax()) if greedy else overlap(p, q))
    return out


@lru_cache(maxsize=4)
def target_text(lang: str, tokens: int = PAIR_TOKENS) -> tuple[tuple[int, ...], int]:
    """(ids, where the written text starts): the target's own sampled text from the example
    context, shared by every draft of the language and by both modes (greedy α counts agreement
    over the same positions)."""
    target = load_models(lang)["trigram"]
    start = target.encode(list(examples.tubes_context(lang)))
    text = start + plain_decode(target, start, tokens, np.random.default_rng(PAIR_SEED))
    return tuple(text), len(start)


@lru_cache(maxsize=16)
def pair_alpha(lang: str, draft: str, greedy: bool = False, tokens: int = PAIR_TOKENS) -> dict:
    """{"alpha", "positions", "measure" ("overlap" | "agreement"), "se"} for the pair."""
    if draft not in DRAFTS:
        raise ValueError(f"draft must be one of {', '.join(DRAFTS)}")
    models = load_models(lang)
    text, start = target_text(lang, tokens)
    ch = chances(models["trigram"], models[draft], list(text), start, greedy)
    a = float(np.mean(ch))
    return {"alpha": a, "positions": len(ch), "measure": "agreement" if greedy else "overlap",
            "se": float(np.std(ch) / math.sqrt(len(ch)))}


def alpha(lang: str, draft: str, greedy: bool = False) -> float:
    """The pair's α to 3 decimals, as the page prints it, so that every section starting from it
    rounds to the same tokens per pass, best γ and speed-up."""
    return round(pair_alpha(lang, draft, bool(greedy))["alpha"], 3)
