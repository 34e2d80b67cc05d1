"""Page weight in the browser: an embed's first view stays under 300 KB compressed before any
chart library, and plotly.js is fetched only once a chart comes into view (bench/pageweight.py
prints the figures for every page)."""
from __future__ import annotations

import pytest

from bench.pageweight import EMBED_BUDGET, PLOTLY, _SIZES

pytestmark = pytest.mark.browser


def first_view(page, url):
    page.goto(url)
    page.wait_for_selector("html[data-ready='1']", state="attached", timeout=30_000)
    page.wait_for_timeout(200)
    return page.evaluate(_SIZES)


@pytest.mark.parametrize("path", ["/embed/en/specdec/", "/embed/zh/specdec/",
                                  "/embed/en/specdec/speedup/", "/embed/zh/specdec/alpha/",
                                  "/embed/en/specdec/bench/"])
def test_embed_first_view_within_budget(page, live_url, path):
    entries = first_view(page, live_url + path)
    sent = sum(e["transfer"] for e in entries if e["name"] != PLOTLY)
    # Compression is on: the document and text resources travel smaller than they are.
    doc = entries[0]
    assert doc["transfer"] > 0 and doc["body"] < doc["decoded"], doc
    assert sent <= EMBED_BUDGET, f"{path}: {sent / 1024:.0f} KiB on first view"


def test_plotly_loads_only_when_a_chart_comes_into_view(page, live_url):
    entries = first_view(page, live_url + "/en/specdec/")
    charts_in_view = page.evaluate("""() => [...document.querySelectorAll('.js-plotly-plot, [data-chart], .rf-chart, .chart')]
        .some(el => { const r = el.getBoundingClientRect(); return r.bottom > 0 && r.top < innerHeight + 200; })""")
    if charts_in_view:
        pytest.skip("a chart is in the first view at this size")
    assert not any(e["name"] == PLOTLY for e in entries), "plotly.js fetched with no chart in view"
    # Scroll through the page: the charts further down ask for it.
    height = page.evaluate("document.body.scrollHeight")
    fetched = False
    for y in range(0, height + 700, 500):
        page.evaluate("(y) => window.scrollTo(0, y)", y)
        page.wait_for_timeout(80)
        if any(e["name"] == PLOTLY for e in page.evaluate(_SIZES)):
            fetched = True
            break
    for _ in range(50):  # the request may still be in flight at the end of the page
        fetched = fetched or any(e["name"] == PLOTLY for e in page.evaluate(_SIZES))
        if fetched:
            break
        page.wait_for_timeout(100)
    assert fetched, "plotly.js never fetched although the charts came into view"
