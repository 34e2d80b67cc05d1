"""Page weight as a browser sees it: bytes transferred (compressed, with headers) once a page has
settled, before anyone scrolls.

Starts the app on a loopback port (werkzeug, in a thread: the numbers are about bytes, not
speed), opens each page in headless Chromium with an empty cache at 1280×900, waits until every
widget has mounted, then leaves it alone for SETTLE_MS (no scrolling, no input) and sums the
Resource Timing transfer sizes (document + every resource). plotly.js is counted apart: it may
load only once a chart comes within 200 px of the view (static/js/charts.js), which on the first
view happens only in the one-section embeds of sections whose chart is near the top. Also
printed: the longest main-thread task after the load event (PerformanceObserver "longtask"), and
for the full pages the document's size and the share of it taken by the sections' answers (the
JSON each section ships for its scripts). Then the whole plate is scrolled to the end, so every
chart loads, for the plate's total.

The budgets below are what tests/browser/test_pageweight.py holds the pages to: the figures
measured in November 2026 (README, "Page weight") with about a quarter to a third of margin.

Usage: python3 bench/pageweight.py            (prints a table; exit 1 if a page is over budget)
       python3 bench/pageweight.py --plotly N (only plotly.js's long tasks, N loads at each width)
"""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app import create_app  # noqa: E402
from bench import chromium  # noqa: E402
from bench.chromium import CHROMIUM  # noqa: E402
from corpus.text import LANGS  # noqa: E402
from views.sections import ANCHORS  # noqa: E402

KIB = 1024
# Bytes, compressed, with headers, on a settled first view, plotly.js apart. Measured with token
# trees (the `trees` section, about 27 KiB of it: its markup, three answers, script and styles): the full
# page 182.2 KiB (en) / 190.2 KiB (zh), the whole-plate embed 176.1 / 183.3, one section 50.3–77.2
# (the largest: trees). Before trees: 141.5 / 145.7, 136.6 / 140.2, 44.6–63.1.
# After the round that added the sections' part views (each an inline picture of its part), the
# language record on every page, the Story guess sliders and the locked-controls marks: the zh page
# 242.0 KiB, the bench's embed 103.2 KiB (measured by tests/browser/test_pageweight.py): the
# budgets were raised by about 8 % to 260 and 110 KiB, not further.
PAGE_BUDGET = 260 * KIB           # /<lang>/specdec/ and the whole-plate embed
SECTION_EMBED_BUDGET = 110 * KIB  # /embed/<lang>/specdec/<anchor>/
EMBED_BUDGET = PAGE_BUDGET       # the largest embed: the whole plate
LONG_TASK_MS = 200               # no task after load may take longer (issue 15)
SETTLE_MS = 3000                 # idle after the widgets have mounted, before measuring
PLOTLY = "/vendor/plotly.min.js"
# plotly.js on the wire (compressed, headers included), whenever it comes: the basic bundle
# (serving/vendor.py) is 391.4 KiB gzipped, where the Python package's full bundle was 1,410 KiB.
PLOTLY_BUDGET = 400 * KIB

# Installed before the page's scripts: when window.Plotly is set (the end of the bundle's
# evaluation), in window.__plotlySetAt, so the evaluation's task can be told from the drawing's.
PLOTLY_SET_INIT = """let __specdecPlotly;
Object.defineProperty(window, "Plotly", {configurable: true, get() { return __specdecPlotly; },
  set(v) {
    __specdecPlotly = v; window.__plotlySetAt = performance.now();
    // True until the task that evaluates the bundle is over (the next task clears it).
    window.__inPlotlyTask = true; setTimeout(() => { window.__inPlotlyTask = false; }, 0);
  }});
new MutationObserver((records) => {
  if (window.__chartDrawnAt === undefined && records.some((r) => r.target.dataset?.lazyChart === "drawn")) {
    window.__chartDrawnAt = performance.now();   // at the end of the task that drew the first chart
    window.__drawnInPlotlyTask = window.__inPlotlyTask === true;
  }
}).observe(document, {subtree: true, attributes: true, attributeFilter: ["data-lazy-chart"]});"""

# After plotly.js arrived: its size on the wire, and the long tasks [start, duration] that ended
# after it arrived, split into the one in which the bundle was evaluated and the others.
PLOTLY_TASKS = """() => {
  const e = performance.getEntriesByType('resource').find(r => new URL(r.name).pathname === '/vendor/plotly.min.js');
  if (!e || window.__longTasks === null) return null;
  const set = window.__plotlySetAt ?? -1;
  const after = window.__longTasks.filter(([s, d]) => s + d >= e.responseEnd);
  return {transfer: e.transferSize, arrived: e.responseEnd, set, drawn: window.__chartDrawnAt ?? -1,
          drawnInPlotlyTask: window.__drawnInPlotlyTask,
          evaluation: after.filter(([s, d]) => s <= set && set <= s + d),
          others: after.filter(([s, d]) => !(s <= set && set <= s + d))};
}"""
# three.js (the bench's machine, static/js/machine.js) is counted apart as plotly is: it loads only
# once the `parts` or `bench` sections comes within a screen of the view (in the first view only of their embeds).
THREE = ("/vendor/three.min.js",)
LAZY_VENDOR = (PLOTLY, *THREE)

_SIZES = """() => {
  const all = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')];
  return all.map(e => ({name: new URL(e.name).pathname, transfer: e.transferSize,
                        body: e.encodedBodySize, decoded: e.decodedBodySize}));
}"""

# Installed before the page's own scripts (Playwright's init script, which the CSP does not
# apply to): every long task from the start, kept in window.__longTasks as [start, duration].
LONG_TASKS_INIT = """window.__longTasks = [];
try {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__longTasks.push([e.startTime, e.duration]);
  }).observe({type: "longtask", buffered: true});
} catch (err) { window.__longTasks = null; }"""

# Long tasks that started after the load event: [[start ms, duration ms], ...].
LONG_TASKS_AFTER_LOAD = """() => {
  const load = performance.getEntriesByType('navigation')[0].loadEventEnd;
  return window.__longTasks === null ? null : window.__longTasks.filter(([start]) => start >= load);
}"""

# Lazy charts (static/js/charts.js marks them) within 200 px of the view: plotly may load for these.
CHARTS_NEAR_VIEW = """() => [...document.querySelectorAll('[data-lazy-chart]')].filter(el => {
  const r = el.getBoundingClientRect();
  return r.bottom > -200 && r.top < innerHeight + 200 && r.width > 0;
}).length"""


def settle(page, url: str) -> None:
    """Open ``url`` and leave it alone until it has settled: mounted, then SETTLE_MS of idling."""
    page.goto(url)
    page.wait_for_selector("html[data-ready='1']", state="attached", timeout=30_000)
    page.wait_for_timeout(SETTLE_MS)


def weigh(page, url: str, scroll: bool = False) -> dict:
    page.add_init_script(LONG_TASKS_INIT)
    settle(page, url)
    first = page.evaluate(_SIZES)
    tasks = page.evaluate(LONG_TASKS_AFTER_LOAD) or []
    out = {
        "first_view": sum(e["transfer"] for e in first if e["name"] not in LAZY_VENDOR),
        "three_first_view": sum(e["transfer"] for e in first if e["name"] in THREE),
        "document": first[0]["transfer"],
        "plotly_first_view": any(e["name"] == PLOTLY for e in first),
        "charts_near_view": page.evaluate(CHARTS_NEAR_VIEW),
        "requests": len(first),
        "longest_task_after_load": max((d for _s, d in tasks), default=0),
    }
    if scroll:
        html = page.content()
        answers = {m.group(1): len(m.group(2).encode()) for m in re.finditer(
            r'<script type="application/json" data-answer="([^"]+)">(.*?)</script>', html, re.S)}
        out["html_bytes"] = first[0]["decoded"]
        out["answers"] = answers
        height = page.evaluate("document.body.scrollHeight")
        for _y in range(0, height + 900, 600):
            page.mouse.wheel(0, 600)
            page.wait_for_timeout(60)
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(500)
        every = page.evaluate(_SIZES)
        out["total"] = sum(e["transfer"] for e in every)
        out["plotly"] = sum(e["transfer"] for e in every if e["name"] == PLOTLY)
        out["requests_total"] = len(every)
    return out


def budget(path: str) -> int:
    return SECTION_EMBED_BUDGET if re.fullmatch(r"/embed/\w+/specdec/[^/]+/", path) else PAGE_BUDGET


def measure(base: str, paths: list[str], browser) -> dict:
    results = {}
    for path in paths:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        try:
            results[path] = weigh(page, base + path, scroll=not path.startswith("/embed/"))
        finally:
            context.close()
    return results


def first_chart(browser, url: str, width: int = 1280) -> dict | None:
    """Open ``url`` fresh at ``width``, wait for its first chart, and return PLOTLY_TASKS's answer."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        page.add_init_script(LONG_TASKS_INIT)
        page.add_init_script(PLOTLY_SET_INIT)
        page.goto(url)
        page.wait_for_selector("[data-lazy-chart=drawn] .main-svg", state="attached", timeout=60_000)
        page.wait_for_timeout(500)
        return page.evaluate(PLOTLY_TASKS)
    finally:
        context.close()


def plotly_tasks(base: str, browser, loads: int, path: str = "/embed/en/specdec/speedup/") -> list[dict]:
    """``--plotly N``: the long tasks once plotly.js has arrived, on N fresh loads of a one-section
    embed whose chart is at its top, at 1280 and 390 px: the task that evaluated the bundle and
    the others (the first chart's drawing among them)."""
    rows = []
    for _ in range(loads):
        for width in (1280, 390):
            got = first_chart(browser, base + path, width)
            rows.append({"width": width, "kib": got["transfer"] / KIB,
                         "evaluation": [round(d) for _s, d in got["evaluation"]],
                         "others": [round(d) for _s, d in got["others"]]})
    return rows


def with_browser(run):
    """``run(base_url, browser)`` against the app on a local server, in headless Chromium."""
    from playwright.sync_api import sync_playwright

    from tests.conftest import LiveServer

    with LiveServer(create_app({"RENDER_CACHE": True})) as srv, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=chromium.NO_GPU, headless=True)
        try:
            return run(srv.url, browser)
        finally:
            browser.close()


def main() -> int:
    if "--plotly" in sys.argv:
        loads = int(sys.argv[sys.argv.index("--plotly") + 1])
        rows = with_browser(lambda base, browser: plotly_tasks(base, browser, loads))
        print(f"long tasks (ms) once plotly.js arrived, /embed/en/specdec/speedup/, load average "
              f"{os.getloadavg()[0]:.1f} after; a list is empty where no task passed 50 ms")
        print(f"{'width':>5} {'plotly.js KiB':>13}  {'evaluation':<12} others")
        for r in rows:
            print(f"{r['width']:>5} {r['kib']:>13.1f}  {str(r['evaluation']):<12} {r['others']}")
        longest = max((d for r in rows for d in r["evaluation"] + r["others"]), default=0)
        print(f"longest task after plotly.js arrived: {longest} ms")
        return 0

    paths = ([f"/embed/{lang}/specdec/" for lang in LANGS]
             + [f"/embed/{lang}/specdec/{a}/" for lang in LANGS for a in ANCHORS]
             + [f"/{lang}/specdec/" for lang in LANGS])
    results = with_browser(lambda base, browser: measure(base, paths, browser))

    kib = lambda n: f"{n / KIB:.1f}"  # noqa: E731
    print(f"Transferred once settled ({SETTLE_MS / 1000:g} s idle after mounting, no scrolling), KiB, "
          "compressed, headers included, plotly.js apart")
    print(f"{'page':<34} {'first view':>10} {'budget':>6} {'requests':>8}  {'plotly.js':<9} "
          f"{'charts near':>11} {'longest task after load, ms':>28}")
    over = []
    for path, r in results.items():
        b = budget(path)
        print(f"{path:<34} {kib(r['first_view']):>10} {b // KIB:>6} {r['requests']:>8}  "
              f"{'yes' if r['plotly_first_view'] else 'no':<9} {r['charts_near_view']:>11} "
              f"{r['longest_task_after_load']:>28.0f}")
        if r["first_view"] > b:
            over.append(path)
    for path in ("/en/specdec/", "/zh/specdec/"):
        r = results[path]
        answers = r["answers"]
        top = sorted(answers.items(), key=lambda kv: -kv[1])[:5]
        print(f"whole plate {path}: {kib(r['total'])} KiB after scrolling to the end "
              f"({r['requests_total']} requests), of which plotly.js {kib(r['plotly'])} KiB")
        print(f"  document {kib(r['document'])} KiB sent, {kib(r['html_bytes'])} KiB of HTML, of which the "
              f"sections' answers {kib(sum(answers.values()))} KiB "
              f"(largest: {', '.join(f'{u} {kib(n)}' for u, n in top)})")
    worst = max((r["first_view"], p) for p, r in results.items() if p.startswith("/embed/"))
    print(f"largest embed first view: {worst[1]} {kib(worst[0])} KiB; "
          f"{'over budget: ' + ', '.join(over) if over else 'every page within its budget'}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
