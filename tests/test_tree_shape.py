"""sim.tree.shape: the fixed shapes, the attention mask, Sequoia's expected tokens and its dynamic
programme against brute force."""
import numpy as np
import pytest

from sim.tree.shape import (N_MAX, Shape, all_shapes, attention_mask, best_curve, best_shape, best_shapes,
                            brute_force, expected_tokens, programme)


def test_fixed_shapes():
    assert Shape.chain(3).parents == (0, 1, 2)
    assert Shape.chain(3).depth == 3 and Shape.chain(0).n == 0
    # Binary tree filled breadth first, cut at 5 nodes: root → 1, 2; 1 → 3, 4; 2 → 5.
    t = Shape.kary(2, 3, 5)
    assert t.parents == (0, 0, 1, 1, 2)
    assert t.children[0] == (1, 2) and t.children[2] == (5,)
    assert t.ranks == (0, 1, 2, 1, 2, 1) and t.depths == (0, 1, 1, 2, 2, 2)
    assert Shape.kary(3, 1, 64).n == 3              # depth 1 holds only the root's 3 children
    assert Shape.kary(2, 2, 64).n == 6
    # Two sequences of three, level by level: 1, 2 at depth 1; 3 after 1, 4 after 2; 5, 6.
    assert Shape.sequences(2, 3).parents == (0, 0, 1, 2, 3, 4)
    # SpecInfer's ⟨2, 2, 1⟩ (its Figure 3): 2 + 4 + 4 nodes, four leaves.
    e = Shape.expansion([2, 2, 1])
    assert e.n == 10 and e.depth == 3 and sum(1 for kids in e.children if not kids) == 4
    assert e.path(7) == [1, 3, 7]


@pytest.mark.parametrize("bad", [lambda: Shape((1,)), lambda: Shape((0, 2)), lambda: Shape.chain(N_MAX + 1),
                                 lambda: Shape.kary(0, 2, 4), lambda: Shape.sequences(8, 9),
                                 lambda: Shape.kary(2, 2, True)])
def test_bad_shapes_are_refused(bad):
    with pytest.raises(ValueError):
        bad()


def test_attention_mask():
    # Root 0 → 1, 2; 1 → 3. Each row sees itself and its ancestors only.
    m = attention_mask((0, 0, 1)).astype(int)
    assert m.tolist() == [[1, 0, 0, 0],
                          [1, 1, 0, 0],
                          [1, 0, 1, 0],
                          [1, 1, 0, 1]]
    chain = attention_mask(Shape.chain(5).parents)
    assert (chain == np.tril(np.ones((6, 6), dtype=bool))).all()   # a chain's mask is causal


def test_expected_tokens_by_hand():
    P = [0, 0.5, 0.2]
    # Root (1) + child 1 (0.5) + child 2 (0.2) + child 1 of child 1 (0.25) = 1.95
    assert expected_tokens(Shape((0, 0, 1)), P) == pytest.approx(1.95)
    # A chain: 1 + α + α² (Leviathan's sum) with α = P[1]
    assert expected_tokens(Shape.chain(2), P) == pytest.approx(1.75)
    # A third child beyond P counts 0
    assert expected_tokens(Shape((0, 0, 0)), P) == pytest.approx(1.7)


def test_all_shapes_counts_ordered_trees():
    # Ordered trees with m nodes: Catalan(m − 1) = 1, 1, 2, 5, 14, 42
    assert [sum(1 for _ in all_shapes(m, 99, 99)) for m in range(1, 7)] == [1, 1, 2, 5, 14, 42]
    # Depth ≤ 2 levels (a star): one tree per size
    assert [sum(1 for _ in all_shapes(m, 2, 99)) for m in range(1, 6)] == [1, 1, 1, 1, 1]


ACCEPTANCE = [
    [0, 0.6, 0.2, 0.1, 0.05],
    [0, 0.9, 0.05, 0.03],
    [0, 0.3, 0.3, 0.3, 0.05],
    [0, 0.7, 0.0, 0.2],             # a zero: the programme must not count a node it cannot use
    [0, 0.229, 0.157, 0.063, 0.058, 0.029],   # measured on the English bigram draft (tree_budget)
]


@pytest.mark.parametrize("P", ACCEPTANCE)
def test_programme_equals_brute_force(P):
    for n in range(0, 10):
        for d in range(1, 6):
            shape, F = best_shape(P, n, d)
            assert F == pytest.approx(brute_force(P, n, d), abs=1e-12), (n, d)
            # ... and the tree it rebuilds has that value, within the budget and the depth
            assert expected_tokens(shape, P) == pytest.approx(F, abs=1e-12)
            assert shape.n <= n and (shape.n == 0 or shape.depth <= d)


def test_programme_shapes_and_curve_agree():
    P = ACCEPTANCE[0]
    shapes = best_shapes(P, 20, 4)
    curve = best_curve(P, 20, 4)
    assert curve[0] == 1.0
    for n, s in enumerate(shapes, 1):
        assert expected_tokens(s, P) == pytest.approx(curve[n])
        assert expected_tokens(s, P) == pytest.approx(best_shape(P, n, 4)[1])
    assert all(a <= b + 1e-12 for a, b in zip(curve, curve[1:]))        # more budget never hurts
    # With a high first-child rate and depth to spare, the best small tree is a chain
    assert best_shape([0, 0.95, 0.01], 4, 8)[0].parents == (0, 1, 2, 3)


def test_programme_table_is_read_only_and_bounded():
    prog = programme(ACCEPTANCE[0], 8, 3)
    with pytest.raises(ValueError):
        prog.best[1, 1] = 0.0
    with pytest.raises(ValueError):
        prog.tree(9, 1)          # nine nodes cannot fit in the root's level alone
    with pytest.raises(ValueError):
        programme([0, 1.5], 4, 2)
