"""sim.tree.rules: every exact rule keeps the target's distribution (first token and first two
tokens, chi-square over 20,000 passes) and every tempting wrong one breaks it, in contexts chosen
from the data; a chain walks exactly as sim.speculative; a deterministic tree writes 1 + Σ p(path)
tokens per pass; the trace and the engine metrics add up."""
from collections import Counter

import numpy as np
import pytest

from sim.ngram import load_models
from sim.speculative import generate
from sim.tree.fill import Plan, build, eagle2
from sim.tree.rules import (EXACT, NATURAL, RULES, WRONG, engine_metrics, generate_tree, is_exact, tree_step,
                            walk)
from sim.tree.shape import Shape
from sim.tree.tubes import first_tokens, star, tree_tubes_context
from sim.tubes import chi_square
from tests.stats import joint_pvalue

N_DRAWS = 20_000
SIGNIFICANCE = 1e-3
SEED = 2024
LANGS = ("en", "zh")
slow = pytest.mark.slow
# In the fast loop: an exact rule and the subtlest mistake (first token), and an exact rule two
# tokens deep; the whole suite runs every pair (each a few seconds of CPU).
QUICK = {("top", "pointmass"), ("iid", "stale")}
QUICK_TWO = {("iid", "specinfer")}


def models(lang):
    m = load_models(lang)
    target, draft = m["trigram"], m["bigram"]
    # The context where the subtlest mistake shows most (sim.tree.tubes): "it ." (en), "， 说" (zh).
    return target, draft, target.encode(list(tree_tubes_context(lang)))


@pytest.mark.parametrize("lang", LANGS)
def test_contexts_really_disagree(lang):
    target, draft, ctx = models(lang)
    p, q = target.dist(ctx), draft.dist(ctx)
    assert np.maximum(p - q, 0).sum() >= 0.3                  # TV 0.41 (en), 0.38 (zh)
    assert q.max() > p[q.argmax()] + 0.05    # the draft over-proposes its favourite: refusals (.42/.23, .30/.22)


def combos():
    """Every exact (sampling, rule) and every tempting mistake, in both languages; QUICK's in
    English run in the fast loop, the rest are marked slow."""
    out = []
    for lang in LANGS:
        for (s, r) in sorted(EXACT) + list(WRONG):
            quick = lang == "en" and (s, r) in QUICK
            out.append(pytest.param(lang, s, r, marks=() if quick else slow, id=f"{lang}-{s}-{r}"))
    return out


@pytest.mark.parametrize("lang,sampling,rule", combos())
def test_first_token_follows_the_target_iff_the_rule_is_exact(lang, sampling, rule):
    target, draft, ctx = models(lang)
    p = target.dist(ctx)
    x = first_tokens(target, draft, ctx, Plan.fixed(star(8), sampling), rule, N_DRAWS, np.random.default_rng(SEED))
    pvalue = chi_square(np.bincount(x, minlength=p.size), p)[1]
    assert (pvalue > SIGNIFICANCE) == ((sampling, rule) in EXACT), pvalue


def two_token_combos():
    out = []
    for (s, r) in sorted(EXACT) + list(WRONG):
        quick = (s, r) in QUICK_TWO
        out.append(pytest.param(s, r, marks=() if quick else slow, id=f"{s}-{r}"))
    return out


@pytest.mark.parametrize("sampling,rule", two_token_combos())
def test_first_two_tokens_follow_the_targets_joint_distribution(sampling, rule):
    # A tree two levels deep, so the second token is often a kept guess of the first pass and
    # sometimes the first token of the next.
    target, draft, ctx = models("en")
    plan = Plan.fixed(Shape.kary(3, 2, 6), sampling)
    rng = np.random.default_rng(SEED)
    pairs = [tuple(generate_tree(target, draft, ctx, 2, plan, rng, rule=rule).tokens) for _ in range(N_DRAWS)]
    assert (joint_pvalue(target, ctx, pairs) > SIGNIFICANCE) == ((sampling, rule) in EXACT)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("gamma", [1, 2, 4, 8])
def test_a_chain_writes_what_sim_speculative_writes(lang, gamma):
    target, draft, ctx = models(lang)
    for seed in range(3):
        expected = generate(target, draft, ctx, 50, gamma, np.random.default_rng(seed)).tokens
        for sampling in ("iid", "wor"):
            for rule in ("specinfer", "sequoia", "stale"):
                assert is_exact(sampling, rule, chain=True)
                run = generate_tree(target, draft, ctx, 50, Plan.fixed(Shape.chain(gamma), sampling),
                                    np.random.default_rng(seed), rule=rule)
                assert run.tokens == expected, (sampling, rule, seed)
        greedy = generate(target, draft, ctx, 50, gamma, np.random.default_rng(seed), greedy=True).tokens
        run = generate_tree(target, draft, ctx, 50, Plan.fixed(Shape.chain(gamma), "top"),
                            np.random.default_rng(seed), greedy=True)
        assert run.tokens == greedy


def test_a_chain_step_matches_step_for_step():
    target, draft, ctx = models("en")
    from sim.speculative import speculative_step
    for seed in range(30):
        a = speculative_step(target, draft, ctx, 4, np.random.default_rng(seed))
        b = tree_step(target, draft, ctx, Plan.fixed(Shape.chain(4), "iid"), np.random.default_rng(seed))
        assert [t for t, _ in a.written] == [t for t, _, _ in b.written]
        assert [kind for _, kind in a.written] == [kind for _, kind, _ in b.written]
        assert [pr.r for pr in a.proposals] == [c.r for v in b.visits for c in v.checks]


def uniforms_used(step) -> int:
    """How many uniforms a pass should take: one per drawn guess, one per check (one per visited
    node for naive), one for the token it ends with unless the target's own draw was it."""
    tree = step.tree
    drawn = sum(d is not None for d in tree.draws)
    checks = sum(len(v.checks) for v in step.visits)
    naive = sum(v.u is not None for v in step.visits)
    ends = step.visits[-1].final_u is not None
    return drawn + checks + naive + ends


@pytest.mark.parametrize("sampling", ["top", "iid", "wor"])
@pytest.mark.parametrize("rule", RULES)
def test_random_numbers_are_used_as_documented(sampling, rule):
    target, draft, ctx = models("en")
    for seed in range(10):
        rng = np.random.default_rng(seed)
        step = tree_step(target, draft, ctx, Plan.fixed(Shape.kary(3, 2, 9), sampling), rng, rule=rule)
        fresh = np.random.default_rng(seed)
        fresh.random(uniforms_used(step))
        assert rng.random() == fresh.random()


@pytest.mark.parametrize("maker", [lambda d, c: build(d, c, Shape.kary(3, 3, 12), "top"),
                                   lambda d, c: eagle2(d, c, 16, 3, 4)])
@pytest.mark.parametrize("rule", ["pointmass", "naive"])
def test_deterministic_tree_writes_one_plus_the_sum_of_path_probabilities(maker, rule):
    target, draft, ctx = models("en")
    tree = maker(draft, ctx)
    p_path = [1.0]
    for v, u in enumerate(tree.parents, 1):
        p_path.append(p_path[u] * target.sparse(tree.context_of(u))[tree.tokens[v]])
    expected = sum(p_path)              # 1 (the root's own token) + Σ over the guesses
    rng = np.random.default_rng(SEED)
    written = np.array([len(walk(tree, target, rng, rule).written) for _ in range(10_000)])
    se = written.std() / np.sqrt(written.size)
    assert abs(written.mean() - expected) < 5 * se, (written.mean(), expected, se)
    assert expected > 1.3              # the tree is worth checking: guesses are kept


def test_trace_is_consistent():
    target, draft, ctx = models("en")
    rng = np.random.default_rng(9)
    for sampling, rule in [("wor", "sequoia"), ("iid", "specinfer"), ("top", "pointmass"), ("iid", "stale")]:
        for _ in range(100):
            step = tree_step(target, draft, ctx, Plan.fixed(Shape.kary(3, 3, 15), sampling), rng, rule=rule)
            kinds = [kind for _, kind, _ in step.written]
            assert kinds == ["kept"] * (len(kinds) - 1) + [kinds[-1]] and kinds[-1] in ("replaced", "bonus")
            assert (kinds[-1] == "bonus") == (not step.tree.children[step.visits[-1].node])
            assert step.n_accepted == len(step.visits) - 1
            for vis in step.visits:
                for c in vis.checks:
                    assert c.accepted == (c.r < c.num / c.den)
                    if not c.accepted and c.residual is not None:
                        d = c.residual.dense()
                        assert d.sum() == pytest.approx(1.0) and d.min() >= 0.0
                        assert d[c.token] == 0.0          # a refused token is out of the residual
                assert all(not c.accepted for c in vis.checks[:-1])   # only the last may be kept
                if vis.final is not None:
                    assert vis.final.dense().sum() == pytest.approx(1.0)
            js = step.to_json(target.vocab, top=3)
            status = Counter(node["status"] for node in js["tree"]["nodes"][1:])
            assert status["kept"] == step.n_accepted
            assert status["refused"] == sum(not c.accepted for v in step.visits for c in v.checks)


def test_greedy_descends_while_the_child_is_the_targets_argmax():
    target, draft, ctx = models("en")
    step = tree_step(target, draft, ctx, Plan.dynamic(16, 3, 4), np.random.default_rng(0), greedy=True)
    for vis in step.visits:
        assert vis.y == vis.p.argmax()
    assert step.written[-1][0] == step.visits[-1].y
    with pytest.raises(ValueError):
        tree_step(target, draft, ctx, Plan.fixed(Shape.chain(2), "iid"), np.random.default_rng(0), greedy=True)


def test_engine_metrics_by_hand():
    # Three passes of 8 guesses keeping 2, 0 and 3; one pass with no guesses (a plain step).
    m = engine_metrics([(8, 2), (8, 0), (8, 3), (0, 0)])
    assert m["num_drafts"] == 3 and m["num_draft_tokens"] == 24 and m["num_accepted_tokens"] == 5
    assert m["mean_acceptance_length"] == pytest.approx(1 + 5 / 3)
    assert m["acceptance_per_position"] == pytest.approx([2 / 3, 2 / 3, 1 / 3])
    assert m["draft_acceptance_rate"] == pytest.approx(5 / 24)
    assert m["tokens_per_pass"] == pytest.approx((3 + 1 + 4 + 1) / 4)


def test_run_metrics_count_what_the_passes_wrote():
    target, draft, ctx = models("zh")
    run = generate_tree(target, draft, ctx, 100, Plan.fixed(Shape.kary(2, 3, 10), "wor"), np.random.default_rng(1))
    s = run.stats()
    written = sum(len(step.written) for step in run.steps)
    assert len(run.tokens) == 100 <= written
    assert s["mean_acceptance_length"] == pytest.approx(written / len(run.steps))
    assert s["acceptance_per_position"][0] == pytest.approx(np.mean([st.n_accepted > 0 for st in run.steps]))
    js = run.to_json(target.vocab, trace=len(run.steps) - 1)
    assert js["trace"]["pass"] == len(run.steps) - 1 and js["written_per_pass"][-1] == len(run.steps[-1].written)


def test_same_seed_same_run():
    target, draft, ctx = models("en")
    plan = Plan.fixed(Shape.kary(2, 3, 10), "iid")
    a = generate_tree(target, draft, ctx, 60, plan, np.random.default_rng(5)).to_json(target.vocab)
    b = generate_tree(target, draft, ctx, 60, plan, np.random.default_rng(5)).to_json(target.vocab)
    assert a == b


def test_natural_rules_are_exact_and_wrong_ones_are_not():
    assert all((s, r) in EXACT for s, r in NATURAL.items())
    assert not any(combo in EXACT for combo in WRONG)
    assert is_exact("wor", "specinfer", chain=True) and not is_exact("top", "specinfer", chain=True)


def test_bad_arguments_are_refused():
    target, draft, ctx = models("en")
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="rule"):
        tree_step(target, draft, ctx, Plan.fixed(Shape.chain(2), "iid"), rng, rule="nope")
    with pytest.raises(ValueError, match="n_tokens"):
        generate_tree(target, draft, ctx, 0, Plan.fixed(Shape.chain(2), "iid"), rng)
