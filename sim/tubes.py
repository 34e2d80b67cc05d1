"""The tubes: plain sampling from the target against speculative decoding's first token.

From one context, the left tube lets the target p draw the next token itself; the right tube runs
one speculative cycle (the draft q proposes x, kept with probability min(1, p(x)/q(x)), otherwise a
token is put in from the residual) and keeps its first token. Leviathan et al. (2023), Appendix
A.1: P(x) = min(p(x), q(x)) + (1 − Σ min(p, q)) · residual(x) = p(x), so both tubes fill towards p.
A chi-square test of each tube's counts against p says whether the difference is chance.

A test that finds nothing proves nothing unless it had the draws to find something. The wrong rules
have exact first-token distributions (``first_token_dist``), so the chance that Pearson's test
catches one with n draws is computed, not guessed: the statistic then follows a noncentral
chi-square with the bins' degrees of freedom and noncentrality n Σ (r − p)² / p over the same
pooled bins (Cohen 1988, Statistical Power Analysis, ch. 7; Guenther 1977). ``power`` gives it,
``draws_needed`` the draws for a stated power, and ``run_tubes`` says when the draws so far are
too few to tell.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from .ngram import NGramModel
from .speculative import RULES, residual

MIN_EXPECTED = 5.0  # the usual condition for the chi-square approximation to hold
SIGNIFICANCE = 0.05  # below this p-value the page reads "a difference" (static/js/widgets/exact.js)
POWER = 0.9          # the stated chance of catching a wrong rule before a draw count is "enough"
WRONG_RULES = tuple(r for r in RULES if r != "exact")
# The API's cap on rounds (views/api/speculative.py MAX_ROUNDS) and trials: 20 × 200 = 4,000 draws
# per request, about 30 ms of CPU here (bench/cpu.py, "/api/tubes, caps"). 4,000 is enough: the
# hardest wrong rule to catch on the plate's contexts (resample-target with the bigram draft on the
# Chinese context, where it moves only 7 % of the mass) needs about 930 draws for 90 % power at
# p < 0.05 (tests/test_tubes.py), so the cap leaves a factor of four and more rounds would only
# cost time.
ROUNDS_MAX = 20
TRIALS_MAX = 200
# A proposed start for the `exact` section: 5 rounds of 200 = 1,000 draws catch both wrong rules with 90 %
# power on both languages' contexts with the bigram or unigram draft (the hardest needs 931), where
# the plate's single round of 50 catches resample-target 17 % of the time in English, 8 % in
# Chinese (so "no sign of a difference" was the likely reading).
DEFAULT_ROUNDS = 5
DEFAULT_TRIALS = 200


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


def first_token_dist(p: np.ndarray, q: np.ndarray, rule: str = "exact") -> np.ndarray:
    """The exact distribution of a speculative cycle's first token under ``rule``.

    exact: min(p, q) + (1 − Σ min(p, q)) · residual = p (Leviathan et al., Appendix A.1);
    resample-target: min(p, q) + (1 − Σ min(p, q)) · p, which favours what the draft favoured;
    keep-draft: q, whatever p says."""
    if rule not in RULES:
        raise ValueError(f"rule must be one of {', '.join(RULES)}")
    if rule == "keep-draft":
        return q.copy()
    kept = np.minimum(p, q)
    refused = 1.0 - kept.sum()
    return kept + refused * (residual(p, q) if rule == "exact" else p)


def bin_labels(expected: np.ndarray) -> tuple[np.ndarray, int]:
    """The chi-square bins for these expected counts, as a bin number per token (−1: left out, a
    token of probability 0 in an all-zero pool) and the number of bins: every token expected 5
    times or more alone, the rest pooled into one bin (joined to the smallest bin if the pool
    itself stays under 5)."""
    big = expected >= MIN_EXPECTED
    nb = int(big.sum())
    labels = np.full(expected.size, -1, dtype=np.int64)
    labels[big] = np.arange(nb)
    rest = ~big
    rest_e = float(expected[rest].sum())
    if rest.any() and rest_e > 0:
        if rest_e >= MIN_EXPECTED or nb == 0:
            labels[rest] = nb
            nb += 1
        else:
            labels[rest] = labels[int(np.argmin(np.where(big, expected, np.inf)))]
    return labels, nb


def _binned(x: np.ndarray, labels: np.ndarray, nb: int) -> np.ndarray:
    on = labels >= 0
    return np.bincount(labels[on], weights=x[on], minlength=nb)


def chi_square(counts: np.ndarray, p: np.ndarray) -> tuple[float, float, int]:
    """Chi-square goodness of fit of token counts against p: (statistic, p-value, bins).

    Tokens whose expected count is below 5 are pooled (``bin_labels``), so the approximation
    is valid."""
    n = counts.sum()
    labels, nb = bin_labels(n * p)
    if nb < 2:
        return 0.0, 1.0, nb
    obs = _binned(counts.astype(float), labels, nb)
    exp = _binned(p, labels, nb) * n
    exp *= obs.sum() / exp.sum()  # guard against the last digits of Σp
    from scipy import stats   # here: half a second of imports, which a check of γ need not pay
    stat, pvalue = stats.chisquare(obs, exp)
    return float(stat), float(pvalue), nb


def power(p: np.ndarray, r: np.ndarray, n: int, significance: float = SIGNIFICANCE) -> float:
    """The chance that chi_square on n draws from r finds p < ``significance`` against p.

    Under r the statistic is noncentral chi-square with bins − 1 degrees of freedom and
    noncentrality n Σ_bins (r_b − p_b)² / p_b, the bins pooled as chi_square pools them."""
    if n < 1:
        return 0.0
    labels, nb = bin_labels(n * p)
    if nb < 2:
        return 0.0
    pb, rb = _binned(p, labels, nb), _binned(r, labels, nb)
    df = nb - 1
    lam = n * float(((rb - pb) ** 2 / pb).sum())
    from scipy import stats
    return float(stats.ncx2.sf(stats.chi2.isf(significance, df), df, lam))


def draws_needed(p: np.ndarray, r: np.ndarray, target: float = POWER,
                 significance: float = SIGNIFICANCE, n_max: int = 10 ** 7) -> int | None:
    """The fewest draws at which the test catches r with chance ``target``; None when it cannot
    within n_max draws (r is p, or nearly). The pooling changes with n, so the power is not
    exactly monotone in n; the search doubles then halves, and the answer is the first n found."""
    lo, hi = 0, 1
    while power(p, r, hi, significance) < target:
        lo, hi = hi, hi * 2
        if hi > n_max:
            return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if power(p, r, mid, significance) >= target:
            hi = mid
        else:
            lo = mid
    return hi


def power_report(p: np.ndarray, q: np.ndarray, draws: int, trials: int) -> dict:
    """For a page: how likely the draws so far (``draws``) were to catch each wrong rule, how many
    draws (and rounds of ``trials``) catching it with POWER takes, and ``too_few`` when a wrong
    rule would still slip through more often than 1 − POWER (then "no sign of a difference"
    means nothing yet). A wrong rule whose distribution is p itself (the draft is the target)
    cannot be caught by any number of draws: ``detectable`` is False and it does not count."""
    rules, worst = {}, 0
    for rule in WRONG_RULES:
        r = first_token_dist(p, q, rule)
        tv = 0.5 * float(np.abs(r - p).sum())
        need = draws_needed(p, r) if tv > 1e-9 else None
        rules[rule] = {"power": power(p, r, draws) if need else None, "draws_needed": need,
                       "rounds_needed": -(-need // trials) if need else None,
                       "total_variation": tv, "detectable": need is not None}
        if need:
            worst = max(worst, need)
    return {"significance": SIGNIFICANCE, "target": POWER, "draws": draws, "rules": rules,
            "too_few": any(v["detectable"] and v["power"] < POWER for v in rules.values()),
            "draws_needed": worst or None, "rounds_needed": -(-worst // trials) if worst else None}


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
        # Whether these draws could have caught the wrong rules at all (and how many would).
        "power": power_report(p, q, rounds * trials, trials),
    }
