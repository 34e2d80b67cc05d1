"""Sections 1, 2, 9, 10, 11 in headless Chromium: sliders and pickers change the numbers and
the URL, charts render, tabs switch, reduced motion is respected, no errors, nothing foreign."""
import re

import pytest

from tests.browser.util import open_fold

pytestmark = pytest.mark.browser


def _mounted(page, url, name):
    page.goto(url)
    page.wait_for_selector("html[data-ready='1']", state="attached", timeout=20000)
    page.wait_for_selector(f"[data-widget={name}][data-state=mounted]", state="attached", timeout=20000)


def _text(page, sel):
    # Visible matches only: the predict-first answers repeat numbers in hidden spans.
    return page.locator(f"{sel} >> visible=true").first.inner_text()


def _slide(page, sel, key, times=1):
    page.locator(sel).focus()
    for _ in range(times):
        page.keyboard.press(key)


def test_batch_slider_changes_numbers_url_and_chart(page, live_url):
    _mounted(page, f"{live_url}/embed/en/specdec/batch/", "batch")
    field = '#batch [data-field="batch.with_cache.tokens_per_s"]'
    before = _text(page, field)
    assert before == "4,252"  # 64 streams, 4,096 tokens each (checked against sim in test_api)
    # Two stops up from 64: 96, then 128.
    _slide(page, "#batch-batch", "ArrowRight", 2)
    page.wait_for_function(f"() => document.querySelector('{field}').textContent !== '{before}'")
    assert page.locator("#batch-batch-typed").input_value() == "128"   # the typed box follows
    assert "batch=128" in page.url
    api = page.evaluate("() => fetch('/api/roofline?batch=128').then(r => r.json())")
    assert _text(page, field) == f"{round(api['batch']['with_cache']['tokens_per_s']):,}"
    # The plotly chart draws (lazily): two curves, the ceiling, the marker at the batch, and the
    # published measurements beside them.
    page.locator('[data-plot="batch"]').scroll_into_view_if_needed()
    page.wait_for_selector('[data-plot="batch"] .main-svg', timeout=20000)
    names = page.locator('[data-plot="batch"] .legendtext').all_text_contents()
    assert {"Weights only", "With each stream's cache", "Arithmetic ceiling", "Your batch"} <= set(names), names
    assert page.locator('[data-plot="batch"] .xtitle').text_content() == "Streams in the batch"
    assert page.console_errors == [] and page.foreign_requests == []


def test_context_slider_moves_the_stack(page, live_url):
    _mounted(page, f"{live_url}/embed/en/specdec/batch/", "batch")
    grow = "() => document.querySelector('#batch .rf-stack-k').style.flexGrow"
    before = float(page.evaluate(grow))
    _slide(page, "#batch-ctx", "Home")
    page.wait_for_function(f"() => Number(document.querySelector('#batch .rf-stack-k').style.flexGrow) < {before}")
    assert float(page.evaluate(grow)) == 0.0  # no context, no cache
    assert _text(page, '#batch [data-field="batch.kv_gb"]') == "0.0"
    assert "ctx=0" in page.url
    assert page.console_errors == []


def test_model_picker_updates_every_roofline_section(page, live_url):
    page.goto(f"{live_url}/en/specdec/")
    page.wait_for_selector("html[data-ready='1']", state="attached", timeout=20000)
    ms = '#onebyone .prose [data-field="onebyone.ideal_ms_per_token"]'
    assert _text(page, ms) == "4.8"
    page.select_option("#obo-model", "llama-3.1-70b")
    page.wait_for_function(f"() => document.querySelector('{ms}').textContent !== '4.8'")
    # 70,553,706,496 x 2 B = 141.1 GB: more than one H100 holds, so split over two (tensor
    # parallelism, bandwidths adding up): 141.1 GB / (2 x 3.35 TB/s) = 21.1 ms.
    api = page.evaluate("() => fetch('/api/section/onebyone?lang=en&model=llama-3.1-70b').then(r => r.json())")["data"]
    assert api["onebyone"]["ideal_ms_per_token"] == pytest.approx(21.06, abs=0.01)
    assert _text(page, ms) == "21.1"
    assert "model=llama-3.1-70b" in page.url
    # Section 2's label and section 9's picker follow (section 2 is asked for as it comes near).
    page.locator("#batch").scroll_into_view_if_needed()
    page.wait_for_function("() => document.querySelector('#batch [data-field=\"model.label\"]').textContent === 'Llama 3.1 70B'")
    assert page.locator("#idle-model").input_value() == "llama-3.1-70b"


def test_idle_sliders_and_both_charts(page, live_url):
    # α pinned to 0.6 (without it the page starts from the bench's measured α).
    _mounted(page, f"{live_url}/embed/en/specdec/idle/?ctx=0&alpha=0.6", "idle")
    assert _text(page, '#idle dd [data-field="idle.breakeven"]') == "113"
    assert "never: pays at every batch" not in page.locator("#idle .rf-readouts").inner_text()
    speed = '#idle dd [data-field="idle.speedup"]'
    before = _text(page, speed)
    page.locator("#idle-alpha").fill("0.9")
    page.wait_for_function(f"() => document.querySelector('{speed}').textContent !== '{before}'")
    assert "alpha=0.9" in page.url
    page.fill("#idle-gamma", "2")
    page.wait_for_function("() => location.search.includes('gamma=2')")
    # The speed-up by context is in the section's "Go further" fold: opened, its lazy chart draws.
    open_fold(page, "idle-more")
    for name in ("idle", "idle-contexts"):
        plot = page.locator(f'[data-plot="{name}"]')
        plot.scroll_into_view_if_needed()
        page.wait_for_selector(f'[data-plot="{name}"] .main-svg', timeout=20000)
    names = page.locator('[data-plot="idle-contexts"] .legendtext').all_text_contents()
    assert sum("tokens per stream" in n or "no cache" in n for n in names) == 4, names   # one curve per context
    # The break-even batch is drawn on the throughput chart (a dashed line shape).
    assert page.locator('[data-plot="idle"] .shapelayer path').count() >= 2
    assert page.console_errors == [] and page.foreign_requests == []


def test_lanes_slider_lights_lanes_and_reports_busy(page, live_url):
    page.goto(f"{live_url}/embed/en/specdec/reader/")
    page.wait_for_selector("html[data-ready='1']", state="attached", timeout=20000)
    assert page.locator("#reader .rf-lane.is-lit").count() == 9
    assert _text(page, '#reader dd [data-field="reader.busy"]') == "3.0%"
    _slide(page, "#reader-lanes", "ArrowRight", 3)  # 10, 11, 12
    page.wait_for_function("() => document.querySelectorAll('#reader .rf-lane.is-lit').length === 12")
    # 12 lanes / 295.37 = 4.1 %.
    page.wait_for_function("() => document.querySelector('#reader dd [data-field=\"reader.busy\"]').textContent === '4.1%'")
    assert page.locator("#reader .rf-more").count() == 0
    _slide(page, "#reader-lanes", "End")
    page.wait_for_selector("#reader .rf-more", timeout=10000)
    assert re.search(r"\+ 496 more lanes", page.locator("#reader .rf-more").text_content())
    # Sliding down again takes the note away (issue 12: it stayed, stale).
    _slide(page, "#reader-lanes", "Home")
    page.wait_for_function("() => !document.querySelector('#reader .rf-more')")
    assert page.locator("#reader .rf-lane.is-lit").count() == 1
    assert page.console_errors == [] and page.foreign_requests == []


def test_selfdraft_tabs_switch_the_diagram(page, live_url):
    _mounted(page, f"{live_url}/embed/en/specdec/selfdraft/", "selfdraft")
    open_fold(page, "selfdraft-methods")     # the per-method cards are in the "Go further" fold
    assert page.locator("[data-panel=medusa]").is_visible()
    assert not page.locator("[data-panel=eagle]").is_visible()
    page.locator("[role=tab][data-method=eagle]").click()
    assert page.locator("[data-panel=eagle]").is_visible()
    assert not page.locator("[data-panel=medusa]").is_visible()
    page.keyboard.press("ArrowRight")
    assert page.locator("[data-panel=lookahead]").is_visible()
    assert page.locator("[role=tab][data-method=lookahead]").get_attribute("aria-selected") == "true"
    assert page.console_errors == []


def test_sweep_respects_reduced_motion(browser, live_url):
    ctx = browser.new_context(reduced_motion="reduce")
    pg = ctx.new_page()
    pg.goto(f"{live_url}/embed/en/specdec/onebyone/")
    pg.wait_for_selector("[data-widget=onebyone][data-state=mounted]", state="attached", timeout=20000)
    assert "is-still" in pg.locator("[data-widget=onebyone]").get_attribute("class")
    assert pg.evaluate("() => getComputedStyle(document.querySelector('.rf-sweep')).animationName") == "none"
    ctx.close()
