"""The tubes: plain sampling from the target against speculative decoding's first token.

From one context, the left tube lets the target p draw the next token itself; the right tube runs
one speculative cycle (the draft q proposes x, kept with probability min(1, p(x)/q(x)), otherwise a
token is put in from the residual) and keeps its first token. Leviathan et al. (2023), Appendix
A.1: P(x) = min(p(x), q(x)) + (1 − Σ min(p, q)) · residual(x) = p(x), so both tubes fill towards p.
A chi-square test of each tube's counts against p says whether the difference is chance.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
from scipy import stats

from .ngram import NGramModel
from .speculative import RULES, residual

MIN_EXPECTED = 5.0  # the usual condition for the chi-square approximation to hold


def _draw(p: np.ndarray, u: np.ndarray) -> np.ndarray:
    cdf = np.cumsum(p)
    return np.minimum(np.searchsorted(cdf, u * cdf[-1], side="right"), p.size - 1)


def first_tokens(p: np.ndarray, q: np.ndarray, n: int, rng: np.random.Generator, rule: str = "exact"):
    """n independent first tokens of a speculative cycle: (tokens, kept) arrays.

    Vectorised over the n trials; each trial uses its own draft draw, r and replacement draw."""
    if rule not in RULES:
        raise ValueError(f"rule must be one of {', '.join(RULES)}")
    x = _draw(q, rng.random(n))
    r = rng.random(n)
    kept = np.ones(n, dtype=bool) if rule == "keep-draft" else r < p[x] / q[x]
    put_in_from = residual(p, q) if rule == "exact" else p
    replacement = _draw(put_in_from, rng.random(n))
    return np.where(kept, x, replacement), kept


def chi_square(counts: np.ndarray, p: np.ndarray) -> tuple[float, float, int]:
    """Chi-square goodness of fit of token counts against p: (statistic, p-value, bins).

    Tokens whose expected count is below 5 are pooled into one bin (joined to the smallest bin if
    the pool itself stays under 5), so the approximation is valid."""
    n = counts.sum()
    expected = n * p
    big = expected >= MIN_EXPECTED
    obs, exp = list(counts[big]), list(expected[big])
    rest_o, rest_e = counts[~big].sum(), expected[~big].sum()
    if rest_e > 0:
        if rest_e >= MIN_EXPECTED or not exp:
            obs.append(rest_o)
            exp.append(rest_e)
        else:
            i = int(np.argmin(exp))
            obs[i] += rest_o
            exp[i] += rest_e
    if len(obs) < 2:
        return 0.0, 1.0, len(obs)
    obs, exp = np.asarray(obs, float), np.asarray(exp, float)
    exp *= obs.sum() / exp.sum()  # guard against the last digits of Σp
    stat, pvalue = stats.chisquare(obs, exp)
    return float(stat), float(pvalue), len(obs)


def run_tubes(target: NGramModel, draft: NGramModel, context: Sequence[int], rounds: int, trials: int,
              rng: np.random.Generator, rule: str = "exact", top: int = 12) -> dict:
    """Fill both tubes for ``rounds`` rounds of ``trials`` trials; totals, samples and p-values."""
    if rounds < 1 or trials < 1:
        raise ValueError("rounds and trials must be at least 1")
    p, q = target.dist(context), draft.dist(context)
    vocab = target.vocab
    plain_all, spec_all, kept_all, per_round = [], [], [], []
    for _ in range(rounds):
        plain = _draw(p, rng.random(trials))
        spec, kept = first_tokens(p, q, trials, rng, rule)
        plain_all.append(plain)
        spec_all.append(spec)
        kept_all.append(kept)
        per_round.append({
            "plain": [vocab[i] for i in plain],
            "speculative": [[vocab[i], bool(k)] for i, k in zip(spec, kept)],
        })
    plain_c = np.bincount(np.concatenate(plain_all), minlength=p.size)
    spec_c = np.bincount(np.concatenate(spec_all), minlength=p.size)
    kept = np.concatenate(kept_all)
    shown = set(np.argsort(-p, kind="stable")[:top]) | set(np.flatnonzero(plain_c)) | set(np.flatnonzero(spec_c))
    shown = sorted(shown, key=lambda i: (-p[i], i))

    def tube(counts):
        stat, pvalue, bins = chi_square(counts, p)
        return {"counts": {vocab[i]: int(counts[i]) for i in np.flatnonzero(counts)},
                "chi2": stat, "bins": bins, "pvalue": pvalue}

    return {
        "context": [vocab[i] if i >= 0 else "<unk>" for i in context],
        "rule": rule,
        "rounds": rounds,
        "trials": trials,
        "p": {vocab[i]: float(p[i]) for i in shown},
        "q": {vocab[i]: float(q[i]) for i in shown},
        "overlap": float(np.minimum(p, q).sum()),
        "plain": tube(plain_c),
        "speculative": {**tube(spec_c), "kept": int(kept.sum()), "put_in": int((~kept).sum())},
        "samples": per_round,
    }
