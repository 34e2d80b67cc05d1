"""HTTP caching and compression for a classroom at once: ETag, Cache-Control, compressed bodies.

Every page and every API answer here is a pure function of its URL (and of the language the
request resolves to): the models are fixed, the randomness is seeded from the query. So a
finished answer can be kept, keyed by what the request asks, and handed to the next reader who
asks the same. Nothing about a reader is kept: no sessions, no cookies, no per-user state; each
worker process holds its own bounded cache, so the app scales out by running more processes.

Three layers, all opt-out:
- The render cache (``serving.bytecache.ByteLRU``, bounded in bytes): the rendered body and its
  ETag per request, so the templates and `sim` run once per URL per worker rather than once per
  request. A page is keyed by the parameters it reads (its URL state), not its whole query, so
  a made-up parameter (``?x=1``, ``?x=2``, ...) never forces a new render.
- flask-compress (zstd, br, gzip) handed a second byte-bounded cache for the compressed bodies,
  so the compression also runs once per URL and encoding.
- Browser and proxy caching: strong ETags (304 on revalidation) and `Cache-Control`; static
  URLs built with `url_for('static', ...)` carry `?v=<content hash>` and are immutable for a
  year; unversioned static URLs (ES-module imports) get a short max-age and revalidate by ETag.
  Answers made from a reader's own text are ``private`` (``private()``): no shared cache keeps
  them. A page that could not be made as asked (``no_store()``: its text is not here yet) is
  neither kept nor cacheable, so it is made again once the text has arrived.

Config (all optional): `RENDER_CACHE` (bool; default on, off under `debug` and `TESTING` so
edited templates and monkeypatched tests are never served stale), `RENDER_CACHE_BYTES`,
`COMPRESS_CACHE_BYTES`, `PAGE_MAX_AGE_S`, `STATIC_MAX_AGE_S`.
"""
from __future__ import annotations

import hashlib
import os

from flask import Flask, Response, current_app, g, has_request_context, request
from flask_compress import Compress

from serving.bytecache import ByteLRU
from serving.hosts import CanonicalHost, configured_hosts
from sim.params import PAGE, SHOW

# Pages and API answers change only when the app is deployed again; five minutes bounds how
# long a browser keeps an old copy after that, and the ETag makes the re-check a cheap 304.
PAGE_MAX_AGE_S = 300
# Unversioned static files (modules imported by path from main.js): same reasoning.
STATIC_MAX_AGE_S = 300
# Versioned static URLs (?v=<hash of the content>) never change meaning: a year, immutable.
IMMUTABLE_MAX_AGE_S = 365 * 24 * 3600
# Per worker, in bytes (the body and its headers, as kept). A full page is ~0.25 MB and the
# largest answer (/api/run, 200 tokens at γ 8) ~0.3 MB, so this holds ~130 of them; a class uses
# a few dozen URLs (30 pages and embeds, the widgets' default requests), anything else is made
# again in at most ~0.3 s.
RENDER_CACHE_BYTES = 32 * 1024 * 1024
# Compressed bodies are 4-6x smaller than the raw ones (measured: a page 233 -> 41-48 kB, the
# largest run 294 -> 53-56 kB); files are kept too (by path, see _compress_key), and plotly.js is
# ~0.4 MB per encoding.
COMPRESS_CACHE_BYTES = 16 * 1024 * 1024

# Endpoints whose 200 answers depend only on the URL and the resolved language.
CACHEABLE_PREFIXES = ("plate.", "api.")
# Files: their compressed bytes are kept too (per path; files change only with a new deploy).
FILE_ENDPOINTS = ("static", "vendor")


def _cacheable_request() -> bool:
    ep = request.endpoint or ""
    return request.method in ("GET", "HEAD") and ep.startswith(CACHEABLE_PREFIXES)


def no_store() -> None:
    """This request's answer must be neither kept here nor by any browser or proxy (it is not
    what the URL will give once what it names has arrived)."""
    if has_request_context():
        g.specdec_no_store = True


def private() -> None:
    """This request's answer is made from a reader's own text: browsers may keep it, shared
    caches may not."""
    if has_request_context():
        g.specdec_private = True


def _page_params() -> frozenset[str]:
    return frozenset(PAGE) | frozenset(SHOW)   # the page's URL state, and how a teacher has it shown


def cache_key() -> str:
    """The render cache's key for the current request: language, host, and what is asked.

    Pages read only their URL state, so their key holds only those parameters (as given, in a
    fixed order): tracking tags or junk parameters map to the same entry. API routes refuse any
    parameter they do not know (400, never kept), so their key is the sorted query.
    """
    from flask_babel import get_locale
    # The host is part of the key: pages print their own address (the citation), so an answer
    # made for one Host header must never be served for another (no cache poisoning). The front
    # proxy (deploy/nginx.py) sends only the server's own names.
    args = request.args
    if (request.endpoint or "").startswith("plate."):
        names = _page_params()
        query = [(k, v) for k, v in args.items(multi=True) if k in names]
    else:
        query = list(args.items(multi=True))
    query.sort(key=lambda kv: kv[0])   # stable: repeated names keep their order
    return f"{get_locale()}|{request.host}|{request.path}|{query!r}"


def _compress_cacheable() -> bool:
    if g.get("specdec_no_store"):
        return False
    return _cacheable_request() or request.endpoint in FILE_ENDPOINTS


def _compress_key(req) -> str:
    # A file's bytes depend on its path only; dropping the query (?v=, or junk a client adds)
    # keeps the count of file entries fixed, so a few MB of plotly.js cannot be stored once per
    # made-up query string.
    if req.endpoint in FILE_ENDPOINTS:
        return f"file|{req.path}"
    return cache_key()


class _CompressCache:
    """flask-compress cache backend: a byte-bounded cache that only sees cacheable answers.

    flask-compress asks its backend about every compressed 2xx, POSTs included, with a key made
    from the URL alone; a POST's answer depends on its body, so it must never be stored.
    """

    def __init__(self, cache: ByteLRU):
        self.cache = cache

    def get(self, key):
        return self.cache.get(key) if _compress_cacheable() else None

    def set(self, key, value) -> None:
        # flask-compress stores again after every hit; an LRU needs no renewal, but it is harmless.
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
    render_bytes = int(cfg.get("RENDER_CACHE_BYTES", RENDER_CACHE_BYTES))
    compress_bytes = int(cfg.get("COMPRESS_CACHE_BYTES", COMPRESS_CACHE_BYTES))
    page_max_age = int(cfg.get("PAGE_MAX_AGE_S", PAGE_MAX_AGE_S))
    static_max_age = int(cfg.get("STATIC_MAX_AGE_S", STATIC_MAX_AGE_S))

    render_cache = ByteLRU(render_bytes) if enabled else None
    app.extensions["render_cache"] = render_cache

    # Forged Host headers: answered under the server's own name (serving/hosts.py).
    hosts = configured_hosts(cfg)
    if hosts:
        app.wsgi_app = CanonicalHost(app.wsgi_app, hosts)

    # Compression first: Flask runs after_request hooks in reverse order of registration, so
    # the ETag hook below runs before flask-compress, which then suffixes the ETag with the
    # encoding (":zstd") and answers If-None-Match itself.
    cfg.setdefault("COMPRESS_MIN_SIZE", 500)
    # Streamed files (static, plotly.js) are compressed on the fly; let both answer 304s.
    cfg.setdefault("COMPRESS_STREAMING_ENDPOINT_CONDITIONAL", ["static", "vendor"])
    if enabled:
        compressed = ByteLRU(compress_bytes)
        app.extensions["compress_cache"] = compressed
        cfg.setdefault("COMPRESS_CACHE_BACKEND", lambda: _CompressCache(compressed))
        cfg.setdefault("COMPRESS_CACHE_KEY", _compress_key)
    Compress(app)

    @app.before_request
    def _serve_cached():
        if render_cache is None or not _cacheable_request():
            return None
        key = cache_key()
        hit = render_cache.get(key)   # a hit moves the entry to the back of the line
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
        if g.get("specdec_no_store"):
            resp.headers["Cache-Control"] = "no-store"
            return resp
        if resp.headers.get("X-Render-Cache") == "hit":
            resp.headers.pop("X-Render-Cache")
        else:
            scope = "private" if g.get("specdec_private") else "public"
            if not ep.startswith("api.") or scope == "private":
                resp.headers["Cache-Control"] = f"{scope}, max-age={page_max_age}"
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
