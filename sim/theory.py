"""What a guess is worth, on paper.

Leviathan, Kalman, Matias (2023), arXiv:2211.17192: with acceptance rate α, assumed the same at every
position, a cycle with γ guesses writes on average (Eq. 1)

    E[tokens] = (1 − α^(γ+1)) / (1 − α)                      (γ + 1 at α = 1)

and, if one draft run costs c times one target run, a cycle costs γc + 1 target runs, so the
speed-up over plain decoding is (Theorem 3.8)

    S(α, γ, c) = (1 − α^(γ+1)) / ((1 − α)(γc + 1)).

A run's counted tokens per pass scatter around their own mean; ``formula_check`` says whether Eq. 1
with the run's α lies within that scatter (two standard errors of the mean over the run's passes),
so a page blames the formula's assumption only when the gap is larger than chance.

The target's arithmetic per written token grows by the factor (Theorem 3.11, with the draft's own
arithmetic left out) (γ + 1) / E[tokens]. The break-even α solves S = 1.
"""
from __future__ import annotations

import math

from sim.param import float_, int_, spec

GAMMA_MAX = 16

# The library's checks: any size the arithmetic takes (the page and the API narrow them,
# sim/params.py). A ParamError is a ValueError naming the parameter and its range.
CHECKS = spec(float_("alpha", 0, 1, None), int_("gamma", 0, None, None), float_("c", 0, None, None),
              int_("gamma_max", 1, None, GAMMA_MAX))


def _check(alpha: float, gamma: int | None = None, c: float | None = None) -> None:
    CHECKS["alpha"].check(alpha)
    if gamma is not None:
        CHECKS["gamma"].check(gamma)
    if c is not None:
        CHECKS["c"].check(c)


def expected_tokens(alpha: float, gamma: int) -> float:
    """Mean tokens written per target pass; the sum 1 + α + … + α^γ, exact at α = 0 and α = 1."""
    _check(alpha, gamma)
    return _expected(alpha, gamma)


# Unchecked forms for the searches below, which call them many times with arguments already
# checked once (a bisection is about 55 calls, and the checks were most of an answer's time).
def _expected(alpha: float, gamma: int) -> float:
    if alpha == 1.0:
        return float(gamma + 1)
    # The closed form loses digits as α → 1; the finite sum does not and γ is small.
    return float(sum(alpha ** k for k in range(gamma + 1)))


def _speedup(alpha: float, gamma: int, c: float) -> float:
    return _expected(alpha, gamma) / (gamma * c + 1.0)


def speedup(alpha: float, gamma: int, c: float) -> float:
    """Tokens per unit time with speculation over plain decoding."""
    _check(alpha, gamma, c)
    return _speedup(alpha, gamma, c)


def best_gamma(alpha: float, c: float, gamma_max: int = GAMMA_MAX) -> tuple[int, float]:
    """The γ in 1..gamma_max with the largest speed-up (the smallest such γ on a tie)."""
    _check(alpha, None, c)
    CHECKS["gamma_max"].check(gamma_max)
    best = max(range(1, gamma_max + 1), key=lambda g: (_speedup(alpha, g, c), -g))
    return best, _speedup(alpha, best, c)


def best_gamma_edge(alpha: float, c: float, gamma_max: int = GAMMA_MAX) -> dict:
    """The best γ, saying when the answer is only the edge of the search.

    {"gamma", "speedup", "edge"}: edge is None for a true maximum inside 1..gamma_max; "rising" when
    the best is gamma_max and S(gamma_max + 1) is larger still (c = 0, or α near 1: the curve has
    not turned, so "best γ 16" would only be where the search stopped); "plain" when no γ ≥ 1 beats
    plain decoding (S ≤ 1, e.g. c = 1 or α ≈ 0): then gamma is 0 and speedup 1.0, and
    "best_speculative" keeps the best γ ≥ 1 and its (losing) speed-up. S(γ) = E(γ)/(γc + 1) rises
    then falls (a concave E over a line), so one look past the end decides "rising"."""
    g, s = best_gamma(alpha, c, gamma_max)
    return search_edge(g, s, gamma_max, speedup(alpha, gamma_max + 1, c))


def search_edge(g: int, s: float, gamma_max: int, s_next: float) -> dict:
    """Shared by sim.roofline.best_gamma_edge: classify the best γ of a search over 1..gamma_max."""
    if s <= 1.0:  # a tie with plain decoding goes to plain decoding: nothing to draft
        return {"gamma": 0, "speedup": 1.0, "edge": "plain",
                "best_speculative": {"gamma": g, "speedup": s}}
    if g == gamma_max and s_next > s:
        return {"gamma": g, "speedup": s, "edge": "rising"}
    return {"gamma": g, "speedup": s, "edge": None}


def break_even_alpha(gamma: int, c: float) -> float | None:
    """The α at which speculation is exactly as fast as plain decoding (S = 1).

    S grows with α from 1/(γc + 1) at α = 0 to (γ + 1)/(γc + 1) at α = 1, so a root exists iff
    c ≤ 1 (c = 0: it is α = 0). None when no α pays (c > 1)."""
    _check(0.0, gamma, c)
    if gamma < 1:
        raise ValueError("gamma must be at least 1")
    target = gamma * c + 1.0
    if target > gamma + 1.0:
        return None
    if c == 0.0:
        return 0.0
    lo, hi = 0.0, 1.0
    for _ in range(100):  # bisection to machine precision
        mid = (lo + hi) / 2
        if mid == lo or mid == hi:
            break     # lo and hi are neighbouring floats: more halving changes neither
        if _expected(mid, gamma) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def extra_arithmetic(alpha: float, gamma: int) -> float:
    """Factor by which the target's arithmetic per written token grows (draft left out).

    Each cycle computes γ + 1 positions and keeps E[tokens] of them: α = 0.6, γ = 2 gives
    3 / 1.96 = 1.53, i.e. +53 % arithmetic for a 1.96× (+96 %) speed-up at c = 0."""
    return (gamma + 1) / expected_tokens(alpha, gamma)


def summary(alpha: float, gamma: int, c: float, gamma_max: int = GAMMA_MAX) -> dict:
    """Every number above for one (α, γ, c): what the CLI prints and the page's `speedup` section shows."""
    best = best_gamma_edge(alpha, c, gamma_max)
    return {
        "alpha": alpha, "gamma": gamma, "c": c,
        "expected_tokens": expected_tokens(alpha, gamma),
        "speedup": speedup(alpha, gamma, c),
        # One answer: where no γ ≥ 1 pays, the best is plain decoding (γ 0, 1.0×), in both forms.
        "best_gamma": best["gamma"], "best_speedup": best["speedup"],
        # The same with the search's edges named: {"gamma", "speedup", "edge": None|"rising"|"plain"}.
        "best": best,
        "break_even_alpha": break_even_alpha(gamma, c),
        "extra_arithmetic": extra_arithmetic(alpha, gamma),
    }


# Two standard errors: a gap within it is what a run of that many passes scatters by (about 95 %).
AGREE_Z = 2.0


def formula_check(alpha: float, gamma: int, accepted_hist) -> dict:
    """Eq. 1 against a run's count. ``accepted_hist[k]`` is the number of passes that kept k of their
    γ guesses; such a pass writes k + 1 tokens (the kept guesses and the target's own token).

    {"formula", "counted", "se", "margin", "agree"}: counted is the mean tokens per pass, se its
    standard error (sample standard deviation over √passes), margin AGREE_Z · se, and agree whether
    |counted − formula| ≤ margin (None with fewer than two passes, where there is no scatter to
    compare with). Example: γ = 1, one pass keeping nothing and one keeping its guess (hist [1, 1])
    writes 1 and 2 tokens: counted 1.5, se = 0.707 / √2 = 0.5, margin 1.0."""
    formula = expected_tokens(alpha, gamma)
    hist = list(accepted_hist)
    passes = sum(hist)
    if passes == 0:
        return {"formula": formula, "counted": None, "se": None, "margin": None, "agree": None}
    counted = sum((k + 1) * n for k, n in enumerate(hist)) / passes
    if passes < 2:
        return {"formula": formula, "counted": counted, "se": None, "margin": None, "agree": None}
    var = sum(n * (k + 1 - counted) ** 2 for k, n in enumerate(hist)) / (passes - 1)
    se = math.sqrt(var / passes)
    margin = AGREE_Z * se
    return {"formula": formula, "counted": counted, "se": se, "margin": margin,
            "agree": abs(counted - formula) <= margin + 1e-12}


def speedup_curve(alpha: float, c: float, gamma_max: int = GAMMA_MAX) -> list[dict]:
    return [{"gamma": g, "expected_tokens": expected_tokens(alpha, g), "speedup": speedup(alpha, g, c)}
            for g in range(1, gamma_max + 1)]


def break_even_map(gammas, cs) -> list[list[float | None]]:
    """break_even_alpha over a grid: row i is c = cs[i], column j is γ = gammas[j] (the layout of a
    heat map with γ across and c up). None where no α pays (c > 1)."""
    return [[break_even_alpha(int(g), float(c)) for g in gammas] for c in cs]
