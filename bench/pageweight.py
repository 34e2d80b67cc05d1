"""Page weight as a browser sees it: bytes transferred (compressed, with headers) on first view.

Starts the app on a loopback port (werkzeug, in a thread: the numbers are about bytes, not
speed), opens each page in headless Chromium with an empty cache at 1280×900, waits until every
widget has mounted, and sums the Resource Timing transfer sizes (document + every resource).
plotly.js is counted apart: it loads only once a chart comes into view. Then the whole plate is
scrolled to the end, so every chart loads, for the plate's total.

Usage: python3 bench/pageweight.py            (prints a table; exit 1 if an embed is over budget)
"""
from __future__ import annotations

import sys
from pathlib import Path
from corpus.text import LANGS

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

EMBED_BUDGET = 300 * 1024  # bytes, compressed, first view of an embed before any chart library
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
PLOTLY = "/vendor/plotly.min.js"

_SIZES = """() => {
  const all = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')];
  return all.map(e => ({name: new URL(e.name).pathname, transfer: e.transferSize,
                        body: e.encodedBodySize, decoded: e.decodedBodySize}));
}"""


def weigh(page, url: str, scroll: bool = False) -> dict:
    page.goto(url)
    page.wait_for_selector("html[data-ready='1']", state="attached", timeout=30_000)
    page.wait_for_timeout(300)
    first = page.evaluate(_SIZES)
    out = {
        "first_view": sum(e["transfer"] for e in first if e["name"] != PLOTLY),
        "plotly_first_view": any(e["name"] == PLOTLY for e in first),
        "requests": len(first),
    }
    if scroll:
        height = page.evaluate("document.body.scrollHeight")
        for y in range(0, height + 900, 600):
            page.mouse.wheel(0, 600)
            page.wait_for_timeout(60)
        page.wait_for_load_state("networkidle")
        page.wait_for_timeout(500)
        every = page.evaluate(_SIZES)
        out["total"] = sum(e["transfer"] for e in every)
        out["plotly"] = sum(e["transfer"] for e in every if e["name"] == PLOTLY)
        out["requests_total"] = len(every)
    return out


def measure(base: str, embeds: list[str], browser) -> dict:
    results = {}
    for path in embeds + ["/en/specdec/", "/zh/specdec/"]:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        try:
            results[path] = weigh(page, base + path, scroll=not path.startswith("/embed/"))
        finally:
            context.close()
    return results


def main() -> int:
    from playwright.sync_api import sync_playwright

    from app import create_app
    from tests.conftest import LiveServer
    from views.sections import ANCHORS

    embeds = ([f"/embed/{lang}/specdec/" for lang in LANGS]
              + [f"/embed/{lang}/specdec/{a}/" for lang in LANGS for a in ANCHORS])
    with LiveServer(create_app({"RENDER_CACHE": True})) as srv, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            results = measure(srv.url, embeds, browser)
        finally:
            browser.close()

    kib = lambda n: f"{n / 1024:8.1f}"  # noqa: E731
    print("Transferred on first view (KiB, compressed, headers included; plotly.js apart)")
    print(f"{'page':<34} {'first view':>10} {'requests':>8}  plotly.js in first view")
    over = []
    for path, r in results.items():
        print(f"{path:<34} {kib(r['first_view']):>10} {r['requests']:>8}  "
              f"{'yes' if r['plotly_first_view'] else 'no'}")
        if path.startswith("/embed/") and r["first_view"] > EMBED_BUDGET:
            over.append(path)
    for path in ("/en/specdec/", "/zh/specdec/"):
        r = results[path]
        print(f"whole plate {path}: {kib(r['total']).strip()} KiB after scrolling to the end "
              f"({r['requests_total']} requests), of which plotly.js {kib(r['plotly']).strip()} KiB")
    worst = max((r["first_view"], p) for p, r in results.items() if p.startswith("/embed/"))
    print(f"largest embed first view: {worst[1]} {kib(worst[0]).strip()} KiB "
          f"(budget {EMBED_BUDGET // 1024} KiB): {'over: ' + ', '.join(over) if over else 'within'}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
