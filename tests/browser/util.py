"""What the browser tests share: loading a page until its widgets are mounted, and waiting until
no section waits for an answer."""
from __future__ import annotations

import time

from playwright.sync_api import TimeoutError as PlaywrightTimeout

# main.js sets data-ready once every widget has been mounted (or has failed visibly).
READY = "html[data-ready='1']"
# Two animation frames: the IntersectionObserver reports a jump to #anchor in the frame after it,
# and sections.js decides what is near the view from those reports.
FRAMES = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


def load(page, url, timeout=30000):
    page.goto(url)
    # A selector, not wait_for_function: the strict CSP forbids the eval the latter uses.
    page.wait_for_selector(READY, state="attached", timeout=timeout)
    page.evaluate(FRAMES)


BUSY = ".plate-section[aria-busy='true'], [data-lazy-chart='loading']"


def settle(page, timeout=30):
    """Wait until no section is waiting for an answer and no chart asked for is still loading
    (twice, 150 ms apart: an answer may start another section's request). A chart that draws
    replaces its fallback table, so what was found in the table before is gone after."""
    deadline = time.time() + timeout
    page.evaluate(FRAMES)
    while time.time() < deadline:
        if page.locator(BUSY).count() == 0:
            page.wait_for_timeout(150)
            if page.locator(BUSY).count() == 0:
                return
        page.wait_for_timeout(100)
    raise AssertionError("sections still busy")


def open_fold(page, fold_id):
    """Open a section's "Go further" fold as a reader does, by its summary (issue 22: what is not
    a section's one point sits there, closed by default)."""
    fold = page.locator(f"details.further#{fold_id}")
    # Parts still loading above (a chart, the bench's machine) can move the summary between
    # Playwright's aim and its click, which then lands beside it; a reader would click again.
    for _ in range(3):
        if fold.evaluate("d => d.open"):
            return
        fold.locator("> summary").click()
        try:
            page.wait_for_function(f"() => document.getElementById('{fold_id}').open", timeout=10_000)
            return
        except PlaywrightTimeout:
            continue
    raise AssertionError(f"the fold #{fold_id} did not open when its summary was clicked three times")


# The bench's machine (static/js/machine.js) loads once its widget is within a screen of the view,
# and then takes the place of section 13's 2D diagram: a page is settled once every machine near
# the view has drawn (or given up: no WebGL, reduced motion).
MACHINES_SETTLED = """() => ![...document.querySelectorAll('.machine')].some(m => {
  const r = (m.closest('.widget') || m).getBoundingClientRect();
  return r.bottom > -innerHeight && r.top < 2 * innerHeight && ['waiting', 'loading'].includes(m.dataset.machine);
})"""
