"""Page weight and responsiveness in the browser, measured once a page has settled (mounted, then a
few seconds of idling, no scrolling): the first view stays within its budget (bench/pageweight.py
prints the figures for every page and holds the budgets), plotly.js is fetched only once a chart
comes within 200 px of the view, and no task after the load event takes over 200 ms (issue 15:
the lab's map loaded plotly at mount and froze the page for 2–7 s before anyone scrolled)."""
from __future__ import annotations

import pytest

from bench.pageweight import (CHARTS_NEAR_VIEW, KIB, LONG_TASK_MS, LONG_TASKS_AFTER_LOAD,
                              LAZY_VENDOR, LONG_TASKS_INIT, PLOTLY, PLOTLY_BUDGET, THREE,
                              _SIZES, budget, first_chart, settle)

pytestmark = pytest.mark.browser

WHOLE = ["/en/specdec/", "/zh/specdec/", "/embed/en/specdec/", "/embed/zh/specdec/"]
# One-section embeds: the heaviest (the bench, the lab), one with a chart at the top, both languages.
SECTIONS = ["/embed/en/specdec/bench/", "/embed/zh/specdec/lab/", "/embed/en/specdec/speedup/",
            "/embed/zh/specdec/alpha/"]


# One-section embeds whose first view holds the bench's machine (static/js/machine.js).
MACHINE_FIRST = ("/embed/en/specdec/bench/", "/embed/zh/specdec/bench/",
                 "/embed/en/specdec/parts/", "/embed/zh/specdec/parts/")


def fetched_three(page) -> bool:
    return any(e["name"] in THREE for e in page.evaluate(_SIZES))


def fetched_plotly(page) -> bool:
    return any(e["name"] == PLOTLY for e in page.evaluate(_SIZES))


def long_tasks_after_load(page):
    tasks = page.evaluate(LONG_TASKS_AFTER_LOAD)
    assert tasks is not None, "this Chromium does not report long tasks"
    return [(round(s), round(d)) for s, d in tasks if d > LONG_TASK_MS]


@pytest.mark.parametrize("path", WHOLE + SECTIONS)
def test_settled_first_view_within_budget_and_without_long_tasks(browser, live_url, path):
    seen = []
    # Up to two loads: the largest task left after load is the whole plate's first style and layout
    # (about 5,600 boxes: tasks of 55-113 ms here), which other work on this machine's two shared
    # cores has stretched past 200 ms once in a while. A task that is long by itself (plotly.js's
    # parsing: 0.8-3.7 s here) is long on every load.
    for _attempt in range(2):
        ctx = browser.new_context(viewport={"width": 1280, "height": 900})
        page = ctx.new_page()
        page.add_init_script(LONG_TASKS_INIT)
        settle(page, live_url + path)
        entries = page.evaluate(_SIZES)
        # plotly.js and three.js apart: each loads only once its chart or machine is near.
        sent = sum(e["transfer"] for e in entries if e["name"] not in LAZY_VENDOR)
        # Compression is on: the document travels smaller than it is.
        doc = entries[0]
        assert doc["transfer"] > 0 and doc["body"] < doc["decoded"], doc
        assert sent <= budget(path), f"{path}: {sent / KIB:.1f} KiB once settled, budget {budget(path) / KIB:.0f} KiB"
        if page.evaluate(CHARTS_NEAR_VIEW):
            # A chart at the top of a one-section embed: plotly.js comes at once (its parsing is
            # one long task, measured by bench/pageweight.py; nothing to assert about it here).
            assert path in SECTIONS and fetched_plotly(page)
            ctx.close()
            return
        if fetched_three(page):
            # The machine in the first view (the bench's embed): three.js comes at once, and its
            # start-up (the scene, the shaders, the first frame: software WebGL here) is measured
            # by bench/machine.py, as plotly's parsing is by bench/pageweight.py.
            assert path in MACHINE_FIRST, f"{path}: three.js fetched with no machine near the view"
            ctx.close()
            return
        assert not fetched_plotly(page), f"{path}: plotly.js fetched with no chart within 200 px of the view"
        seen.append(long_tasks_after_load(page))
        ctx.close()
        if not seen[-1]:
            return
    pytest.fail(f"{path}: tasks over {LONG_TASK_MS} ms after load (start, ms), on each of two loads: {seen}")


@pytest.mark.parametrize("path, width, height", [
    ("/en/specdec/", 1280, 900), ("/embed/zh/specdec/", 1280, 900),
    ("/zh/specdec/", 390, 844), ("/embed/en/specdec/", 390, 844)])
def test_no_plotly_until_a_chart_comes_near(browser, live_url, path, width, height):
    ctx = browser.new_context(viewport={"width": width, "height": height})
    page = ctx.new_page()
    settle(page, live_url + path)
    charts = page.locator("[data-lazy-chart]")
    # The page has charts, none of them near the first view, and nothing asked for plotly.
    assert charts.count() >= 4
    assert page.evaluate(CHARTS_NEAR_VIEW) == 0
    assert not fetched_plotly(page), f"{path}: plotly.js fetched with no chart within 200 px of the view"
    assert page.locator("[data-lazy-chart=drawn]").count() == 0
    # Scrolling down, nothing fetches it until the first chart comes within 200 px of the view.
    first_top = charts.evaluate_all("cs => Math.min(...cs.map(c => c.getBoundingClientRect().top + scrollY))")
    y = 0
    while y + height + 200 < first_top - 250:
        page.evaluate("(y) => window.scrollTo({top: y, behavior: 'instant'})", y)
        page.wait_for_timeout(60)
        y += 500
    page.wait_for_timeout(300)
    assert not fetched_plotly(page), f"{path}: plotly.js fetched at scroll {y} with the first chart at {first_top}"
    page.evaluate("(y) => window.scrollTo({top: y, behavior: 'instant'})", max(0, first_top - height / 2))
    page.wait_for_selector("[data-lazy-chart=drawn]", state="attached", timeout=30_000)
    assert fetched_plotly(page)
    ctx.close()


def test_long_tasks_are_seen_at_all(page, live_url):
    """The observer works: a 300 ms task after load is reported (else the test above proves nothing)."""
    page.add_init_script(LONG_TASKS_INIT)
    settle(page, live_url + "/embed/en/specdec/reader/")
    page.evaluate("() => new Promise(ok => setTimeout(() => { const t = performance.now(); "
                  "while (performance.now() - t < 300); ok(); }, 0))")
    page.wait_for_timeout(300)
    assert any(d >= 290 for _s, d in page.evaluate(LONG_TASKS_AFTER_LOAD))


@pytest.mark.parametrize("path", ["/embed/en/specdec/speedup/", "/embed/zh/specdec/speedup/"])
def test_the_first_chart_brings_plotly_within_its_budget(browser, live_url, path):
    """A chart at the top of a one-section embed: plotly.js (the basic bundle) is at most 400 KiB
    on the wire, and the first chart is drawn in a task of its own, after the one in which the
    bundle was evaluated (so the two never add up to one freeze). How long each task takes is
    bench/pageweight.py's and docs/serving-measurements.md's to say: on this shared machine it
    depends on the others' load, and a test must not."""
    got = first_chart(browser, live_url + path)
    assert got is not None, "this Chromium does not report long tasks"
    assert got["set"] > got["arrived"] > 0 and got["drawn"] > got["set"], got
    assert got["transfer"] <= PLOTLY_BUDGET, f"plotly.js: {got['transfer'] / KIB:.1f} KiB"
    # The first chart was drawn after the task that evaluated the bundle had ended.
    assert got["drawnInPlotlyTask"] is False, got
