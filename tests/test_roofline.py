"""Tests for sim/roofline.py.

The seed plate's figures are reproduced from the presets alone; each expected
value is worked out by hand in the comment next to it.
"""

import argparse
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from sim import roofline as r
from sim.params import CTX_MAX

H100 = r.GPUS["h100-sxm"]
L8B = r.MODELS["llama-3.1-8b"]
REPO = Path(__file__).resolve().parent.parent


# --- presets ---------------------------------------------------------------

def test_presets_present_and_sourced():
    for key in ("h100-sxm", "a100-sxm-80gb", "h200"):
        assert key in r.GPUS
    assert len(r.GPUS) >= 4
    for key in ("llama-3.1-8b", "llama-3.1-70b"):
        assert key in r.MODELS
    assert any(m.params < 2e9 for m in r.MODELS.values())     # a draft-sized model
    for g in r.GPUS.values():
        assert g.source and g.label and g.bandwidth > 1e12 and g.peak_flops > 1e14
    for m in r.MODELS.values():
        assert m.source and m.label


def test_h100_is_dense_not_sparse():
    # The datasheet's 1,979 TFLOPS BF16 is with 2:4 sparsity; dense is half.
    assert H100.peak_flops == pytest.approx(1979e12 / 2)
    assert H100.bandwidth == 3.35e12


def test_presets_are_frozen():
    with pytest.raises(Exception):
        H100.bandwidth = 1.0


def _llama_params(vocab, d, layers, heads, kv_heads, head_dim, ffn, tied):
    # Embedding (+ separate output head unless tied), per layer: q, k, v, o
    # projections, three MLP matrices, two RMSNorm vectors; one final norm.
    per_layer = (d * heads * head_dim + 2 * d * kv_heads * head_dim
                 + heads * head_dim * d + 3 * d * ffn + 2 * d)
    return vocab * d * (1 if tied else 2) + layers * per_layer + d


@pytest.mark.parametrize("key, shape", [
    ("llama-3.1-8b", dict(vocab=128256, d=4096, layers=32, heads=32, kv_heads=8,
                          head_dim=128, ffn=14336, tied=False)),
    ("llama-3.1-70b", dict(vocab=128256, d=8192, layers=80, heads=64, kv_heads=8,
                           head_dim=128, ffn=28672, tied=False)),
    ("llama-3.2-1b", dict(vocab=128256, d=2048, layers=16, heads=32, kv_heads=8,
                          head_dim=64, ffn=8192, tied=True)),
])
def test_parameter_counts_follow_from_the_architecture(key, shape):
    # The quoted counts (e.g. 8,030,261,248) must be what the published shapes give.
    m = r.MODELS[key]
    assert _llama_params(**shape) == m.params
    assert (m.layers, m.kv_heads, m.head_dim) == (shape["layers"], shape["kv_heads"],
                                                  shape["head_dim"])


# --- the seed plate's single stream ------------------------------------------

def test_single_stream_figures():
    s = r.decode_step(H100, L8B)
    # 8,030,261,248 params x 2 bytes = 16,060,522,496 B ~ 16 GB
    assert s["weight_bytes"] == 16_060_522_496
    assert round(s["weight_bytes"] / 1e9) == 16
    # 16.06e9 B / 3.35e12 B/s = 4.794 ms  -> "4.8 ms"
    assert round(s["ms_per_step"], 1) == 4.8
    # 1 / 4.794 ms = 208.6 tokens/s  -> "about 209"
    assert round(s["tokens_per_s"]) == 209
    # 2 x 8.03e9 = 16.06e9 ops ("about 16 billion"); / 989.5e12 = 0.0162 ms (< 0.02 ms)
    assert round(s["flops"] / 1e9) == 16
    assert s["t_compute_s"] < 0.02e-3
    # 0.01623 / 4.794 = 0.339 % busy, 99.66 % idle -> "0.3 %" and "99.7 %"
    assert round(100 * s["arithmetic_busy"], 1) == 0.3
    assert round(100 * (1 - s["arithmetic_busy"]), 1) == 99.7
    assert s["bound"] == "memory"
    assert s["intensity_ops_per_byte"] == pytest.approx(1.0)   # 2 ops / 2 bytes


def test_ridge_point():
    # 989.5e12 / 3.35e12 = 295.37 ops/byte -> "about 295"
    s = r.decode_step(H100, L8B)
    assert round(s["ridge_ops_per_byte"]) == 295


# --- batch ------------------------------------------------------------------

def test_batch_64_weights_only():
    s = r.decode_step(H100, L8B, batch=64, context=0)
    # Same 16 GB read; 64 tokens / 4.794 ms = 13,349.5 -> "about 13,350"
    assert s["bytes_per_step"] == 16_060_522_496
    assert round(s["tokens_per_s"], -1) == 13_350
    # 64 x 0.339 % = 21.7 % -> "22 %"
    assert round(100 * s["arithmetic_busy"]) == 22
    assert s["tokens_per_s"] == pytest.approx(64 * r.decode_step(H100, L8B)["tokens_per_s"])


def test_kv_cache_per_token():
    # 2 (K and V) x 32 layers x 8 heads x 128 x 2 bytes = 131,072 B -> "131 KB"
    assert r.kv_bytes_per_token(L8B) == 131_072
    assert round(r.kv_bytes_per_token(L8B) / 1e3) == 131
    # 70B: 2 x 80 x 8 x 128 x 2 = 327,680 B; 1B: 2 x 16 x 8 x 64 x 2 = 32,768 B
    assert r.kv_bytes_per_token("llama-3.1-70b") == 327_680
    assert r.kv_bytes_per_token("llama-3.2-1b") == 32_768


def test_batch_64_with_4096_cache():
    s = r.decode_step(H100, L8B, batch=64, context=4096)
    # 64 x 4,096 x 131,072 = 34,359,738,368 B -> "about 34 GB"
    assert s["kv_bytes"] == 34_359_738_368
    assert round(s["kv_bytes"] / 1e9) == 34
    # 16.06 + 34.36 = 50.42 GB -> "about 50 GB per step"
    assert round(s["bytes_per_step"] / 1e9) == 50
    # 50.42e9 / 3.35e12 = 15.05 ms; 64 / 15.05 ms = 4,252 -> "about 4,250"
    assert round(s["tokens_per_s"], -1) == 4_250
    assert s["bound"] == "memory"


# --- lanes ------------------------------------------------------------------

def test_nine_lanes():
    ln = r.lanes(H100, L8B, 9)
    # 9 x 0.339 % = 3.05 % -> "about 3 %"
    assert round(100 * ln["arithmetic_busy"]) == 3
    # one lane does 2 ops per 2-byte weight = 1 op/byte, so 295.37 lanes reach the ridge
    assert round(ln["lanes_to_keep_up"]) == 295
    assert ln["lanes_to_keep_up_whole"] == 296
    assert r.lanes(H100, L8B, 295)["arithmetic_busy"] < 1.0
    assert r.lanes(H100, L8B, 296)["arithmetic_busy"] == 1.0


def test_lanes_equal_batch_without_cache():
    # Guesses checked in one pass cost the same as streams when there is no cache.
    for n in (1, 9, 300):
        a = r.decode_step(H100, L8B, batch=1, positions=n)
        b = r.decode_step(H100, L8B, batch=n, positions=1)
        assert a["ms_per_step"] == pytest.approx(b["ms_per_step"])


# --- limits ------------------------------------------------------------------

def test_huge_batch_is_compute_bound():
    s = r.decode_step(H100, L8B, batch=100_000, context=0)
    assert s["bound"] == "compute"
    assert s["arithmetic_busy"] == 1.0
    # tokens/s saturates at peak / (2 x params) = 989.5e12 / 16.06e9 = 61,611
    assert s["tokens_per_s"] == pytest.approx(H100.peak_flops / (2 * L8B.params))


def test_batch_at_ridge_switches_bound():
    # Weights only: compute-bound once batch > ridge (295.37).
    assert r.decode_step(H100, L8B, batch=295)["bound"] == "memory"
    assert r.decode_step(H100, L8B, batch=296)["bound"] == "compute"


def test_zero_context_reads_no_cache():
    s = r.decode_step(H100, L8B, batch=64, context=0)
    assert s["kv_bytes"] == 0
    assert s["bytes_per_step"] == s["weight_bytes"]


def test_long_context_stays_memory_bound():
    # Per stream, 4,096 cached tokens cost 537 MB of reading but only 16 GFLOP of
    # arithmetic (30 ops/byte < 295): no batch size makes it compute-bound.
    for b in (1, 64, 1024, 100_000):
        assert r.decode_step(H100, L8B, batch=b, context=4096)["bound"] == "memory"


@settings(max_examples=60, deadline=None)
@given(batch=st.integers(1, 5000), context=st.integers(0, 131072),
       gpu=st.sampled_from(sorted(r.GPUS)), model=st.sampled_from(sorted(r.MODELS)))
def test_step_invariants(batch, context, gpu, model):
    s = r.decode_step(gpu, model, batch, context)
    assert 0 < s["arithmetic_busy"] <= 1 and 0 < s["memory_busy"] <= 1
    assert max(s["arithmetic_busy"], s["memory_busy"]) == 1.0
    assert s["ms_per_step"] / 1e3 == pytest.approx(max(s["t_memory_s"], s["t_compute_s"]))
    # More streams never make a step faster, nor fewer tokens per second (equal on
    # the compute-bound plateau, up to rounding in the last bit).
    s2 = r.decode_step(gpu, model, batch + 1, context)
    assert s2["ms_per_step"] >= s["ms_per_step"]
    assert s2["tokens_per_s"] >= s["tokens_per_s"] * (1 - 1e-12)


# --- speculation ---------------------------------------------------------

def test_expected_tokens():
    # (1 - 0.6^3) / 0.4 = 0.784 / 0.4 = 1.96
    assert r.expected_tokens(0.6, 2) == pytest.approx(1.96)
    assert r.expected_tokens(1.0, 4) == 5.0
    assert r.expected_tokens(0.0, 4) == 1.0


def test_leviathan_extra_arithmetic():
    # alpha = 0.6, gamma = 2: a pass works out 3 positions and writes 1.96 tokens:
    # 3 / 1.96 = 1.531 -> "+53 % arithmetic"; speed 1.96x -> "+96 %" (draft left out, c = 0)
    assert round(100 * (r.extra_arithmetic(0.6, 2) - 1)) == 53
    s = r.speculative(H100, L8B, batch=1, context=0, gamma=2, alpha=0.6, c=0.0)
    assert round(100 * (s["speedup"] - 1)) == 96
    assert s["extra_arithmetic"] == pytest.approx(3 / 1.96)


def test_speculative_single_stream():
    # gamma 4, alpha 0.8: E = (1 - 0.8^5) / 0.2 = 3.3616; verify pass still memory
    # bound (5 lanes << 295), so the cycle = 4 x 0.1 x 4.794 + 4.794 = 1.4 x 4.794 ms;
    # speed-up = 3.3616 / 1.4 = 2.4011
    s = r.speculative(H100, L8B, 1, 0, gamma=4, alpha=0.8, c=0.1)
    assert s["expected_tokens"] == pytest.approx(3.3616)
    assert s["ms_per_cycle"] == pytest.approx(1.4 * 4.794185819701493)
    assert s["speedup"] == pytest.approx(3.3616 / 1.4)
    assert s["tokens_per_s_spec"] == pytest.approx(s["speedup"] * s["tokens_per_s_plain"])


def test_speculation_stops_paying_as_batch_grows_without_cache():
    # Same settings: the verify pass becomes compute-bound at batch > 295.37/5 = 59.07,
    # then t_verify/t_plain = 5B/295.37; speed-up <= 1 once that exceeds
    # E - gamma c = 3.3616 - 0.4 = 2.9616, i.e. B >= 2.9616 x 59.07 = 174.96 -> 175.
    b = r.breakeven_batch(H100, L8B, 0, gamma=4, alpha=0.8, c=0.1)
    assert b == 175
    assert r.speculative(H100, L8B, 174, 0, 4, 0.8, 0.1)["speedup"] > 1
    assert r.speculative(H100, L8B, 175, 0, 4, 0.8, 0.1)["speedup"] <= 1
    # At a huge batch both passes are compute bound: 3.3616 / (0.4 + 5) = 0.6225
    assert r.speculative(H100, L8B, 10**6, 0, 4, 0.8, 0.1)["speedup"] == pytest.approx(
        3.3616 / 5.4)


def test_long_context_keeps_speculation_paying():
    # With 4,096 cached tokens per stream, reading stays the bottleneck at every batch,
    # so the speed-up never drops below E / (1 + gamma c) = 3.3616 / 1.4.
    assert r.breakeven_batch(H100, L8B, 4096, gamma=4, alpha=0.8, c=0.1) is None
    s = r.speculative(H100, L8B, 1024, 4096, 4, 0.8, 0.1)
    assert s["speedup"] == pytest.approx(3.3616 / 1.4)
    # The same batch without the cache is far past break-even.
    assert r.speculative(H100, L8B, 1024, 0, 4, 0.8, 0.1)["speedup"] < 1


def test_breakeven_when_speculation_never_pays():
    # alpha = 0: E = 1 token per cycle, and drafting costs extra: never pays.
    assert r.breakeven_batch(H100, L8B, 0, gamma=4, alpha=0.0, c=0.1) == 1


@settings(max_examples=40, deadline=None)
@given(context=st.sampled_from([0, 512, 2048]), gamma=st.integers(1, 8),
       alpha=st.floats(0.3, 0.95), c=st.floats(0.0, 0.3))
def test_breakeven_is_the_first_batch_that_does_not_pay(context, gamma, alpha, c):
    b = r.breakeven_batch(H100, L8B, context, gamma, alpha, c)
    if b is None:
        assert r.speculative(H100, L8B, 10**7, context, gamma, alpha, c)["speedup"] > 1
    else:
        assert r.speculative(H100, L8B, b, context, gamma, alpha, c)["speedup"] <= 1
        if b > 1:
            assert r.speculative(H100, L8B, b - 1, context, gamma, alpha, c)["speedup"] > 1


def test_best_gamma():
    # Single stream, c = 0.1, alpha = 0.8: speed-up E(g) / (1 + 0.1 g) by hand:
    # g=5: 3.6893/1.5 = 2.4595; g=6: 3.9514/1.6 = 2.4696; g=7: 4.1611/1.7 = 2.4477
    g, s = r.best_gamma(H100, L8B, 1, 0, alpha=0.8, c=0.1)
    assert g == 6
    assert s == pytest.approx((1 - 0.8 ** 7) / 0.2 / 1.6)
    # With a big batch and no cache, the best gamma is small and may not pay at all.
    g2, s2 = r.best_gamma(H100, L8B, 1024, 0, alpha=0.8, c=0.1)
    assert g2 < g and s2 < 1


def test_batch_curve():
    rows = r.batch_curve(H100, L8B, 4096, [1, 64, 256], gamma=4, alpha=0.8, c=0.1)
    assert [row["batch"] for row in rows] == [1, 64, 256]
    assert rows[1]["tokens_per_s"] == pytest.approx(
        r.decode_step(H100, L8B, 64, 4096)["tokens_per_s"])
    assert all("speedup" in row for row in rows)
    plain = r.batch_curve(H100, L8B, 0, np.array([1, 2]))   # numpy ints accepted
    assert "speedup" not in plain[0]
    with pytest.raises(ValueError, match="together"):
        r.batch_curve(H100, L8B, 0, [1], gamma=4)


# --- validation ------------------------------------------------------------

@pytest.mark.parametrize("call, name", [
    (lambda: r.decode_step("h999", L8B), "gpu"),
    (lambda: r.decode_step(H100, "gpt-9"), "model"),
    (lambda: r.decode_step(H100, L8B, batch=0), "batch"),
    (lambda: r.decode_step(H100, L8B, batch=1.5), "batch"),
    (lambda: r.decode_step(H100, L8B, batch=True), "batch"),
    (lambda: r.decode_step(H100, L8B, context=-1), "context"),
    (lambda: r.decode_step(H100, L8B, positions=0), "positions"),
    (lambda: r.lanes(H100, L8B, 0), "n"),
    (lambda: r.speculative(H100, L8B, 1, 0, 0, 0.5, 0.1), "gamma"),
    (lambda: r.speculative(H100, L8B, 1, 0, 4, 1.5, 0.1), "alpha"),
    (lambda: r.speculative(H100, L8B, 1, 0, 4, float("nan"), 0.1), "alpha"),
    (lambda: r.speculative(H100, L8B, 1, 0, 4, 0.5, -0.1), "c"),
])
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=rf"^{name} must be"):
        call()


def test_expected_tokens_agrees_with_closed_form():
    # (1 - a^(g+1)) / (1 - a), the paper's form, for a grid away from a = 1.
    for a in (0.0, 0.1, 0.5, 0.6, 0.9, 0.99):
        for g in range(0, 9):
            assert r.expected_tokens(a, g) == pytest.approx((1 - a ** (g + 1)) / (1 - a))


def test_best_gamma_edge_on_the_gpu():
    # One stream, no cache, c = 0: every extra guess is free, so the speed-up still rises at 16.
    b = r.best_gamma_edge(H100, L8B, 1, 0, alpha=0.8, c=0.0)
    assert b["gamma"] == 16 and b["edge"] == "rising"
    # The interior optimum of test_best_gamma (γ = 6 at α 0.8, c 0.1) has no edge.
    b = r.best_gamma_edge(H100, L8B, 1, 0, alpha=0.8, c=0.1)
    assert (b["gamma"], b["edge"]) == (6, None)
    # 1,024 streams without cache: every γ loses (best_gamma gave a speed-up < 1): plain decoding.
    b = r.best_gamma_edge(H100, L8B, 1024, 0, alpha=0.8, c=0.1)
    assert b["gamma"] == 0 and b["edge"] == "plain" and b["best_speculative"]["speedup"] < 1


# --- memory capacity (issue 12) ------------------------------------------------------

def test_every_gpu_has_its_memory_with_its_source():
    # Datasheet figures, read as decimal GB (sim.roofline.MEMORY_UNIT).
    expected_gb = {"h100-sxm": 80, "a100-sxm-80gb": 80, "h200": 141, "b200": 180, "mi300x": 192}
    assert set(expected_gb) == set(r.GPUS)
    for key, gb in expected_gb.items():
        g = r.GPUS[key]
        assert g.memory == gb * 1e9
        assert f"{gb}GB" in g.source.replace(" GB", "GB")   # the source names the figure used
    assert "10^9" in r.MEMORY_UNIT


def test_70b_does_not_fit_one_h100():
    # 70,553,706,496 params x 2 B = 141.1 GB > 80 GB: it needs 2 GPUs (141.1 / 80 = 1.76).
    f = r.fits(H100, "llama-3.1-70b")
    assert not f["fits"] and f["need_bytes"] == 141_107_412_992
    assert r.decode_step(H100, "llama-3.1-70b")["fits"] is False
    assert r.gpus_needed(H100, "llama-3.1-70b") == 2 and r.tp_degree(H100, "llama-3.1-70b") == 2
    # Split over two, both halves fit and the step takes half the time (bandwidths add up).
    two = r.decode_step(H100, "llama-3.1-70b", gpus=2)
    assert two["fits"] and two["ms_per_step"] == pytest.approx(
        r.decode_step(H100, "llama-3.1-70b")["ms_per_step"] / 2)
    # One H200 (141 GB) holds 141.0 GB of room against 141.1 GB: still two.
    assert r.gpus_needed("h200", "llama-3.1-70b") == 2
    # An MI300X (192 GB) holds it alone, with 50.9 GB left for caches.
    assert r.fits("mi300x", "llama-3.1-70b")["fits"]
    assert "evenly" in r.TENSOR_PARALLEL_ASSUMES and "communication" in r.TENSOR_PARALLEL_ASSUMES


def test_max_batch_at_4096_tokens_is_119_streams_of_the_8b_on_an_h100():
    # (80e9 − 16,060,522,496) / (131,072 × 4,096) = 63,939,477,504 / 536,870,912 = 119.1
    assert r.max_batch(H100, L8B, 4096) == 119
    assert r.fits(H100, L8B, 119, 4096)["fits"] and not r.fits(H100, L8B, 120, 4096)["fits"]
    # The seed plate's 1,024 streams of 4,096 tokens need 16.06 + 549.8 GB: 8 GPUs.
    assert r.gpus_needed(H100, L8B, 1024, 4096) == 8
    # No cache: memory sets no limit in this model.
    assert r.max_batch(H100, L8B, 0) is None
    # The 70B's weights alone do not fit one H100: not one stream.
    assert r.max_batch(H100, "llama-3.1-70b", 4096) == 0
    assert r.max_batch(H100, "llama-3.1-70b", 4096, gpus=2) == (160e9 - 141_107_412_992) // (327_680 * 4096)


def test_max_context_at_a_batch():
    # 64 streams: 63,939,477,504 / (64 × 131,072) = 7,622.0 tokens each.
    assert r.max_context(H100, L8B, 64) == 7622
    assert r.fits(H100, L8B, 64, 7622)["fits"] and not r.fits(H100, L8B, 64, 7623)["fits"]
    # One stream holds 487,819 tokens of cache: more than Llama 3.1's 131,072-token window.
    assert r.max_context(H100, L8B, 1) == 487_819 > CTX_MAX
    assert r.max_context(H100, "llama-3.1-70b", 1) is None


def test_tensor_parallel_degree_divides_the_kv_heads():
    # 1,024 × 131,072 tokens × 131,072 B = 17,592 GB of cache: 221 H100s, far past 8 KV heads.
    assert r.gpus_needed(H100, L8B, 1024, 131072) == 221
    assert r.tp_degree(H100, L8B, 1024, 131072) is None
    # 3 GPUs' worth becomes a split over 4.
    need3 = (r.weight_bytes(L8B) + 2 * 80e9) // (4096 * r.kv_bytes_per_token(L8B))
    assert r.gpus_needed(H100, L8B, int(need3), 4096) == 3 and r.tp_degree(H100, L8B, int(need3), 4096) == 4


def test_batch_curve_rows_say_where_streams_stop_fitting():
    rows = r.batch_curve(H100, L8B, 4096, [64, 96, 119, 120, 128, 1024], gamma=4, alpha=0.6, c=0.1)
    assert [row["fits"] for row in rows] == [True, True, True, False, False, False]


# --- engine efficiency ----------------------------------------------------------------

def test_efficiency_is_off_by_default_and_scales_speed_not_speedups():
    base = r.decode_step(H100, L8B)
    assert base["efficiency"] == 1.0 and round(base["tokens_per_s"]) == 209
    slow = r.decode_step(H100, L8B, efficiency=0.759)
    assert slow["tokens_per_s"] == pytest.approx(0.759 * base["tokens_per_s"])
    assert slow["arithmetic_busy"] == base["arithmetic_busy"]   # a share of the roofline step
    a = r.speculative(H100, L8B, 64, 4096, 4, 0.6, 0.1)
    b = r.speculative(H100, L8B, 64, 4096, 4, 0.6, 0.1, efficiency=0.5)
    assert b["speedup"] == pytest.approx(a["speedup"])
    assert b["tokens_per_s_spec"] == pytest.approx(a["tokens_per_s_spec"] / 2)
    for bad in (0, -0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="^efficiency must be"):
            r.decode_step(H100, L8B, efficiency=bad)


# --- the embedding row ---------------------------------------------------------------------

def test_a_decode_step_reads_one_row_of_the_input_embedding():
    e = r.embedding_row(H100, L8B)
    # 128,256 × 4,096 × 2 B = 1,050,673,152 B = 1.05 GB; one row (8,192 B) is read.
    assert e["embedding_bytes"] == 1_050_673_152
    assert e["unread_bytes"] == 1_050_673_152 - 8192
    # 16,060,522,496 − 1,050,664,960 = 15,009,857,536 B = 15.0 GB; / 3.35e12 = 4.4806 ms; 223.2/s
    assert e["bytes_read"] == 15_009_857_536
    assert round(e["bytes_read"] / 1e9, 1) == 15.0
    assert round(e["ms_per_token"], 2) == 4.48 and round(e["tokens_per_s"]) == 223
    assert round(e["tokens_per_s_simple"]) == 209   # the plate keeps the simple count
    # Tied embeddings (Llama 3.2 1B): the output head reads the whole table anyway.
    t = r.embedding_row(H100, "llama-3.2-1b")
    assert t["unread_bytes"] == 0 and t["bytes_read"] == r.weight_bytes("llama-3.2-1b")


def test_vocab_and_width_agree_with_the_parameter_count():
    for key, shape in [("llama-3.1-8b", (128256, 4096, False)), ("llama-3.1-70b", (128256, 8192, False)),
                       ("llama-3.2-1b", (128256, 2048, True))]:
        m = r.MODELS[key]
        assert (m.vocab, m.hidden, m.tied) == shape


# --- section 11: the step time over lanes ------------------------------------------------------

def test_lanes_step_time_is_flat_until_the_ridge_then_rises():
    flat = r.lanes(H100, L8B, 1)["ms_per_step"]
    # 16.06e9 / 3.35e12 = 4.794 ms for 1 and for 295 lanes (295 < 295.37).
    for n in (1, 9, 100, 295):
        ln = r.lanes(H100, L8B, n)
        assert ln["ms_per_step"] == pytest.approx(flat) and ln["step_ratio"] == pytest.approx(1.0)
        assert not ln["past_ridge"] and ln["arithmetic_busy"] < 1.0
    # Past it the arithmetic sets the time: 512 lanes = 2 × 8.03e9 × 512 / 989.5e12 = 8.310 ms.
    ln = r.lanes(H100, L8B, 512)
    assert ln["past_ridge"] and ln["arithmetic_busy"] == 1.0 and ln["idle"] == 0.0
    assert ln["ms_per_step"] == pytest.approx(2 * 8_030_261_248 * 512 / 989.5e12 * 1e3)
    assert ln["step_ratio"] == pytest.approx(512 / 295.3731, rel=1e-4)
    assert ln["ms_flat"] == pytest.approx(flat)
