"""HTTP caching and compression for a classroom at once: ETag, Cache-Control, compressed bodies.

Every page and every API answer here is a pure function of its URL (and of the language the
request resolves to): the models are fixed, the randomness is seeded from the query. So a
finished answer can be kept, keyed by the URL alone, and handed to the next reader who asks for
the same URL. Nothing about a reader is kept: no sessions, no cookies, no per-user state; each
worker process holds its own bounded cache, so the app scales out by running more processes.

Three layers, all opt-out:
- The render cache (Flask-Caching `SimpleCache`, bounded by entry count): the rendered body
  and its ETag per URL, so the templates and `sim` run once per URL per worker rather than
  once per request.
- flask-compress (zstd, br, gzip) handed a second Flask-Caching `SimpleCache` for the
  compressed bodies, so the compression also runs once per URL and encoding.
- Browser and proxy caching: strong ETags (304 on revalidation) and `Cache-Control`; static
  URLs built with `url_for('static', ...)` carry `?v=<content hash>` and are immutable for a
  year; unversioned static URLs (ES-module imports) get a short max-age and revalidate by ETag.

Config (all optional): `RENDER_CACHE` (bool; default on, off under `debug` and `TESTING` so
edited templates and monkeypatched tests are never served stale), `RENDER_CACHE_ENTRIES`
(at least 1), `PAGE_MAX_AGE_S`, `STATIC_MAX_AGE_S`.
"""
from __future__ import annotations

import hashlib
import os

from flask import Flask, Response, current_app, request
from flask_caching import Cache
from flask_compress import Compress

# Pages and API answers change only when the app is deployed again; five minutes bounds how
# long a browser keeps an old copy after that, and the ETag makes the re-check a cheap 304.
PAGE_MAX_AGE_S = 300
# Unversioned static files (modules imported by path from main.js): same reasoning.
STATIC_MAX_AGE_S = 300
# Versioned static URLs (?v=<hash of the content>) never change meaning: a year, immutable.
IMMUTABLE_MAX_AGE_S = 365 * 24 * 3600
# Per worker, counted in entries (SimpleCache's `threshold`; it prunes before inserting, so it
# holds at most one more). The largest answer (/api/run, 200 tokens at γ 8) is 0.29 MB and a
# full page 0.23 MB, so 100 entries stay under ~30 MB whatever URLs a crowd sends. A class uses
# a few dozen URLs (30 pages and embeds, the widgets' default requests); anything else is made
# again in at most ~0.3 s.
DEFAULT_ENTRIES = 100
# Compressed bodies are 4-6x smaller than the raw ones (measured: a page 233 -> 41-48 kB, the
# largest run 294 -> 53-56 kB), so four entries per render entry cost about the same memory
# (at most ~23 MB) and cover every URL in up to four encodings. Files are keyed by path alone
# (see _compress_key), so they add a fixed amount: plotly.js is ~1.45 MB per encoding.
COMPRESSED_PER_ENTRY = 4
# Answers never go stale within a deploy; the timeout only orders eviction. cachelib's
# SimpleCache drops expired entries first, then the soonest to expire (ties: the oldest stored),
# and it counts a timeout of 0 ("never") as already expired when pruning, which would empty the
# whole cache each time it fills. So: an hour (a lesson), and an entry is stored again when it
# is used, which makes the least recently used go first.
CACHE_TIMEOUT_S = 3600

# Endpoints whose 200 answers depend only on the URL and the resolved language.
CACHEABLE_PREFIXES = ("plate.", "api.")
# Files: their compressed bytes are kept too (per path; files change only with a new deploy).
FILE_ENDPOINTS = ("static", "plotly_js")


def _simple_cache(app: Flask, threshold: int) -> Cache:
    # Our own config dict, so CACHE_* keys meant for anything else never change these two; no
    # Jinja `{% cache %}` tag either (pages are cached whole, after rendering).
    return Cache(app, with_jinja2_ext=False, config={
        "CACHE_TYPE": "SimpleCache",
        "CACHE_THRESHOLD": threshold,
        "CACHE_DEFAULT_TIMEOUT": CACHE_TIMEOUT_S,
    })


def _cacheable_request() -> bool:
    ep = request.endpoint or ""
    return request.method in ("GET", "HEAD") and ep.startswith(CACHEABLE_PREFIXES)


def cache_key() -> str:
    """The render cache's key for the current request: language, host and path with query."""
    from flask_babel import get_locale
    # The host is part of the key: pages print their own address (the citation), so an answer
    # made for one Host header must never be served for another (no cache poisoning).
    return f"{get_locale()}|{request.host}|{request.full_path}"


def _compress_cacheable() -> bool:
    return _cacheable_request() or request.endpoint in FILE_ENDPOINTS


def _compress_key(req) -> str:
    # A file's bytes depend on its path only; dropping the query (?v=, or junk a client adds)
    # keeps the count of file entries fixed, so a few MB of plotly.js cannot be stored once per
    # made-up query string.
    if req.endpoint in FILE_ENDPOINTS:
        return f"file|{req.path}"
    return cache_key()


class _CompressCache:
    """flask-compress cache backend: a Flask-Caching cache that only sees cacheable answers.

    flask-compress asks its backend about every compressed 2xx, POSTs included, with a key made
    from the URL alone; a POST's answer depends on its body, so it must never be stored.
    """

    def __init__(self, cache: Cache):
        self.cache = cache

    def get(self, key):
        return self.cache.get(key) if _compress_cacheable() else None

    def set(self, key, value) -> None:
        # flask-compress stores again after every hit, renewing the expiry: entries in use
        # outlast the rest (to the second, which is cachelib's resolution).
        if _compress_cacheable():
            self.cache.set(key, value)


# ---- static files: content-hashed URLs -----------------------------------------------------------

_hash_memo: dict[str, tuple[float, str]] = {}


def static_version(app: Flask, filename: str) -> str | None:
    """Short hash of a static file's bytes (memoised per modification time)."""
    path = os.path.join(app.static_folder, filename)
    try:
        mtime = os.stat(path).st_mtime
    except OSError:
        return None
    hit = _hash_memo.get(path)
    if hit and hit[0] == mtime:
        return hit[1]
    with open(path, "rb") as f:
        v = hashlib.sha256(f.read()).hexdigest()[:12]
    _hash_memo[path] = (mtime, v)
    return v


def init_app(app: Flask) -> None:
    cfg = app.config
    enabled = cfg.get("RENDER_CACHE")
    if enabled is None:
        enabled = not (app.debug or cfg.get("TESTING"))
    # cachelib reads a threshold of 0 as its default (500), so the floor is one entry.
    entries = max(1, int(cfg.get("RENDER_CACHE_ENTRIES", DEFAULT_ENTRIES)))
    page_max_age = int(cfg.get("PAGE_MAX_AGE_S", PAGE_MAX_AGE_S))
    static_max_age = int(cfg.get("STATIC_MAX_AGE_S", STATIC_MAX_AGE_S))

    render_cache = _simple_cache(app, entries) if enabled else None
    app.extensions["render_cache"] = render_cache

    # Compression first: Flask runs after_request hooks in reverse order of registration, so
    # the ETag hook below runs before flask-compress, which then suffixes the ETag with the
    # encoding (":zstd") and answers If-None-Match itself.
    cfg.setdefault("COMPRESS_MIN_SIZE", 500)
    # Streamed files (static, plotly.js) are compressed on the fly; let both answer 304s.
    cfg.setdefault("COMPRESS_STREAMING_ENDPOINT_CONDITIONAL", ["static", "plotly_js"])
    if enabled:
        compressed = _simple_cache(app, COMPRESSED_PER_ENTRY * entries)
        app.extensions["compress_cache"] = compressed
        cfg.setdefault("COMPRESS_CACHE_BACKEND", lambda: _CompressCache(compressed))
        cfg.setdefault("COMPRESS_CACHE_KEY", _compress_key)
    Compress(app)

    @app.before_request
    def _serve_cached():
        if render_cache is None or not _cacheable_request():
            return None
        key = cache_key()
        hit = render_cache.get(key)
        if hit is None:
            return None
        # Stored again (deleted first, so it moves to the back of the line): entries in use are
        # evicted last, and the entry pages warmed in the gunicorn master stay.
        render_cache.delete(key)
        render_cache.set(key, hit)
        body, etag, mimetype, cache_control = hit
        resp = Response(body, status=200, mimetype=mimetype)
        resp.set_etag(etag)
        resp.headers["Cache-Control"] = cache_control
        resp.headers["X-Render-Cache"] = "hit"
        return resp

    @app.after_request
    def _etag_and_store(resp: Response) -> Response:
        ep = request.endpoint or ""
        if ep in FILE_ENDPOINTS and render_cache is not None and resp.status_code == 200 \
                and resp.is_streamed and request.method == "GET":
            # A file is streamed from disk by default, and flask-compress then compresses it
            # chunk by chunk on every request (slow: ~12 MB/s). Read into memory instead, so the
            # compressed bytes come from the cache; our files are at most a few MB.
            resp.direct_passthrough = False
            resp.set_data(resp.get_data())
        if ep == "static":
            v = request.args.get("v")
            if v and v == static_version(current_app, request.view_args.get("filename", "")):
                resp.headers["Cache-Control"] = f"public, max-age={IMMUTABLE_MAX_AGE_S}, immutable"
            elif resp.status_code in (200, 304):
                resp.headers["Cache-Control"] = f"public, max-age={static_max_age}"
            return resp
        if not _cacheable_request() or resp.status_code != 200 or resp.is_streamed:
            return resp
        if resp.headers.get("X-Render-Cache") == "hit":
            resp.headers.pop("X-Render-Cache")
        else:
            if not ep.startswith("api."):
                resp.headers["Cache-Control"] = f"public, max-age={page_max_age}"
            resp.add_etag()
            if render_cache is not None and request.method == "GET":
                etag, _weak = resp.get_etag()
                render_cache.set(cache_key(), (resp.get_data(), etag, resp.mimetype,
                                               resp.headers.get("Cache-Control", "")))
        if ep.startswith("api."):
            # The cache key holds the resolved language; shared caches must key on it too.
            resp.vary.add("Accept-Language")
        resp.make_conditional(request)
        return resp

    @app.url_defaults
    def _static_version(endpoint, values):
        if endpoint == "static" and "filename" in values and "v" not in values:
            v = static_version(app, values["filename"])
            if v:
                values["v"] = v
