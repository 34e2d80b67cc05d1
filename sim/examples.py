"""Examples chosen from the data, not translated: where the draft and the target disagree, and
which positions are easy or hard to guess.

A context is "disagreeing" when the total variation distance Σ max(0, p − q) between the target's
(trigram) and the draft's (bigram) next-token distributions is large; it must also be frequent
enough (seen ≥ ``min_count`` times) that the trigram really reads it. The ease of a position is the
chance a draft guess is kept there, Σ min(p, q), together with how sure the target is.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from corpus.text import LANGUAGES

from .ngram import load_models

# Tokens the tubes draw one by one (views/sections/speculative.py: TUBE_SHOWN); the rest are pooled.
TUBES_SHOWN = 7


def _contexts(lang: str, min_count: int):
    """Every two-token context seen at least ``min_count`` times, with p, q, TV and overlap."""
    m = load_models(lang)
    target, draft = m["trigram"], m["bigram"]
    out = []
    for key in target._pair_row:
        a, b = divmod(key, target.V)
        n = target.count_context((a, b))
        if n < min_count:
            continue
        p, q = target.dist((a, b)), draft.dist((a, b))
        tv = float(np.maximum(p - q, 0).sum())
        out.append({"ids": (a, b), "tokens": [target.vocab[a], target.vocab[b]], "count": n,
                    "tv": tv, "overlap": 1.0 - tv, "p_max": float(p.max()),
                    "p_argmax": target.vocab[int(p.argmax())], "q_argmax": draft.vocab[int(q.argmax())]})
    return out


def _is_word(tok: str) -> bool:
    return any(ch.isalnum() for ch in tok)


@lru_cache(maxsize=None)
def disagreeing_contexts(lang: str, min_count: int = 20, n: int = 10) -> tuple[dict, ...]:
    """The n frequent contexts where draft and target disagree most (largest TV first)."""
    ranked = sorted(_contexts(lang, min_count), key=lambda d: (-d["tv"], d["tokens"]))
    return tuple(ranked[:n])


@lru_cache(maxsize=None)
def tubes_context(lang: str) -> tuple[str, ...]:
    """The tubes' starting context: a frequent two-token context where the draft and the target
    disagree enough (TV ≥ 0.2) for the residual to matter, yet spread over several tokens so the
    tubes show a shape. English keeps the seed plate's ", when"."""
    if LANGUAGES[lang].tubes_context:
        return LANGUAGES[lang].tubes_context
    target = load_models(lang)["trigram"]

    def shown_mass(d) -> float:
        # The tubes draw the TUBES_SHOWN likeliest tokens and pool the rest; when the pool holds
        # most of p (Chinese characters after 没有: 69%), the balls all land in "other".
        return float(np.sort(target.dist(d["ids"]))[::-1][:TUBES_SHOWN].sum())

    candidates = [d for d in _contexts(lang, 20) if d["tv"] >= 0.2 and d["p_max"] <= 0.5
                  and all(_is_word(t) for t in d["tokens"]) and shown_mass(d) >= 0.6]
    best = max(candidates, key=lambda d: (d["tv"] * d["count"] ** 0.5, d["tokens"]))
    return tuple(best["tokens"])


@lru_cache(maxsize=None)
def easy_and_hard(lang: str, min_count: int = 8) -> dict:
    """An easy position (both models nearly sure of the same word, like "Mock" → "Turtle") and a
    hard one (a frequent context where a guess is least likely to be kept)."""
    ctxs = [d for d in _contexts(lang, min_count) if all(_is_word(t) for t in d["tokens"])]
    easy = max(ctxs, key=lambda d: (d["overlap"] * d["p_max"], d["count"], d["tokens"]))
    frequent = [d for d in ctxs if d["count"] >= 4 * min_count]
    hard = min(frequent, key=lambda d: (d["overlap"], d["tokens"]))
    keep = ("tokens", "count", "overlap", "p_max", "p_argmax", "q_argmax")
    return {"easy": {k: easy[k] for k in keep}, "hard": {k: hard[k] for k in keep}}
