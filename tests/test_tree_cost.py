"""sim.tree.cost: Sequoia's speed-up on the roofline; a chain costs what sim.roofline says; trees
are nearly free at batch 1 and stop paying in large batches."""
import pytest

from sim import roofline
from sim.tree.budget import budget_table
from sim.tree.cost import BATCHES, batch_scan, curves, pass_cost, speedup, verify_ratios

GPU, MODEL = "h100-sxm", "llama-3.1-8b"


@pytest.fixture(scope="module")
def table():
    return budget_table("en", "bigram", 4, 8)


def test_a_chain_costs_what_roofline_speculative_says(table):
    alpha = table["alpha"]
    # (512 streams of 1,024 tokens would not fit an H100's memory; 256 do: 34 GB of cache.)
    for batch in (1, 64, 256):
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


def test_capacity_ends_the_curves_and_the_scan(table):
    from sim.tree.cost import n_fit
    # Llama 3.1 8B on an H100, by hand: 80e9 B of memory, 16.06e9 of weights (8.03e9 × 2 B), so
    # 63.94e9 B of room; a cached token is 32 layers × 8 heads × 128 × 2 (K, V) × 2 B = 131,072 B,
    # a 4,096-token stream 536.9e6 B: 119 streams fit (63.89e9 B) and 120 do not. At 119 streams
    # the ~53e6 B left hold 3 more tokens each; at 118, ~589e6 B hold 38 more each.
    assert roofline.max_batch(GPU, MODEL, 4096) == 119
    assert n_fit(GPU, MODEL, 119, 4096) == 3 and n_fit(GPU, MODEL, 118, 4096) == 38
    assert n_fit(GPU, MODEL, 117, 4096) == 64 and n_fit(GPU, MODEL, 120, 4096) == -1
    scan = batch_scan(table, GPU, MODEL, 4096, 0.05)
    assert [r["batch"] for r in scan["rows"]] == [b for b in BATCHES if b <= 119]
    assert scan["stops_fitting_batch"] == 128 and scan["max_batch"] == 119
    # At 118 streams only budgets up to 38 fit: the speed-ups end there, the best is among them.
    cu = curves(table, GPU, MODEL, 118, 4096, 0.05)
    assert cu["fits"] and cu["n_fit"] == 38
    for m in cu["methods"].values():
        assert all(s is not None for s in m["speedup"][:38]) and all(s is None for s in m["speedup"][38:])
        assert m["best_n"] <= 38
    # The 70B model's weights alone (141 GB) do not fit one H100: no speed-up, no verdict.
    big = curves(table, GPU, "llama-3.1-70b", 1, 0, 0.05)
    assert not big["fits"] and big["n_fit"] == -1 and big["best_tree"] is None
    assert all(s is None for m in big["methods"].values() for s in m["speedup"])
    assert batch_scan(table, GPU, "llama-3.1-70b", 0, 0.05)["rows"] == []
