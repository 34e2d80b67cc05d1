"""sim.theory: the formulas at hand-checked points and their limits."""
import pytest

from sim import theory


def test_expected_tokens_at_the_plates_alpha():
    # (1 − 0.631^5) / (1 − 0.631) = (1 − 0.100287) / 0.369 = 2.4383
    assert theory.expected_tokens(0.631, 4) == pytest.approx((1 - 0.631 ** 5) / 0.369, rel=1e-12)
    assert round(theory.expected_tokens(0.631, 4), 2) == 2.44


def test_limits_are_exact():
    assert theory.expected_tokens(1.0, 7) == 8.0
    assert theory.expected_tokens(0.0, 7) == 1.0
    assert theory.expected_tokens(1 - 1e-12, 3) == pytest.approx(4.0)
    assert theory.speedup(0.0, 4, 0.1) == pytest.approx(1 / 1.4)


def test_best_gamma_for_the_bench():
    # α = 0.631, c = 0.1: γ = 3 gives 2.0636 / 1.3 = 1.587... no: (1 − 0.631^4)/0.369/1.3 = 1.754
    gamma, s = theory.best_gamma(0.631, 0.1)
    assert gamma == 3 and round(s, 2) == 1.75


def test_break_even_alpha_solves_speedup_equals_one():
    for gamma, c in [(1, 0.56), (4, 0.56), (4, 0.1), (8, 0.05)]:
        a = theory.break_even_alpha(gamma, c)
        assert theory.speedup(a, gamma, c) == pytest.approx(1.0, abs=1e-12)
    # γ = 1, c = 0.56: 1 + α = 1.56, so α = 0.56 exactly.
    assert theory.break_even_alpha(1, 0.56) == pytest.approx(0.56)
    assert theory.break_even_alpha(4, 0.0) == 0.0
    assert theory.break_even_alpha(4, 1.5) is None  # a draft slower than the target never pays


def test_leviathans_extra_arithmetic():
    # α = 0.6, γ = 2: E = 1 + 0.6 + 0.36 = 1.96 tokens for 3 positions: 3 / 1.96 = 1.53 (+53 %),
    # and, leaving the draft out (c = 0), 1.96× the speed (+96 %).
    assert round(theory.extra_arithmetic(0.6, 2), 2) == 1.53
    assert theory.speedup(0.6, 2, 0.0) == pytest.approx(1.96)


@pytest.mark.parametrize("alpha", [-0.1, 1.1, float("nan")])
def test_bad_alpha_is_refused(alpha):
    with pytest.raises(ValueError, match="alpha"):
        theory.expected_tokens(alpha, 3)


# --- the best γ at the edges of the search ------------------------------------------------------------

def test_best_gamma_inside_the_search_has_no_edge():
    # (1 − 0.631^4) / 0.369 / 1.3 = 0.84147 / 0.369 / 1.3 = 1.7542 at γ = 3; γ = 4 gives 2.4383 / 1.4 = 1.7421.
    assert theory.best_gamma_edge(0.631, 0.1) == {"gamma": 3, "speedup": pytest.approx(1.7542, abs=1e-4),
                                                  "edge": None}


@pytest.mark.parametrize("alpha, c", [(0.6, 0.0), (0.99, 0.1), (1.0, 0.5)])
def test_still_rising_at_the_end_of_the_search(alpha, c):
    # c = 0: S = E(γ), which grows with every γ. α = 0.99, c = 0.1: S(16) = 15.71/2.6 = 6.04 and
    # S(17) = 16.54/2.7 = 6.13. α = 1: S = (γ + 1)/(γc + 1), rising while c < 1.
    b = theory.best_gamma_edge(alpha, c)
    assert b["gamma"] == 16 and b["edge"] == "rising"
    assert theory.speedup(alpha, 17, c) > b["speedup"] == pytest.approx(theory.speedup(alpha, 16, c))
    # A shorter search says so at its own end.
    assert theory.best_gamma_edge(alpha, c, gamma_max=8)["edge"] == "rising"


@pytest.mark.parametrize("alpha, c", [(0.6, 1.0), (0.02, 0.1), (0.0, 0.1), (1.0, 1.0)])
def test_plain_decoding_when_no_gamma_pays(alpha, c):
    # c = 1, α < 1: S(γ) = E(γ)/(γ + 1) < 1 for every γ (S(1) = 1.6/2 = 0.8 at α = 0.6).
    # α = 0.02, c = 0.1: S(1) = 1.02/1.1 = 0.93. α = 1, c = 1: S = 1 exactly: a tie goes to plain.
    b = theory.best_gamma_edge(alpha, c)
    assert b["gamma"] == 0 and b["edge"] == "plain" and b["speedup"] == 1.0
    assert b["best_speculative"]["speedup"] <= 1.0
    assert b["best_speculative"]["gamma"] == theory.best_gamma(alpha, c)[0]


def test_summary_carries_the_edge():
    assert theory.summary(0.6, 4, 1.0)["best"]["edge"] == "plain"
    assert theory.summary(0.6, 4, 0.0)["best"]["edge"] == "rising"


def test_formula_check_against_a_runs_scatter():
    # γ = 1; one pass keeps nothing (writes 1), one keeps its guess (writes 2): mean 1.5,
    # sample sd = 0.7071, se = 0.7071 / √2 = 0.5, margin = 2 × 0.5 = 1.0.
    chk = theory.formula_check(0.5, 1, [1, 1])
    assert chk["counted"] == 1.5 and chk["se"] == pytest.approx(0.5) and chk["margin"] == pytest.approx(1.0)
    assert chk["formula"] == 1.5 and chk["agree"]
    # Four passes all writing γ + 1 = 3 (hist [0, 0, 4]): no scatter at all; α = 1 agrees exactly,
    # α = 0.5 (formula 1.75) does not.
    assert theory.formula_check(1.0, 2, [0, 0, 4])["agree"] and theory.formula_check(1.0, 2, [0, 0, 4])["margin"] == 0
    assert theory.formula_check(0.5, 2, [0, 0, 4])["agree"] is False
    # One pass: no scatter to compare with, so no verdict.
    assert theory.formula_check(0.5, 2, [0, 1, 0])["agree"] is None
