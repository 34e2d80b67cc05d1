"""sim.tree.budget: tokens per pass by node budget, measured on the data, checked against trees
built and summed directly."""
import numpy as np
import pytest

from sim.ngram import load_models
from sim.theory import expected_tokens
from sim.tree.fill import build, eagle2
from sim.tree.budget import (CONTEXTS, EVAL_SEED, FIT_SEED, acceptance_vector, budget_table, contexts, measure,
                             sequoia_acceptance)
from sim.tree.shape import Shape, best_shape


@pytest.fixture(scope="module")
def small():
    """A small measurement (8 positions, budgets up to 12) to check against direct sums."""
    m = load_models("en")
    target, draft = m["trigram"], m["bigram"]
    ctxs = contexts(target, "en", 8, EVAL_SEED)
    fit = contexts(target, "en", 8, FIT_SEED)
    return target, draft, ctxs, fit, measure(target, draft, ctxs, fit, k=3, d=4, n_max=12)


def direct(target, tree):
    """1 + Σ_v p(path to v) for one tree, the long way."""
    p_path = [1.0]
    for v, u in enumerate(tree.parents, 1):
        p_path.append(p_path[u] * target.sparse(tree.context_of(u))[tree.tokens[v]])
    return sum(p_path)


def test_contexts_are_a_plain_run():
    m = load_models("en")
    target = m["trigram"]
    a = contexts(target, "en", 5, 0)
    assert a == contexts(target, "en", 5, 0) and a != contexts(target, "en", 5, 1)
    # ", when" then the run: the context grows to the 8 tokens a trace keeps; consecutive positions
    assert [len(c) for c in a] == [2, 3, 4, 5, 6]
    assert all(a[i + 1][-2] == a[i][-1] for i in range(4))


def test_measured_tokens_equal_trees_built_directly(small):
    target, draft, ctxs, fit, table = small
    for n in (1, 5, 12):
        chain = np.mean([direct(target, build(draft, c, Shape.chain(n), "top")) for c in ctxs])
        kary = np.mean([direct(target, build(draft, c, Shape.kary(3, 4, n), "top")) for c in ctxs])
        dyn = np.mean([direct(target, eagle2(draft, c, n, 3, 4)) for c in ctxs])
        shape = best_shape(table["acceptance"], n, 4)[0]
        best = np.mean([direct(target, build(draft, c, shape, "top")) for c in ctxs])
        assert table["greedy_chain"]["tokens"][n - 1] == pytest.approx(chain)
        assert table["topk"]["tokens"][n - 1] == pytest.approx(kary)
        assert table["dynamic"]["tokens"][n - 1] == pytest.approx(dyn)
        assert table["best"]["tokens"][n - 1] == pytest.approx(best)
        assert table["best"]["parents"][n - 1] == list(shape.parents)
    assert table["chain"]["tokens"][3] == pytest.approx(expected_tokens(table["alpha"], 4))


def test_more_budget_never_writes_less(small):
    *_, table = small
    for method in ("chain", "greedy_chain", "topk", "dynamic", "sequoia"):
        t = table[method]["tokens"]
        assert all(a <= b + 1e-12 for a, b in zip(t, t[1:])), method
    assert all(1.0 <= x for x in table["best"]["tokens"])


def test_acceptance_vectors():
    m = load_models("en")
    target, draft = m["trigram"], m["bigram"]
    ctxs = contexts(target, "en", 6, FIT_SEED)
    P = acceptance_vector(target, draft, ctxs, 5)
    assert P[0] == 0 and 0 < sum(P) <= 1.0
    # P[1] by hand: the mean of p(arg-max q)
    assert P[1] == pytest.approx(np.mean([target.sparse(c)[draft.sparse(c).argmax()] for c in ctxs]))
    S = sequoia_acceptance(target, draft, ctxs, np.random.default_rng(0), b=4, reps=20)
    assert S[0] == 0 and sum(S) <= 1.0 + 1e-12 and S[1] > P[1]   # sampling beats the arg-max here


def test_the_table_is_cached_and_seeded():
    a = budget_table("zh", "bigram", 2, 3, 16, 8)
    assert budget_table("zh", "bigram", 2, 3, 16, 8) is a
    assert a["n"] == list(range(1, 17)) and a["contexts"] == 8 and CONTEXTS >= 8
    assert a["topk"]["depth"][-1] <= 3 and max(a["best"]["depth"]) <= 3
    with pytest.raises(ValueError):
        budget_table("zh", "fourgram")


def test_acceptance_is_measured_once_per_language_and_draft():
    from sim.tree.budget import acceptance, fit_acceptance
    m = load_models("en")
    target, draft = m["trigram"], m["unigram"]
    a = acceptance("en", "unigram", 8)
    assert acceptance("en", "unigram", 8) is a
    fit = contexts(target, "en", 8, FIT_SEED)
    # Measured on the fitting positions, but for α (and P[1], the same chance) the pair's own
    # figure (sim.pair), so the chain here is every other section's chain.
    from sim import pair
    own = fit_acceptance(target, draft, fit)
    assert a["acceptance"] == own["acceptance"] and a["alpha"] == pair.alpha("en", "unigram")
    assert a["sequoia_acceptance"] == [own["sequoia_acceptance"][0], a["alpha"], *own["sequoia_acceptance"][2:]]
    # A table measured from the positions equals one given the acceptance measured beforehand.
    ctxs = contexts(target, "en", 8, EVAL_SEED)
    assert measure(target, draft, ctxs, fit, 2, 3, 10) == measure(target, draft, ctxs, own, 2, 3, 10)
    assert budget_table("en", "unigram", 2, 3, 10, 8)["sequoia_acceptance"] == a["sequoia_acceptance"]
    with pytest.raises(ValueError):
        acceptance("en", "fourgram")
