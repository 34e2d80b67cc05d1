"""HTTP caching and compression for a classroom at once: ETag, Cache-Control, compressed bodies.

Every page and every API answer here is a pure function of its URL (and of the language the
request resolves to): the models are fixed, the randomness is seeded from the query. So a
finished answer can be kept, keyed by the URL alone, and handed to the next reader who asks for
the same URL. Nothing about a reader is kept: no sessions, no cookies, no per-user state; each
worker process holds its own bounded cache, so the app scales out by running more processes.

Three layers, all opt-out:
- `RenderCache` (in-process, bounded LRU): the rendered body and its ETag per URL, so the
  templates and `sim` run once per URL per worker rather than once per request.
- flask-compress (zstd, br, gzip) with the same kind of bounded cache of compressed bodies,
  so the compression also runs once per URL and encoding.
- Browser and proxy caching: strong ETags (304 on revalidation) and `Cache-Control`; static
  URLs built with `url_for('static', ...)` carry `?v=<content hash>` and are immutable for a
  year; unversioned static URLs (ES-module imports) get a short max-age and revalidate by ETag.

Config (all optional): `RENDER_CACHE` (bool; default on, off under `debug` and `TESTING` so
edited templates and monkeypatched tests are never served stale), `RENDER_CACHE_ENTRIES`,
`RENDER_CACHE_BYTES`, `PAGE_MAX_AGE_S`, `STATIC_MAX_AGE_S`.
"""
from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict

from flask import Flask, Response, current_app, request
from flask_compress import Compress

# Pages and API answers change only when the app is deployed again; five minutes bounds how
# long a browser keeps an old copy after that, and the ETag makes the re-check a cheap 304.
PAGE_MAX_AGE_S = 300
# Unversioned static files (modules imported by path from main.js): same reasoning.
STATIC_MAX_AGE_S = 300
# Versioned static URLs (?v=<hash of the content>) never change meaning: a year, immutable.
IMMUTABLE_MAX_AGE_S = 365 * 24 * 3600
# Per worker. The largest answer (/api/run at its caps) is about 0.3 MB, a page about 0.2 MB;
# 32 MiB holds a hundred or more of them and bounds memory whatever URLs a crowd sends.
DEFAULT_ENTRIES = 512
DEFAULT_BYTES = 32 * 1024 * 1024

# Endpoints whose 200 answers depend only on the URL and the resolved language.
CACHEABLE_PREFIXES = ("plate.", "api.")
# Files: their compressed bytes are kept too (per URL; files change only with a new deploy).
FILE_ENDPOINTS = ("static", "plotly_js")


class LRUBytes:
    """A thread-safe LRU map bounded by entry count and by total bytes of the values."""

    def __init__(self, max_entries: int = DEFAULT_ENTRIES, max_bytes: int = DEFAULT_BYTES):
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._d: OrderedDict = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    @staticmethod
    def _size(value) -> int:
        return len(value[0]) if isinstance(value, tuple) else len(value)

    def get(self, key):
        with self._lock:
            v = self._d.get(key)
            if v is not None:
                self._d.move_to_end(key)
            return v

    def set(self, key, value) -> None:
        size = self._size(value)
        if size > self.max_bytes:
            return
        with self._lock:
            old = self._d.pop(key, None)
            if old is not None:
                self._bytes -= self._size(old)
            self._d[key] = value
            self._bytes += size
            while self._d and (len(self._d) > self.max_entries or self._bytes > self.max_bytes):
                _k, dropped = self._d.popitem(last=False)
                self._bytes -= self._size(dropped)

    def __len__(self) -> int:
        return len(self._d)

    @property
    def nbytes(self) -> int:
        return self._bytes

    def clear(self) -> None:
        with self._lock:
            self._d.clear()
            self._bytes = 0


def _cacheable_request() -> bool:
    ep = request.endpoint or ""
    return request.method in ("GET", "HEAD") and ep.startswith(CACHEABLE_PREFIXES)


def _key() -> str:
    from flask_babel import get_locale
    # The host is part of the key: pages print their own address (the citation), so an answer
    # made for one Host header must never be served for another (no cache poisoning).
    return f"{get_locale()}|{request.host}|{request.full_path}"


def _compress_cacheable() -> bool:
    return _cacheable_request() or request.endpoint in FILE_ENDPOINTS


class _CompressCache:
    """flask-compress cache backend that only keeps answers of cacheable endpoints and files."""

    def __init__(self, lru: LRUBytes):
        self.lru = lru

    def get(self, key):
        return self.lru.get(key) if _compress_cacheable() else None

    def set(self, key, value) -> None:
        if _compress_cacheable():
            self.lru.set(key, value)


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
    entries = int(cfg.get("RENDER_CACHE_ENTRIES", DEFAULT_ENTRIES))
    nbytes = int(cfg.get("RENDER_CACHE_BYTES", DEFAULT_BYTES))
    page_max_age = int(cfg.get("PAGE_MAX_AGE_S", PAGE_MAX_AGE_S))
    static_max_age = int(cfg.get("STATIC_MAX_AGE_S", STATIC_MAX_AGE_S))

    render_cache = LRUBytes(entries, nbytes) if enabled else None
    app.extensions["render_cache"] = render_cache

    # Compression first: Flask runs after_request hooks in reverse order of registration, so
    # the ETag hook below runs before flask-compress, which then suffixes the ETag with the
    # encoding (":zstd") and answers If-None-Match itself.
    cfg.setdefault("COMPRESS_MIN_SIZE", 500)
    # Streamed files (static, plotly.js) are compressed on the fly; let both answer 304s.
    cfg.setdefault("COMPRESS_STREAMING_ENDPOINT_CONDITIONAL", ["static", "plotly_js"])
    if enabled:
        compressed_lru = LRUBytes(entries, nbytes)
        app.extensions["compress_cache"] = compressed_lru
        cfg.setdefault("COMPRESS_CACHE_BACKEND", lambda: _CompressCache(compressed_lru))
        cfg.setdefault("COMPRESS_CACHE_KEY", lambda req: _key())
    Compress(app)

    @app.before_request
    def _serve_cached():
        if render_cache is None or not _cacheable_request():
            return None
        hit = render_cache.get(_key())
        if hit is None:
            return None
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
                render_cache.set(_key(), (resp.get_data(), etag, resp.mimetype,
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
