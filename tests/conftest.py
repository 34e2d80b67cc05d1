"""Shared fixtures: the Flask app and client, a live server, and a Playwright page.

Browser fixtures drive the system's Chromium (its headless shell where it is installed,
bench/chromium.py); `playwright install` is never needed. Every request to another origin is
aborted and recorded, and console errors are collected, so a test can assert that the page stayed
on its own origin and logged no errors.
"""
from __future__ import annotations

import functools
import hashlib
import itertools
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
import threading
from urllib.parse import urlsplit

import pytest
from _pytest.assertion.rewrite import AssertionRewritingHook

# pytest rewrites the asserts of every module of a distribution that brings a pytest plugin, so
# all of hypothesis (some 90 modules; its plugin is in the same distribution) was parsed, rewritten
# and compiled from source in every test process, about 1.6 s of CPU each: its asserts are its
# own invariants, not our tests. Undone before hypothesis is first imported (just below); our
# tests' asserts are rewritten as before.
for _hook in sys.meta_path:
    if isinstance(_hook, AssertionRewritingHook) and "hypothesis" not in sys.modules:
        getattr(_hook, "_must_rewrite", set()).discard("hypothesis")
        getattr(_hook, "_marked_for_rewrite_cache", {}).clear()

from flask import Flask  # noqa: E402
from hypothesis import settings  # noqa: E402
from jinja2 import BytecodeCache  # noqa: E402
from werkzeug.serving import WSGIRequestHandler, make_server  # noqa: E402

from app import create_app  # noqa: E402
from bench import chromium  # noqa: E402
# The headless shell where it is installed (bench/chromium.py says why), else Chromium.
CHROMIUM = chromium.for_tests()

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


BROWSER_DIR = Path(__file__).resolve().parent / "browser"


def pytest_ignore_collect(collection_path, config):
    """tests/browser/ is not even imported when -m leaves out every browser test (the fast loop's
    `-m "not browser and not slow"`): importing its 26 modules and rewriting their asserts cost
    each xdist worker about 2 s of CPU, for tests deselected right after. Every module there is
    marked browser as a whole (tests/test_suite.py checks it), so the expression is asked with
    browser true and every other name it holds both ways: the folder is skipped only if no test
    in it could match."""
    if collection_path.name != "browser" or collection_path.resolve() != BROWSER_DIR:
        return None
    expr = config.getoption("markexpr") or ""
    if not expr or "=" in expr:      # no -m, or marks with arguments: collect as usual
        return None
    from _pytest.mark.expression import Expression
    compiled = Expression.compile(expr)
    others = sorted(set(re.findall(r"[\w.:+-]+", expr)) - {"and", "or", "not", "browser"})
    for values in itertools.product((False, True), repeat=len(others)):
        truth = {"browser": True, **dict(zip(others, values))}
        if compiled.evaluate(lambda name, **_kw: truth.get(name, False)):
            return None
    return True

# No WebGL: the bench's machine then shows its 2D diagram, as without WebGL; its own tests
# (tests/browser/test_machine.py) launch Chromium with software WebGL. Drawing it in every other
# browser test cost each of them seconds of CPU on software WebGL.
CHROMIUM_ARGS = chromium.PLAIN


class _SharedTemplates(BytecodeCache):
    """Jinja's compiled templates, kept for every app this test process creates, and on disk for
    the next run (``.pytest_cache/jinja/`` of this checkout). Each Flask app has its own Jinja
    environment, so each new app compiled the plate's 67 templates again on its first page: about
    2.5 s of CPU each time (measured on 2 December 2026), and the suite creates some 25 apps
    (test_headers, test_caching, test_origin, test_textstore, ...); each test process did it once
    more, every run. The key is Jinja's own (template name and file) with the environment's
    settings that change the compiled code; Jinja checks the source's checksum on every load, so
    an edited template is compiled afresh. Servers started by the tests (serve.sh) compile their
    own."""

    def __init__(self, folder: Path):
        self.code: dict[tuple, bytes] = {}
        self.folder = folder

    def _file(self, key: tuple) -> Path:
        return self.folder / (hashlib.sha256(repr(key).encode()).hexdigest()[:32] + ".jinja")

    @staticmethod
    def _key(bucket) -> tuple:
        env = bucket.environment
        return (bucket.key, tuple(sorted(env.extensions)), repr(env.autoescape), env.trim_blocks,
                env.lstrip_blocks, env.block_start_string, env.variable_start_string,
                env.comment_start_string, env.line_statement_prefix, env.line_comment_prefix,
                env.newline_sequence, env.keep_trailing_newline, env.optimized, repr(env.finalize))

    def load_bytecode(self, bucket) -> None:
        key = self._key(bucket)
        code = self.code.get(key)
        if code is None:
            try:
                code = self._file(key).read_bytes()
            except OSError:
                return
        bucket.bytecode_from_string(code)   # ignored if the source's checksum differs

    def dump_bytecode(self, bucket) -> None:
        key = self._key(bucket)
        self.code[key] = code = bucket.bytecode_to_string()
        # Written whole under a name of its own, then renamed: the other worker may be reading.
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            tmp = self._file(key).with_suffix(f".{os.getpid()}.tmp")
            tmp.write_bytes(code)
            os.replace(tmp, self._file(key))
        except OSError:
            pass   # a read-only checkout: compiled in memory only, as before


Flask.jinja_options = {**Flask.jinja_options,
                       "bytecode_cache": _SharedTemplates(Path(__file__).resolve().parents[1] / ".pytest_cache" / "jinja")}


@pytest.fixture(scope="session")
def app():
    return create_app({"TESTING": True})


@pytest.fixture()
def client(app):
    return app.test_client()


@pytest.fixture(scope="session")
def page_html(app):
    """page_html(url): the HTML of a GET of url (status 200 asserted), rendered once per test
    process. For tests that only read a page: a whole plate costs about 0.2 s of CPU to render
    (docs/performance.md), the render cache is off under TESTING, and the same URLs are read by
    many tests. A test that breaks a section, counts renders or checks headers still asks
    `client` for a fresh answer."""
    client = app.test_client()

    @functools.cache
    def get(url: str) -> str:
        resp = client.get(url)
        assert resp.status_code == 200, (url, resp.status_code)
        return resp.get_data(as_text=True)
    return get


class _QuietHandler(WSGIRequestHandler):
    """Errors are still logged; a line for every request (some 2 % of the browser tests' time, in
    the logging module's locks) is not."""

    def log_request(self, *args, **kwargs):
        pass


class LiveServer:
    """A WSGI app served on 127.0.0.1 at a free port, in a daemon thread."""

    def __init__(self, wsgi_app):
        self.server = make_server("127.0.0.1", 0, wsgi_app, threaded=True, request_handler=_QuietHandler)
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
    # The render cache on, as a server has it: no browser test patches this app, and without it
    # every page a browser test loads rendered the whole plate again and compressed it, and every
    # script was compressed again, about half the CPU of the browser tests (py-spy, 3 Dec 2026).
    with LiveServer(create_app({"TESTING": True, "RENDER_CACHE": True})) as srv:
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
