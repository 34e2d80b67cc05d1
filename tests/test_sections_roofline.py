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
from views.sections_roofline import compute

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
    from views.sections_speculative import measured_alpha
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
    assert ms in _field(page, "onebyone.ms_per_token")
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


def test_breakeven_sentence_follows_the_case(client):
    page = client.get("/en/specdec/?ctx=0&alpha=0.6").get_data(as_text=True)
    shown = re.findall(r'<span class="case" data-field="idle.breakeven_case" data-fmt="case">', page)
    assert len(shown) == 2  # one sentence in the prose, one readout in the widget: only the case that holds
    assert "streams on, it makes decoding slower" in page and "never: pays at every batch" not in page
    assert "113" in _field(page, "idle.breakeven")
    page = client.get("/en/specdec/?ctx=4096").get_data(as_text=True)
    assert "never: pays at every batch" in page and "streams on, it makes decoding slower" not in page


def test_chinese_page_renders(client):
    r = client.get("/zh/specdec/?" + QUERY)
    assert r.status_code == 200 and 'data-widget="idle"' in r.get_data(as_text=True)


def test_bad_state_falls_back_without_failing(client):
    r = client.get("/en/specdec/?batch=0&alpha=7&gpu=nope")
    assert r.status_code == 200
    page = r.get_data(as_text=True)
    assert "64" in _field(page, "batch.batch")  # the default batch


def test_section_9_starts_from_the_measured_alpha(client):
    # No alpha in the URL: the slider starts at section 7's measured α (to 0.001, as printed
    # there and in section 8), not at 0.6.
    from views.sections_speculative import measured_alpha
    with client.application.test_request_context("/"):
        measured = measured_alpha("en", _state())
    page = client.get("/en/specdec/").get_data(as_text=True)
    value = re.search(r'id="idle-alpha"[^>]*value="([0-9.]+)"', page).group(1)
    assert float(value) == round(measured, 3) != 0.6
