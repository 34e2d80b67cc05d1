"""Shared fixtures: the Flask app and client, a live server, and a Playwright page.

Browser fixtures drive the system Chromium (/usr/bin/chromium); `playwright install` is never
needed. Every request to another origin is aborted and recorded, and console errors are
collected, so a test can assert that the page stayed on its own origin and logged no errors.
"""
from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path
import threading
from urllib.parse import urlsplit

import pytest
from hypothesis import settings
from werkzeug.serving import make_server

from app import create_app

# Hypothesis times each example against a wall-clock deadline (200 ms by default); on a busy shared
# machine a slow moment is not a bug, and it failed test_params' range properties at a load of 18.
# Speed is measured by the benchmarks, not here.
settings.register_profile("specdec", deadline=None)
settings.load_profile("specdec")

# Readers' texts go to a folder of this test session, never to the user's own store
# (serving.textstore's default); a test that wants its own store passes TEXT_STORE_DIR. The
# classes live beside the texts (serving.classes.for_store), so the texts get a folder of their
# own inside the session's: beside a bare temporary folder they were /tmp/classes, shared by every
# run on the machine until it held MAX_CLASSES and refused the next.
SESSION_DIR = Path(tempfile.mkdtemp(prefix="specdec-test-"))
os.environ["SPECDEC_TEXT_DIR"] = str(SESSION_DIR / "texts")
os.environ.pop("SPECDEC_REDIS_URL", None)


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(SESSION_DIR, ignore_errors=True)

CHROMIUM = "/usr/bin/chromium"
# No WebGL: the bench's machine then shows its 2D diagram, as without WebGL; its own tests
# (tests/browser/test_machine.py) launch Chromium with software WebGL. Drawing it in every other
# browser test cost each of them seconds of CPU on software WebGL.
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-3d-apis", "--disable-background-networking"]


@pytest.fixture(scope="session")
def app():
    return create_app({"TESTING": True})


@pytest.fixture()
def client(app):
    return app.test_client()


class LiveServer:
    """A WSGI app served on 127.0.0.1 at a free port, in a daemon thread."""

    def __init__(self, wsgi_app):
        self.server = make_server("127.0.0.1", 0, wsgi_app, threaded=True)
        self.port = self.server.server_port
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.thread.join(timeout=5)


@pytest.fixture(scope="session")
def live_url():
    with LiveServer(create_app({"TESTING": True})) as srv:
        yield srv.url


@pytest.fixture(scope="session")
def playwright():
    """One Playwright per test process: a second sync_playwright() inside the first one's loop
    is refused, so every browser a test launches comes from this one."""
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"browser tests need Chromium at {CHROMIUM} (install.sh installs it)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("browser tests need the playwright Python package (pip install playwright)")
    with sync_playwright() as pw:
        yield pw


@pytest.fixture(scope="session")
def browser(playwright):
    b = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
    yield b
    b.close()


def _origin(url: str) -> str:
    u = urlsplit(url)
    return f"{u.scheme}://{u.netloc}"


def guard(page, allowed_origins: set[str]) -> None:
    """Record console errors and abort (and record) requests leaving the allowed origins."""
    page.console_errors = []
    page.foreign_requests = []

    def on_console(msg):
        if msg.type == "error":
            page.console_errors.append(msg.text)

    def on_foreign(route):
        page.foreign_requests.append(route.request.url)
        route.abort()

    page.on("console", on_console)
    page.on("pageerror", lambda err: page.console_errors.append(f"pageerror: {err}"))
    # Only requests leaving the allowed origins are intercepted: Playwright matches a regular
    # expression inside the browser, so the page's own ~45 requests never wait on a round trip
    # to this process (a "**/*" route made each full page load ~0.3 s slower).
    own = "|".join(re.escape(origin) + "/" for origin in sorted(allowed_origins))
    page.route(re.compile(rf"^(?!(?:{own}|data:|blob:|about:))"), on_foreign)


@pytest.fixture()
def page(browser, live_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    guard(pg, {_origin(live_url)})
    yield pg
    context.close()
