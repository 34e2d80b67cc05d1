"""The browser fixtures' guard (tests/conftest.py), which every "stays on its own origin" check
relies on: requests to another origin are recorded and aborted, the page's own go through."""
import pytest

from tests.conftest import LiveServer, guard

pytestmark = pytest.mark.browser

# No CSP here (the app's own pages would refuse these before any request is made).
PAGE = (b'<!doctype html><title>guard</title><img src="/own.png">'
        b'<img src="http://127.0.0.2:9/foreign.png"><script src="http://127.0.0.3:9/foreign.js"></script>')


def _app(environ, start_response):
    if environ["PATH_INFO"] == "/":
        start_response("200 OK", [("Content-Type", "text/html")])
        return [PAGE]
    start_response("404 Not Found", [("Content-Type", "text/plain")])
    return [b""]


def test_guard_records_and_aborts_only_foreign_requests(browser):
    with LiveServer(_app) as srv:
        ctx = browser.new_context()
        pg = ctx.new_page()
        guard(pg, {srv.url})
        failed, finished = [], []
        pg.on("requestfailed", lambda r: failed.append(r.url))
        pg.on("requestfinished", lambda r: finished.append(r.url))
        pg.goto(srv.url + "/")
        pg.wait_for_load_state("networkidle")
        ctx.close()
    assert sorted(pg.foreign_requests) == ["http://127.0.0.2:9/foreign.png",
                                           "http://127.0.0.3:9/foreign.js"]
    assert sorted(failed) == sorted(pg.foreign_requests)          # aborted, never fetched
    assert f"{srv.url}/own.png" in finished                       # own origin: not intercepted
