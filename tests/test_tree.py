"""sim.tree: shapes filled from the drafts (top, independent, without replacement), EAGLE-2's
dynamic tree, and the helper that removes tokens from a distribution."""
import numpy as np
import pytest

from sim.ngram import load_models
from sim.speculative import speculative_step
from sim.tree.fill import Plan, build, eagle2, plan, without
from sim.tree.shape import Shape


@pytest.fixture(scope="module")
def en():
    m = load_models("en")
    return m["trigram"], m["bigram"], m["trigram"].encode([",", "when"])


def test_without_removes_and_renormalises(en):
    target, draft, ctx = en
    q = draft.sparse(ctx)
    on_list = int(q.idx[0])
    off_list = next(int(w) for w in np.argsort(-q.dense()) if not q.sup.has(int(w)))
    for xs in ([on_list], [off_list], [on_list, off_list]):
        r = without(q, xs)
        dense = q.dense().copy()
        dense[xs] = 0.0
        dense /= dense.sum()
        assert r.dense().sum() == pytest.approx(1.0)
        assert np.abs(r.dense() - dense).max() < 1e-15
        assert all(r[x] == 0.0 for x in xs)
    # Sampling never returns a removed token
    r = without(q, [q.argmax()])
    assert q.argmax() not in {r.sample(u) for u in np.linspace(0, 1, 5000, endpoint=False)}


def test_top_fills_with_the_likeliest_tokens(en):
    target, draft, ctx = en
    tree = build(draft, ctx, Shape.kary(3, 2, 12), "top")
    for v in range(tree.n + 1):
        kids = tree.children[v]
        if kids:
            q = draft.sparse(tree.context_of(v))
            assert [tree.tokens[c] for c in kids] == [x for x, _ in q.top(len(kids))]
            assert all(tree.q[c] == tree.q_draft[c] == q[tree.tokens[c]] for c in kids)
    assert tree.draws == [None] * 13


def test_without_replacement_never_repeats_and_records_the_renormalised_q(en):
    target, draft, ctx = en
    rng = np.random.default_rng(0)
    repeats_iid = 0
    for _ in range(200):
        wor = build(draft, ctx, Shape.kary(8, 1, 8), "wor", rng)
        toks = wor.tokens[1:]
        assert len(set(toks)) == 8
        q = draft.sparse(ctx)
        taken = 0.0
        for c, x in enumerate(toks, 1):
            # child c was drawn from q without the c − 1 before it: q(x) / (1 − their mass)
            assert wor.q[c] == pytest.approx(q[x] / (1.0 - taken))
            assert wor.q_draft[c] == q[x]
            taken += q[x]
        iid = build(draft, ctx, Shape.kary(8, 1, 8), "iid", rng)
        repeats_iid += len(set(iid.tokens[1:])) < 8
    assert repeats_iid > 50      # q(“she”) ≈ 0.2 here: eight independent draws repeat often


def test_iid_chain_draws_what_speculative_step_draws(en):
    target, draft, ctx = en
    for seed in range(20):
        tree = build(draft, ctx, Shape.chain(4), "iid", np.random.default_rng(seed))
        step = speculative_step(target, draft, ctx, 4, np.random.default_rng(seed))
        assert tree.tokens[1:] == step.guesses


def brute_eagle2(draft, ctx, n, k, d):
    """EAGLE-2 written the long way: every level's k best by value, all candidates, the n best."""
    cands = []                                   # (value, depth, order, path)
    level = [(1.0, ())]
    for depth in range(1, d + 1):
        made = []
        for value, path in level:
            for x, qx in draft.sparse(list(ctx) + list(path)).top(k):
                made.append((value * qx, path + (x,)))
        cands += [(v, depth, len(cands) + i, p) for i, (v, p) in enumerate(made)]
        level = sorted(made, key=lambda vp: -vp[0])[:k]
    kept = sorted(cands, key=lambda c: (-c[0], c[1], c[2]))[:n]
    return sorted(c[3] for c in kept)


@pytest.mark.parametrize("n,k,d", [(1, 1, 1), (8, 2, 3), (20, 4, 4), (64, 4, 8), (64, 8, 2)])
def test_eagle2_matches_a_direct_construction(en, n, k, d):
    target, draft, ctx = en
    tree = eagle2(draft, ctx, n, k, d)
    assert tree.n == min(n, k + (d - 1) * k * k)
    assert sorted(tuple(tree.path_tokens(v)) for v in range(1, tree.n + 1)) == brute_eagle2(draft, ctx, n, k, d)
    assert tree.shape.depth <= d
    for v, u in enumerate(tree.parents, 1):
        assert tree.path_q(v) <= tree.path_q(u) if u else True   # values fall along every path
        assert tree.q[v] == draft.sparse(tree.context_of(u))[tree.tokens[v]]


def test_plans(en):
    target, draft, ctx = en
    assert plan("sequences", 10, 3, 1, "iid").shape == Shape.sequences(3, 3)
    assert plan("best", 3, 2, 3, "wor", P=[0, 0.9, 0.05]).shape.parents == (0, 1, 2)   # 1 + .9 + .81 + .729
    assert Plan.dynamic(8, 2, 3).build(draft, ctx, None).construction == "eagle2"
    for bad in (lambda: plan("dynamic", 8, 2, 3, "wor"), lambda: plan("best", 8, 2, 3, "top"),
                lambda: plan("ring", 8, 2, 3, "top"), lambda: plan("sequences", 2, 3, 1, "iid"),
                lambda: Plan("top"), lambda: Plan("bad", shape=Shape.chain(2)),
                lambda: build(draft, ctx, Shape.chain(2), "iid")):
        with pytest.raises(ValueError):
            bad()


def test_tree_json_has_every_node_and_the_mask(en):
    target, draft, ctx = en
    tree = build(draft, ctx, Shape.kary(2, 2, 6), "wor", np.random.default_rng(3))
    js = tree.to_json(target.vocab)
    assert [node["id"] for node in js["nodes"]] == list(range(7))
    assert js["nodes"][0]["token"] is None and js["nodes"][3]["parent"] == 1
    assert js["mask"][3] == [1, 1, 0, 1, 0, 0, 0]
    assert all(0 < node["q"] <= 1 and node["draw"] is not None for node in js["nodes"][1:])
