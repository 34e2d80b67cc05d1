"""sim.tree_cost: Sequoia's speed-up on the roofline; a chain costs what sim.roofline says; trees
are nearly free at batch 1 and stop paying in large batches."""
import pytest

from sim import roofline
from sim.tree_budget import budget_table
from sim.tree_cost import BATCHES, batch_scan, curves, pass_cost, speedup, verify_ratios

GPU, MODEL = "h100-sxm", "llama-3.1-8b"


@pytest.fixture(scope="module")
def table():
    return budget_table("en", "bigram", 4, 8)


def test_a_chain_costs_what_roofline_speculative_says(table):
    alpha = table["alpha"]
    for batch in (1, 64, 512):
        cu = curves(table, GPU, MODEL, batch, 1024, 0.05)
        for gamma in (1, 4, 8):
            expected = roofline.speculative(GPU, MODEL, batch, 1024, gamma, alpha, 0.05)["speedup"]
            assert cu["methods"]["chain"]["speedup"][gamma - 1] == pytest.approx(expected, rel=1e-12)


def test_verification_is_nearly_free_at_batch_one_and_not_in_a_batch():
    # H100 BF16: ridge ≈ 295 operations per byte, one position does 1 per weight byte, so 65
    # positions at batch 1 still only read the weights; at batch 256 each one costs arithmetic.
    assert verify_ratios(GPU, MODEL, 1, 0, 64)[64] == pytest.approx(1.0)
    r = verify_ratios(GPU, MODEL, 256, 0, 8)
    assert r[8] > 5 and all(a <= b for a, b in zip(r, r[1:]))
    cost = pass_cost(GPU, MODEL, 1, 0, 8, 3, 0.1)
    assert cost["cost"] == pytest.approx(cost["t_ratio"] + 0.3)
    assert speedup(2.0, GPU, MODEL, 1, 0, 8, 3, 0.1) == pytest.approx(2.0 / cost["cost"])


def test_best_tree_beats_best_chain_alone_and_stops_paying_in_a_batch(table):
    one = curves(table, GPU, MODEL, 1, 0, 0.05)
    assert one["tree_beats_chain"] and one["best_tree"]["n"] > one["best_chain"]["n"]
    scan = batch_scan(table, GPU, MODEL, 0, 0.05)
    assert [r["batch"] for r in scan["rows"]] == list(BATCHES)
    stop = scan["trees_stop_paying_batch"]
    assert stop is not None and 1 < stop <= 1024
    for r in scan["rows"]:
        assert r["tree_beats_chain"] == (r["batch"] < stop)
    # the best tree shrinks as the batch grows
    sizes = [r["best_tree"]["n"] for r in scan["rows"]]
    assert all(a >= b for a, b in zip(sizes, sizes[1:]))
    assert scan["speculation_stops_paying_batch"] is None or scan["speculation_stops_paying_batch"] >= stop


def test_bad_arguments(table):
    with pytest.raises(ValueError, match="c"):
        curves(table, GPU, MODEL, 1, 0, -0.1)
    with pytest.raises(ValueError, match="n"):
        pass_cost(GPU, MODEL, 1, 0, 65, 3, 0.1)
    with pytest.raises(ValueError, match="gpu"):
        curves(table, "tpu", MODEL, 1, 0, 0.1)
