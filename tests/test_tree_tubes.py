"""sim.tree.tubes: the exact distribution of the renormalisation mistake, the context it picks,
and the tubes' totals."""
import numpy as np
import pytest

from sim.ngram import load_models
from sim.tree.fill import Plan, build
from sim.tree.rules import EXACT, check_children
from sim.tree.shape import Shape
from sim.tree.tubes import renorm_mistake, run_tree_tubes, star, star_first_tokens, tree_tubes_context
from sim.tubes import chi_square


def test_renorm_mistake_is_a_distribution_and_matches_sampling():
    # A toy vocabulary of five tokens where the draft favours a token the target does not: the
    # closed form against 100,000 simulated checks.
    p = np.array([0.1, 0.3, 0.3, 0.2, 0.1])
    q = np.array([0.6, 0.15, 0.1, 0.1, 0.05])
    P = renorm_mistake(p, q)
    assert P.sum() == pytest.approx(1.0) and P.min() >= 0
    assert np.abs(P - p).sum() == pytest.approx(0.15)     # it is a mistake: 0.3375, 0.225, … not p
    rng = np.random.default_rng(0)
    n = 200_000

    def draw(cdf, u):                                     # inverse of a cumulative sum, row-wise
        return (u[:, None] >= cdf).sum(axis=1).clip(max=4)

    x1 = draw(np.cumsum(q)[None, :], rng.random(n))
    rest = np.tile(q, (5, 1))
    np.fill_diagonal(rest, 0)                             # q without x1, renormalised, per x1
    x2 = draw(np.cumsum(rest / rest.sum(1, keepdims=True), axis=1)[x1], rng.random(n))
    R1 = np.maximum(p - q, 0) / np.maximum(p - q, 0).sum()
    R2 = np.maximum(R1 - q, 0) / np.maximum(R1 - q, 0).sum()
    keep1 = rng.random(n) < p[x1] / q[x1]                 # SpecInfer's check, q never renormalised
    keep2 = rng.random(n) < R1[x2] / q[x2]
    y = np.where(keep1, x1, np.where(keep2, x2, draw(np.cumsum(R2)[None, :], rng.random(n))))
    out = np.bincount(y, minlength=5).astype(float)
    se = np.sqrt(P * (1 - P) / n)
    assert np.all(np.abs(out / n - P) < 5 * se)


def test_renorm_mistake_matches_the_tree_code_on_the_models():
    # The same mistake run through sim.tree.rules with two children drawn without replacement.
    m = load_models("en")
    target, draft = m["trigram"], m["bigram"]
    ctx = target.encode(list(tree_tubes_context("en")))
    p, q = target.dist(ctx), draft.dist(ctx)
    P = renorm_mistake(p, q)
    rng = np.random.default_rng(1)
    n = 20_000
    got = np.zeros(target.V)
    ps, qs = target.sparse(ctx), draft.sparse(ctx)
    for _ in range(n):
        tree = build(draft, ctx, Shape.kary(2, 1, 2), "wor", rng)
        kept, final = check_children(((c, tree.tokens[c]) for c in (1, 2)), ps, qs, rng, "specinfer")
        got[tree.tokens[kept] if kept is not None else final.sample(rng.random())] += 1
    top = np.argsort(-P)[:10]
    se = np.sqrt(P[top] * (1 - P[top]) / n)
    assert np.all(np.abs(got[top] / n - P[top]) < 5 * se)


def test_the_contexts_are_chosen_from_the_data():
    # "it ." (en) and "， 说" (zh): frequent, with a word, where the mistake is largest
    assert tree_tubes_context("en") == ("it", ".")
    assert tree_tubes_context("zh") == ("，", "说")


def test_tubes_totals_and_reproducibility():
    m = load_models("en")
    target, draft = m["trigram"], m["bigram"]
    ctx = target.encode(list(tree_tubes_context("en")))
    plan = Plan.fixed(star(4), "iid")
    a = run_tree_tubes(target, draft, ctx, plan, "sequoia", 3, 40, np.random.default_rng(1))
    b = run_tree_tubes(target, draft, ctx, plan, "sequoia", 3, 40, np.random.default_rng(1))
    assert a == b
    assert a["exact"] is False and a["rule"] == "sequoia"
    assert sum(a["plain"]["counts"].values()) == sum(a["tree"]["counts"].values()) == 120
    assert len(a["samples"]) == 3 and all(len(r["tree"]) == 40 for r in a["samples"])
    # Kept guesses and tokens the target put in add up to the passes, round by round.
    assert a["tree"]["kept"] + a["tree"]["put_in"] == 120
    assert a["tree"]["kept"] == sum(sum(r["kept"]) for r in a["samples"]) and 0 < a["tree"]["kept"] < 120
    assert run_tree_tubes(target, draft, ctx, Plan.fixed(star(1), "wor"), "stale", 1, 5,
                          np.random.default_rng(1))["exact"] is True      # one guess: Leviathan's rule
    with pytest.raises(ValueError):
        run_tree_tubes(target, draft, ctx, plan, "sequoia", 0, 40, np.random.default_rng(1))
    with pytest.raises(ValueError):       # the tubes check a star
        run_tree_tubes(target, draft, ctx, Plan.fixed(Shape.chain(3), "wor"), "stale", 1, 5,
                       np.random.default_rng(1))


@pytest.mark.parametrize("sampling,rule", [
    ("top", "pointmass"), ("iid", "specinfer"), pytest.param("wor", "sequoia", marks=pytest.mark.slow),
    ("top", "specinfer"), pytest.param("wor", "specinfer", marks=pytest.mark.slow), ("iid", "sequoia"),
    ("iid", "stale")])
def test_the_tubes_fast_path_keeps_exact_rules_exact_and_wrong_ones_wrong(sampling, rule):
    # The tubes draw a star's children only as the checks reach them: the same first-token
    # distribution as the whole pass (tests/test_tree_rules.py holds the whole pass to it).
    m = load_models("en")
    target, draft = m["trigram"], m["bigram"]
    ctx = target.encode(list(tree_tubes_context("en")))
    p = target.dist(ctx)
    x = star_first_tokens(target, draft, ctx, 8, sampling, rule, 20_000, np.random.default_rng(2024))
    pvalue = chi_square(np.bincount(x, minlength=p.size), p)[1]
    assert (pvalue > 1e-3) == ((sampling, rule) in EXACT), pvalue


@pytest.mark.parametrize("sampling,rule", [("top", "pointmass"), ("wor", "sequoia"), ("iid", "naive")])
def test_kept_says_whether_the_first_token_was_a_guess(sampling, rule):
    # Asking whether each first token was a kept guess changes nothing else for the checking
    # rules (same uniforms, same tokens); a kept token is always one of the star's children.
    m = load_models("en")
    target, draft = m["trigram"], m["bigram"]
    ctx = target.encode(list(tree_tubes_context("en")))
    x, kept = star_first_tokens(target, draft, ctx, 3, sampling, rule, 300, np.random.default_rng(5),
                                return_kept=True)
    if rule != "naive":
        assert (x == star_first_tokens(target, draft, ctx, 3, sampling, rule, 300,
                                       np.random.default_rng(5))).all()
    if sampling == "top":
        top = {t for t, _ in draft.sparse(ctx).top(3)}
        assert all(int(t) in top for t in x[kept]) and not any(int(t) in top for t in x[~kept])
    assert 0 < kept.sum() < 300
