"""/api/roofline: answers agree with sim.roofline, every bad parameter is a 400 naming it."""
from __future__ import annotations

import json
import math

import pytest

from sim import roofline


def _get(client, query=""):
    r = client.get("/api/roofline" + query)
    return r, r.get_json()


def test_defaults_match_the_plate_figures(client):
    r, d = _get(client)
    assert r.status_code == 200
    # Llama 3.1 8B, 8,030,261,248 params x 2 bytes = 16.06 GB; H100 reads 3.35 TB/s:
    # 16.0605e9 / 3.35e12 = 4.794 ms a token, 1 / 4.794 ms = 208.6 tokens/s.
    assert d["onebyone"]["weight_gb"] == pytest.approx(16.0605, rel=1e-4)
    assert d["onebyone"]["ms_per_token"] == pytest.approx(4.7942, rel=1e-4)
    assert d["onebyone"]["tokens_per_s"] == pytest.approx(208.586, rel=1e-4)
    # One lane does 1 op/byte against 989.5e12 / 3.35e12 = 295.37: busy 1/295.37 = 0.34 %.
    assert d["onebyone"]["busy"] == pytest.approx(1 / 295.373, rel=1e-4)
    # Batch 64: 64 x 208.586 = 13,349.5 tokens/s; the cache adds 64 x 4096 x 131,072 B = 34.36 GB.
    assert d["batch"]["weights_only"]["tokens_per_s"] == pytest.approx(13349.5, rel=1e-4)
    assert d["batch"]["kv_gb"] == pytest.approx(34.3597, rel=1e-4)
    # Nine lanes: 9 / 295.37 = 3.05 % busy; about 295 lanes to keep up.
    assert d["reader"]["busy"] == pytest.approx(9 / 295.373, rel=1e-4)
    assert d["reader"]["keep_up"] == pytest.approx(295.373, rel=1e-4)
    # Leviathan et al.'s example, alpha 0.6, gamma 2: 3 x 0.4 / 0.784 = 1.53 (+53 %), speed 1.96.
    assert d["idle"]["leviathan_extra"] == pytest.approx(1.5306, rel=1e-4)
    assert d["idle"]["leviathan_speed"] == pytest.approx(1.96)


def test_non_default_state_matches_sim(client):
    q = "?gpu=a100-sxm-80gb&model=llama-3.1-70b&batch=8&context=1024&gamma=3&alpha=0.8&c=0.05&lanes=40"
    r, d = _get(client, q)
    assert r.status_code == 200
    g, m = "a100-sxm-80gb", "llama-3.1-70b"
    one = roofline.decode_step(g, m, 1, 0)
    assert d["onebyone"]["ms_per_token"] == pytest.approx(one["ms_per_step"])
    # 141.1 GB of weights do not fit one 80 GB A100: sections 2 and 9 split the model over the
    # two GPUs that hold them (tensor parallelism), so their speeds are the two GPUs'.
    assert d["batch"]["gpus"] == d["idle"]["gpus"] == 2
    k = roofline.decode_step(g, m, 8, 1024, gpus=2)
    assert d["batch"]["with_cache"]["tokens_per_s"] == pytest.approx(k["tokens_per_s"])
    s = roofline.speculative(g, m, 8, 1024, 3, 0.8, 0.05)
    assert d["idle"]["speedup"] == pytest.approx(s["speedup"])
    assert d["idle"]["breakeven"] == roofline.breakeven_batch(g, m, 1024, 3, 0.8, 0.05)
    assert (d["idle"]["best_gamma"], d["idle"]["best_speedup"]) == pytest.approx(
        roofline.best_gamma(g, m, 8, 1024, 0.8, 0.05))
    assert d["reader"]["busy"] == pytest.approx(roofline.lanes(g, m, 40)["arithmetic_busy"])
    assert d["state"] == {"gpu": g, "model": m, "batch": 8, "ctx": 1024, "lanes": 40,
                          "gamma": 3, "alpha": 0.8, "c": 0.05, "eff": 1.0}
    # Curves: one point per batch stop, the one at batch 8 equal to the single step.
    xs = d["batch"]["curve"]["batches"]
    assert d["batch"]["curve"]["with_cache"][xs.index(8)] == pytest.approx(k["tokens_per_s"])
    assert len(d["idle"]["curve"]["spec"]) == len(xs)


def test_ctx_is_an_alias_for_context(client):
    _, a = _get(client, "?ctx=2048")
    _, b = _get(client, "?context=2048")
    _, c = _get(client, "?ctx=2048&context=2048")
    assert a == b == c and a["batch"]["ctx"] == 2048


def test_breakeven_cases(client):
    # Weights only (ctx 0), H100, 8B, gamma 4, alpha 0.6, c 0.1: E = (1 - 0.6^5) / 0.4 = 2.3056;
    # speed-up = E / (0.4 + 5B / 295.37) drops below 1 once B > 112.6, so from batch 113.
    _, d = _get(client, "?ctx=0")
    assert d["idle"]["breakeven"] == 113 and d["idle"]["breakeven_case"] == "from"
    # A 4,096-token cache per stream keeps every step memory-bound: it pays at every batch.
    _, d = _get(client, "?ctx=4096")
    assert d["idle"]["breakeven"] is None and d["idle"]["breakeven_case"] == "always"
    # alpha 0: one token per pass at the draft's extra cost, never faster.
    _, d = _get(client, "?alpha=0")
    assert d["idle"]["breakeven"] == 1 and d["idle"]["breakeven_case"] == "never"
    assert d["idle"]["speedup"] < 1 and d["idle"]["pays"] is False


def test_answer_is_strict_json(client):
    r = client.get("/api/roofline?batch=1024&ctx=131072&lanes=512&gamma=16&alpha=1&c=1")
    assert r.status_code == 200
    # No NaN or Infinity (not JSON): parse with a hook that rejects them.
    def reject(x):
        raise ValueError(x)
    json.loads(r.get_data(as_text=True), parse_constant=reject)


BAD = [
    ("gpu", "tpu-v4"), ("gpu", ""), ("model", "gpt-5"),
    ("batch", "0"), ("batch", "1025"), ("batch", "4.5"), ("batch", "many"),
    ("context", "-1"), ("context", "131073"), ("ctx", "1e3"), ("ctx", "999999999"),
    ("gamma", "0"), ("gamma", "17"), ("gamma", "two"),
    ("alpha", "-0.1"), ("alpha", "1.01"), ("alpha", "nan"), ("alpha", "inf"), ("alpha", "x"),
    ("c", "-1"), ("c", "2"), ("c", "cheap"),
    ("lanes", "0"), ("lanes", "513"), ("lanes", "9.0"),
    ("lang", "fr"),
]


@pytest.mark.parametrize("param,value", BAD)
def test_bad_values_name_the_parameter(client, param, value):
    r, d = _get(client, f"?{param}={value}")
    assert r.status_code == 400
    assert d["error"]["param"] == param
    assert d["error"]["allowed"] and d["error"]["message"]


def test_unknown_and_repeated_parameters(client):
    r, d = _get(client, "?batch=4&streams=4")
    assert r.status_code == 400 and d["error"]["param"] == "streams"
    r, d = _get(client, "?batch=4&batch=8")
    assert r.status_code == 400 and d["error"]["param"] == "batch"


def test_conflicting_context_and_ctx(client):
    r, d = _get(client, "?ctx=1024&context=2048")
    assert r.status_code == 400 and d["error"]["param"] == "context"


def test_error_message_follows_the_language(client):
    r, d = _get(client, "?batch=0&lang=zh")
    assert r.status_code == 400 and d["error"]["param"] == "batch"
    assert r.headers["Content-Type"].startswith("application/json")


def test_eff_scales_the_speeds_as_on_the_page(client):
    # An engine at half the roofline's speed writes half the tokens a second (sim/roofline.py,
    # "Engine efficiency"); the speed-up on paper does not change with it.
    _, ideal = _get(client, "")
    _, half = _get(client, "?eff=0.5")
    assert half["state"]["eff"] == 0.5 and ideal["state"]["eff"] == 1.0
    assert half["onebyone"]["tokens_per_s"] == pytest.approx(ideal["onebyone"]["tokens_per_s"] / 2)
    assert half["idle"]["speedup"] == pytest.approx(ideal["idle"]["speedup"])
    r, err = _get(client, "?eff=0.05")
    assert r.status_code == 400 and err["error"]["param"] == "eff"
