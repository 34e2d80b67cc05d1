"""Server-side rendering of sections 1, 2, 9, 10, 11: numbers from sim.roofline, readable without
scripts, and the state in the URL reflected in the page."""
from __future__ import annotations

import html
import re

import pytest
from flask_babel import format_decimal, format_percent

from sim import params as P
from sim import roofline
from views.sections import answer
from views.sections.roofline import compute

ANCHORS = ("onebyone", "batch", "idle", "selfdraft", "reader")
STATE = {"gpu": "b200", "model": "llama-3.1-70b", "batch": 24, "ctx": 16384, "lanes": 40,
         "gamma": 6, "alpha": 0.75, "c": 0.2}
QUERY = "gpu=b200&model=llama-3.1-70b&batch=24&ctx=16384&lanes=40&gamma=6&alpha=0.75&c=0.2"


def _state(**values):
    return {**{n: p.default for n, p in P.PAGE.items()}, **values}


def _answers(app, state):
    """Every roofline section's answer merged, as compute() returns them for the API."""
    with app.test_request_context("/en/specdec/"):
        out = {}
        for unit in ANCHORS:
            out.update(answer(unit, "en", state))
        return out


def test_data_for_a_non_default_state_matches_sim(app):
    r = _answers(app, _state(**STATE))
    g, m = STATE["gpu"], STATE["model"]
    one = roofline.decode_step(g, m)
    assert r["onebyone"]["ms_per_token"] == pytest.approx(one["ms_per_step"])
    assert r["onebyone"]["idle"] == pytest.approx(1 - one["arithmetic_busy"])
    step = roofline.decode_step(g, m, 24, 16384)
    assert r["batch"]["total_gb"] == pytest.approx(step["bytes_per_step"] / 1e9)
    assert r["batch"]["kv_share"] == pytest.approx(step["kv_bytes"] / step["bytes_per_step"])
    s = roofline.speculative(g, m, 24, 16384, 6, 0.75, 0.2)
    assert r["idle"]["tokens_per_s_spec"] == pytest.approx(s["tokens_per_s_spec"])
    assert r["idle"]["extra_arithmetic"] == pytest.approx(s["extra_arithmetic"])
    assert r["reader"]["busy"] == pytest.approx(roofline.lanes(g, m, 40)["arithmetic_busy"])
    # Lookahead's ~120x arithmetic as 120 lanes on this GPU and model.
    assert r["selfdraft"]["lookahead_busy"] == pytest.approx(roofline.lanes(g, m, 120)["arithmetic_busy"])
    # Each context curve's break-even is sim's.
    for row in r["idle"]["contexts"]:
        assert row["breakeven"] == roofline.breakeven_batch(g, m, row["ctx"], 6, 0.75, 0.2)


def test_data_without_alpha_uses_the_measured_one(app):
    # The page's state may not carry alpha: section 9 then takes the α section 7 measures for
    # the chosen draft, as printed (three decimals).
    from views.sections.shared import measured_alpha
    state = _state(**{k: v for k, v in STATE.items() if k != "alpha"})
    r = _answers(app, state)
    with app.test_request_context("/"):
        assert r["idle"]["alpha"] == measured_alpha("en", state) != 0.6
    assert r["measured"] is True


def test_stacked_shares_add_up():
    b = compute(batch=100, ctx=8192)["batch"]
    assert b["weights_gb"] + b["kv_gb"] == pytest.approx(b["total_gb"])
    # 100 streams x 8192 tokens x 131,072 B = 107.4 GB of cache.
    assert b["kv_gb"] == pytest.approx(107.374, rel=1e-4)


def _field(page: str, path: str) -> list[str]:
    return [html.unescape(t) for t in
            re.findall(r'data-field="%s"[^>]*>([^<]*)<' % re.escape(path), page)]


def test_page_shows_the_state_numbers(client, app):
    r = client.get("/en/specdec/?" + QUERY)
    assert r.status_code == 200
    page = r.get_data(as_text=True)
    for a in ANCHORS:
        assert f'id="{a}"' in page and f'data-widget="{a}"' in page
    g, m = STATE["gpu"], STATE["model"]
    with app.test_request_context("/en/specdec/"):
        ms = format_decimal(roofline.decode_step(g, m)["ms_per_step"], format="#,##0.0")
        tps = format_decimal(roofline.decode_step(g, m, 24, 16384)["tokens_per_s"], format="#,##0")
        busy = format_percent(roofline.lanes(g, m, 40)["arithmetic_busy"], format="#,##0.0%")
    assert ms in _field(page, "onebyone.ideal_ms_per_token")
    assert tps in _field(page, "batch.with_cache.tokens_per_s")
    assert busy in _field(page, "reader.busy")
    assert "Llama 3.1 70B" in _field(page, "model.label")
    # The pickers and sliders start where the URL put them.
    assert re.search(r'<option value="b200" selected>', page)
    assert re.search(r'id="reader-lanes"[^>]*aria-valuetext="40"', page, re.S)


@pytest.mark.parametrize("anchor", ANCHORS)
def test_each_embed_renders_its_widget(client, anchor):
    r = client.get(f"/embed/en/specdec/{anchor}/?{QUERY}")
    assert r.status_code == 200
    page = r.get_data(as_text=True)
    assert f'data-widget="{anchor}"' in page
    # The widget's i18n strings, where it has some, are valid JSON in the attribute.
    import json
    for m in re.finditer(r"data-i18n='([^']*)'", page):
        assert isinstance(json.loads(html.unescape(m.group(1))), dict)


def test_breakeven_sentence_follows_the_case(page_html):
    page = page_html("/en/specdec/?ctx=0&alpha=0.6")
    shown = re.findall(r'<span class="case" data-field="idle.breakeven_case" data-fmt="case">', page)
    # One sentence in the prose, one readout in the widget, one phrase in the takeaway: only the
    # case that holds.
    assert len(shown) == 3
    assert "streams on, it makes decoding slower" in page and "nowhere within memory" not in page
    assert "113" in _field(page, "idle.breakeven")
    page = page_html("/en/specdec/?ctx=4096")
    assert "nowhere within memory" in page and "streams on, it makes decoding slower" not in page


def test_chinese_page_renders(client):
    r = client.get("/zh/specdec/?" + QUERY)
    assert r.status_code == 200 and 'data-widget="idle"' in r.get_data(as_text=True)


def test_bad_state_falls_back_without_failing(client):
    r = client.get("/en/specdec/?batch=0&alpha=7&gpu=nope")
    assert r.status_code == 200
    page = r.get_data(as_text=True)
    assert "64" in _field(page, "batch.batch")  # the default batch


def test_section_9_starts_from_the_measured_alpha(page_html, client):
    # No alpha in the URL: the slider starts at section 7's measured α (to 0.001, as printed
    # there and in section 8), not at 0.6.
    from views.sections.shared import measured_alpha
    with client.application.test_request_context("/"):
        measured = measured_alpha("en", _state())
    page = page_html("/en/specdec/")
    value = re.search(r'id="idle-alpha"[^>]*value="([0-9.]+)"', page).group(1)
    assert float(value) == round(measured, 3) != 0.6


# --- issue 12: capacity, published points, the step time over lanes (new keys only) -------------

def test_section_9_curves_end_where_the_streams_stop_fitting():
    # At 4,096 tokens an H100 holds (80e9 − 16.06e9) / (131,072 × 4,096) = 119 streams of the 8B:
    # the flat 1.78× of section 9 stops there instead of running to 1,024.
    d = compute(alpha=0.646)
    curve = d["idle"]["curve"]
    assert curve["max_batch"] == 119
    assert curve["n_fit"] == sum(b <= 119 for b in curve["batches"]) == 13   # 1 … 96
    assert curve["fits"] == [b <= 119 for b in curve["batches"]]
    assert curve["at_limit"]["batch"] == 119
    assert curve["at_limit"]["speedup"] == pytest.approx(
        roofline.speculative("h100-sxm", "llama-3.1-8b", 119, 4096, 4, 0.646, 0.1)["speedup"])
    limits = {row["ctx"]: row["max_batch"] for row in d["idle"]["contexts"]}
    # 63,939,477,504 B of room / (131,072 B × ctx): 476 at 1,024, 119 at 4,096, 14 at 32,768.
    assert limits == {0: None, 1024: 476, 4096: 119, 32768: 14}
    assert d["batch"]["curve"]["with_cache_fit"]["n_fit"] == 13
    assert d["batch"]["curve"]["weights_only_fit"]["n_fit"] == 20    # no cache: every stop fits
    assert d["batch"]["max_batch"] == 119 and d["batch"]["max_ctx"] == 7622 and d["batch"]["fits"]


def test_capacity_for_a_model_that_does_not_fit():
    d = compute(model="llama-3.1-70b", batch=1, ctx=0)
    cap = d["capacity"]
    assert not cap["weights_fit"] and cap["gpus_for_weights"] == 2 and cap["tp_for_weights"] == 2
    assert cap["need_gb"] == pytest.approx(141.107, rel=1e-4) and cap["memory_gb"] == 80
    assert not d["onebyone"]["fits"] and d["onebyone"]["tp"] == 2
    # On two H100s the 141.1 GB read takes 141.1e9 / 6.7e12 = 21.06 ms: 47.5 tokens/s.
    assert d["onebyone"]["tp_tokens_per_s"] == pytest.approx(2 * d["onebyone"]["tokens_per_s"])
    assert round(d["onebyone"]["tp_tokens_per_s"], 1) == 47.5
    # Sections 2 and 9 split it over those two GPUs; without caches nothing else limits the batch.
    assert d["idle"]["gpus"] == d["batch"]["gpus"] == cap["gpus"] == 2
    assert d["idle"]["curve"]["n_fit"] == 20 and d["idle"]["curve"]["max_batch"] is None
    assert "evenly" in cap["tp_assumes"]
    # On one GPU not even one stream would fit (the weights alone overflow it).
    assert cap["max_batch_at_ctx"] == 0


def test_published_points_and_engine_efficiency():
    d = compute()
    keys = {r["key"] for r in d["onebyone"]["published"]}
    assert keys == {"sglang-8b-h100", "sglang-eagle2-8b-h100", "sglang-eagle3-8b-h100"}
    assert all(r["matches"] for r in d["onebyone"]["published"])
    assert {r["key"] for r in d["idle"]["published"]} >= {"sglang-eagle3-batch64", "vllm-70b-draft-high-qps"}
    assert len(d["published"]) == 8
    assert d["engine"]["efficiency"] == 1.0 and d["engine"]["measured"] == pytest.approx(0.759, abs=1e-3)
    # Off by default; given, it scales speeds and leaves speed-ups alone.
    e = compute(efficiency=d["engine"]["measured"])
    assert e["onebyone"]["tokens_per_s"] == pytest.approx(158.34)
    assert e["idle"]["speedup"] == pytest.approx(d["idle"]["speedup"])
    assert d["onebyone"]["embedding_row"]["gb_read"] == pytest.approx(15.0099, rel=1e-4)


def test_reader_step_time_is_flat_then_rising():
    r = compute(lanes=9)["reader"]
    assert r["ms_per_step"] == pytest.approx(r["ms_flat"]) and not r["past_ridge"]
    ms = r["curve"]["ms_per_step"]
    lanes = r["curve"]["lanes"]
    assert all(m == pytest.approx(r["ms_flat"]) for k, m in zip(lanes, ms) if k <= 295)
    rising = [m for k, m in zip(lanes, ms) if k >= 296]
    assert rising == sorted(rising) and rising[-1] > 1.7 * r["ms_flat"]   # 512 / 295.37 = 1.73
    assert compute(lanes=512)["reader"]["past_ridge"]


def test_best_gamma_edges_in_section_9():
    assert compute(c=0.0, batch=1)["idle"]["best"]["edge"] == "rising"
    # c = 1 at batch 64, 4,096 tokens (memory-bound): S(1) = 1.6 / 2 = 0.8 < 1: plain decoding.
    best = compute(c=1.0)["idle"]["best"]
    assert (best["gamma"], best["speedup"], best["edge"]) == (0, 1.0, "plain")
    assert best["best_speculative"] == {"gamma": 1, "speedup": pytest.approx(0.8)}
