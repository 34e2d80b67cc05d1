"""sim.published: each published figure pinned as printed in its source, and what follows from it."""
import json

import pytest

from sim import published, roofline
from sim.published import BY_KEY, MEASUREMENTS


@pytest.mark.parametrize("key, field, value", [
    # docs.sglang.io, Speculative Decoding > Performance Highlights (from the EAGLE-3 paper)
    ("sglang-8b-h100", "tokens_per_s", 158.34),
    ("sglang-eagle2-8b-h100", "tokens_per_s", 244.10),
    ("sglang-eagle3-8b-h100", "tokens_per_s", 373.25),
    # EAGLE-3 abstract: "a 1.38x throughput improvement at a batch size of 64"
    ("sglang-eagle3-batch64", "speedup", 1.38),
    # vLLM blog, 17 Oct 2024: up to 1.5x / 2.8x at QPS 1; 1.4x / 1.8x slowdown at high QPS
    ("vllm-70b-draft-qps1", "speedup", 1.5),
    ("vllm-70b-draft-high-qps", "speedup", 1 / 1.4),
    ("vllm-70b-ngram-qps1", "speedup", 2.8),
    ("vllm-70b-ngram-high-qps", "speedup", 1 / 1.8),
])
def test_each_figure_as_published(key, field, value):
    assert getattr(BY_KEY[key], field) == pytest.approx(value, abs=1e-12)


def test_every_entry_says_where_when_and_what():
    assert len(MEASUREMENTS) == len(BY_KEY) == 8
    for m in MEASUREMENTS:
        assert m.gpu in roofline.GPUS and m.model in roofline.MODELS
        assert m.source and m.url.startswith("https://") and len(m.date) == 10
        assert (m.batch is None) != (m.load is None)   # a batch or a load, not both
        assert m.what in ("decode", "speedup") and set(m.sections) <= {1, 2, 9}
        assert (m.tokens_per_s is not None) == (m.what == "decode")
        assert m.unchecked   # every entry says what its source did not state


def test_the_engine_reaches_three_quarters_of_the_ceiling():
    # 158.34 / 208.59 = 0.759: "about three quarters of the 209 tokens/s ceiling".
    assert published.ideal_tokens_per_s(BY_KEY["sglang-8b-h100"]) == pytest.approx(208.586, rel=1e-5)
    assert published.engine_efficiency() == pytest.approx(0.7591, abs=1e-4)
    with pytest.raises(ValueError):
        published.engine_efficiency("sglang-eagle3-8b-h100")   # speculation is not an efficiency


def test_eagle_beats_the_single_stream_ceiling():
    # 244.10 / 208.59 = 1.17 and 373.25 / 208.59 = 1.79 times the roofline's batch-1 speed.
    rows = {r["key"]: r for r in published.to_json("h100-sxm", "llama-3.1-8b")}
    assert rows["sglang-eagle2-8b-h100"]["of_ideal"] == pytest.approx(1.1703, abs=1e-4)
    assert rows["sglang-eagle3-8b-h100"]["of_ideal"] == pytest.approx(1.7894, abs=1e-4)
    assert rows["sglang-8b-h100"]["of_ideal"] < 1 < rows["sglang-eagle2-8b-h100"]["of_ideal"]
    # Speed-ups over the same engine: 244.10 / 158.34 = 1.54, 373.25 / 158.34 = 2.36.
    assert rows["sglang-eagle3-8b-h100"]["speedup"] == pytest.approx(2.3573, abs=1e-4)
    assert rows["sglang-8b-h100"]["matches"] and not rows["vllm-70b-draft-qps1"]["matches"]
    json.dumps(rows)


def test_speculation_slowed_a_loaded_server():
    slow = [m for m in MEASUREMENTS if m.speedup is not None and m.speedup < 1]
    assert {m.key for m in slow} == {"vllm-70b-draft-high-qps", "vllm-70b-ngram-high-qps"}
    assert all(m.load == "high QPS" for m in slow)
