"""Security and caching headers on every kind of route (views/caching.py, app.security_headers).

Kinds: the plate (both languages), the whole-plate embed, a one-section embed, an API answer,
an API error, an unknown API path, an HTML 404, a redirect, a static file, the vendored plotly.js.
"""
from __future__ import annotations

import re

import pytest

from app import create_app
from serving.bytecache import size_of_bytes
from views import caching

BROWSER_AE = "gzip, deflate, br, zstd"  # what Chromium sends

# (path, expected status, is an embed)
ROUTES = [
    ("/en/specdec/", 200, False),
    ("/zh/specdec/", 200, False),
    ("/en/specdec/?gamma=99", 200, False),          # bad state value: a notice, not an error
    ("/embed/en/specdec/", 200, True),
    ("/embed/zh/specdec/tape/", 200, True),
    ("/embed/en/specdec/rule/", 200, True),
    ("/embed/en/specdec/nosuchsection/", 404, True),
    ("/api/theory?alpha=0.6&gamma=4&c=0.1", 200, False),
    ("/api/theory?gamma=999", 400, False),
    ("/api/nosuchroute", 404, False),
    ("/fr/specdec/", 404, False),
    ("/", 302, False),
    ("/static/js/main.js", 200, False),
    ("/static/css/plate.css", 200, False),
    ("/vendor/plotly.min.js", 200, False),
]


def directives(resp) -> dict[str, list[str]]:
    out = {}
    for part in resp.headers["Content-Security-Policy"].split(";"):
        words = part.split()
        if words:
            out[words[0]] = words[1:]
    return out


@pytest.fixture(scope="module")
def cached_app():
    # The render cache is off under TESTING by default; these tests switch it on.
    return create_app({"TESTING": True, "RENDER_CACHE": True})


@pytest.fixture()
def cclient(cached_app):
    return cached_app.test_client()


@pytest.mark.parametrize("path,status,embed", ROUTES)
def test_security_headers_on_every_route(client, path, status, embed):
    r = client.get(path)
    assert r.status_code == status, path
    csp = directives(r)
    # Scripts: our origin only; no inline code, no eval, no other host.
    assert csp["script-src"] == ["'self'"]
    assert csp["default-src"] == ["'self'"]
    assert csp["object-src"] == ["'none'"]
    assert csp["base-uri"] == ["'self'"]
    for name, sources in csp.items():
        for s in sources:
            assert s in ("'self'", "'none'", "'unsafe-inline'", "data:", "*"), (name, s)
        if name != "style-src":
            assert "'unsafe-inline'" not in sources, name
        if name != "frame-ancestors":
            assert "*" not in sources, name
    # Framing: anyone may embed /embed/..., nothing else leaves our own origin.
    if embed:
        assert csp["frame-ancestors"] == ["*"]
        assert "X-Frame-Options" not in r.headers
    else:
        assert csp["frame-ancestors"] == ["'self'"]
        assert r.headers["X-Frame-Options"] == "SAMEORIGIN"
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.headers["Referrer-Policy"] == "strict-origin-when-cross-origin"
    # Nothing per reader is kept: no cookie is ever set.
    assert "Set-Cookie" not in r.headers


@pytest.mark.parametrize("path,status,embed", ROUTES)
def test_same_headers_when_served_from_the_render_cache(cclient, path, status, embed):
    first = cclient.get(path, headers={"Accept-Encoding": BROWSER_AE})
    again = cclient.get(path, headers={"Accept-Encoding": BROWSER_AE})
    assert first.status_code == again.status_code == status
    assert first.data == again.data
    for h in ("Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy",
              "Cache-Control", "ETag", "Content-Encoding", "Content-Type"):
        assert first.headers.get(h) == again.headers.get(h), (path, h)
    assert "X-Render-Cache" not in again.headers


@pytest.mark.parametrize("path", ["/en/specdec/", "/embed/zh/specdec/", "/embed/en/specdec/draft/",
                                  "/api/theory", "/api/dist?context=the"])
@pytest.mark.parametrize("cached", [False, True])
def test_pages_and_answers_carry_etag_and_revalidate(client, cclient, path, cached):
    c = cclient if cached else client
    for ae in ("", BROWSER_AE):
        r = c.get(path, headers={"Accept-Encoding": ae} if ae else {})
        assert r.status_code == 200
        etag = r.headers["ETag"]
        assert re.fullmatch(r'"[0-9a-f]{40}(:(zstd|br|gzip|deflate))?"', etag), etag
        cc = r.headers["Cache-Control"]
        assert cc.startswith("public") and "max-age=300" in cc
        r304 = c.get(path, headers={"If-None-Match": etag, **({"Accept-Encoding": ae} if ae else {})})
        assert r304.status_code == 304 and r304.data == b""
        # A stale validator gets the full answer again.
        assert c.get(path, headers={"If-None-Match": '"stale"'}).status_code == 200


def test_api_errors_are_not_cached(cclient):
    for _ in range(2):
        r = cclient.get("/api/run?tokens=100000")
        assert r.status_code == 400
        assert r.headers["Cache-Control"] == "no-store"
        assert "ETag" not in r.headers
    assert r.get_json()["error"]["param"] == "tokens"


def test_compressed_for_browsers_and_plain_for_others(cclient):
    plain = cclient.get("/en/specdec/")
    assert "Content-Encoding" not in plain.headers
    assert "Accept-Encoding" in plain.headers["Vary"]
    for ae, enc in ((BROWSER_AE, "zstd"), ("gzip, deflate, br", "br"), ("gzip", "gzip")):
        r = cclient.get("/en/specdec/", headers={"Accept-Encoding": ae})
        assert r.headers["Content-Encoding"] == enc
        # HTML compresses at least 3:1; the point of compressing at all.
        assert len(r.data) * 3 < len(plain.data)
    import gzip
    r = cclient.get("/en/specdec/", headers={"Accept-Encoding": "gzip"})
    assert gzip.decompress(r.data) == plain.data


def test_api_answers_vary_on_language(client):
    r = client.get("/api/theory")
    assert "Accept-Language" in r.headers["Vary"]


def test_render_cache_serves_the_second_request_without_rendering(cached_app, monkeypatch):
    import views.plate as plate
    c = cached_app.test_client()
    calls = []
    real = plate._context   # one call per page rendered
    monkeypatch.setattr(plate, "_context", lambda *a, **k: calls.append(a) or real(*a, **k))
    url = "/embed/en/specdec/draft/?seed=12345"
    a = c.get(url)
    b = c.get(url)
    assert a.data == b.data and len(calls) == 1
    c.get(url + "&gamma=5")  # another URL is another entry
    assert len(calls) == 2


def test_static_urls_are_versioned_and_immutable(client):
    html = client.get("/embed/en/specdec/").get_data(as_text=True)
    urls = [u.replace("&amp;", "&") for u in re.findall(r'(?:href|src)="(/static/[^"]+)"', html)]
    assert urls and all(re.search(r"\?v=[0-9a-f]{12}$", u) for u in urls), urls
    for u in urls:
        r = client.get(u)
        assert r.status_code == 200
        assert r.headers["Cache-Control"] == "public, max-age=31536000, immutable"
    # An unversioned or stale URL (module imports) is cached briefly and revalidated by ETag.
    for u in ("/static/js/main.js", "/static/js/main.js?v=000000000000"):
        r = client.get(u)
        assert r.headers["Cache-Control"] == "public, max-age=300"
        assert client.get(u, headers={"If-None-Match": r.headers["ETag"]}).status_code == 304


def _count_calls(monkeypatch, module, name) -> list:
    calls = []
    real = getattr(module, name)
    monkeypatch.setattr(module, name, lambda *a, **k: calls.append(a) or real(*a, **k))
    return calls


def test_a_cached_answer_is_served_without_calling_sim(cached_app, monkeypatch):
    from views.sections import speculative as answers   # it calls sim.speculative.generate
    calls = _count_calls(monkeypatch, answers, "generate")
    c = cached_app.test_client()
    url = "/api/run?tokens=5&seed=90210"
    first = c.get(url)
    again = c.get(url)
    head = c.head(url)
    assert first.status_code == again.status_code == head.status_code == 200
    assert first.data == again.data and len(calls) == 1
    c.get(url + "&gamma=3")  # another URL runs the loop again
    assert len(calls) == 2


def _held(app, cache, urls, prefix="", headers=None) -> list[str]:
    """The URLs whose answers `cache` holds now."""
    out = []
    for u in urls:
        with app.test_request_context(u, headers=headers or {}):
            if prefix + caching.cache_key() in cache:
                out.append(u)
    return out


def _entry_bytes(app, url, headers=None) -> int:
    """What the render cache charges for one answer of this URL."""
    c = app.test_client()
    c.get(url, headers=headers or {})
    with app.test_request_context(url, headers=headers or {}):
        return size_of_bytes(app.extensions["render_cache"].get(caching.cache_key()))


def test_render_cache_is_bounded_in_bytes_and_drops_the_oldest(monkeypatch):
    from views.sections import speculative as answers   # it calls sim.speculative.generate
    n = 5
    probe = create_app({"TESTING": True, "RENDER_CACHE": True})
    size = _entry_bytes(probe, "/api/run?tokens=1&seed=999")   # every seed's answer: same size ± a few bytes
    app = create_app({"TESTING": True, "RENDER_CACHE": True, "RENDER_CACHE_BYTES": n * size + size // 2})
    c = app.test_client()
    calls = _count_calls(monkeypatch, answers, "generate")
    urls = [f"/api/run?tokens=1&seed={i}" for i in range(3 * n)]
    for u in urls:
        assert c.get(u).status_code == 200
    assert len(calls) == len(urls)
    cache = app.extensions["render_cache"]
    held = _held(app, cache, urls)
    # A full cache loses its oldest entries, not all of them, and never holds more bytes than allowed.
    assert len(held) == n, held
    assert held == urls[-n:] and cache.nbytes <= cache.max_bytes
    c.get(urls[-1])  # held: answered without running the loop
    assert len(calls) == len(urls)
    c.get(urls[0])   # dropped: made again
    assert len(calls) == len(urls) + 1


def test_one_huge_answer_cannot_fill_the_render_cache():
    # Bounded by bytes, not entries: an answer larger than the whole cache is not kept at all,
    # and what was kept stays.
    app = create_app({"TESTING": True, "RENDER_CACHE": True, "RENDER_CACHE_BYTES": 200_000})
    c = app.test_client()
    small, big = "/api/theory?alpha=0.5", "/api/run?tokens=100&gamma=8"   # ~3 kB and ~150 kB+
    c.get(small)
    c.get(big)
    cache = app.extensions["render_cache"]
    assert _held(app, cache, [small]) == [small]
    assert cache.nbytes <= 200_000
    huge = "/en/specdec/"   # ~250 kB: more than the whole cache
    assert c.get(huge).status_code == 200
    assert _held(app, cache, [huge]) == [] and _held(app, cache, [small]) == [small]


def test_an_answer_in_use_outlives_newer_unused_ones(monkeypatch):
    import sim.theory
    n = 4
    probe = create_app({"TESTING": True, "RENDER_CACHE": True})
    size = _entry_bytes(probe, "/api/theory?alpha=0.01")
    app = create_app({"TESTING": True, "RENDER_CACHE": True, "RENDER_CACHE_BYTES": n * size + size // 2})
    c = app.test_client()
    calls = _count_calls(monkeypatch, sim.theory, "summary")
    hot = "/api/theory?alpha=0.5"
    others = [f"/api/theory?alpha=0.{i:02d}" for i in range(1, 10 * n)]
    c.get(hot)
    for i, u in enumerate(others):
        c.get(u)
        if i % 3 == 2:
            # Read after every third new entry: with room for n, never the least recently
            # used, though older than entries stored after its first store.
            c.get(hot)
    assert sum(1 for a in calls if a[0] == 0.5) == 1  # computed once, then always a hit
    assert len(calls) == 1 + len(others)
    assert others[0] not in _held(app, app.extensions["render_cache"], others)


def test_compressed_cache_is_bounded_in_bytes_and_compresses_once(monkeypatch):
    import flask_compress.flask_compress as fc
    gz = {"Accept-Encoding": "gzip"}
    budget = 40_000   # each gzipped answer below is ~1-2 kB: room for a dozen or more, not 60
    app = create_app({"TESTING": True, "RENDER_CACHE": True, "COMPRESS_CACHE_BYTES": budget})
    c = app.test_client()
    calls = _count_calls(monkeypatch, fc, "_compress_data")
    urls = [f"/api/run?tokens=12&seed={i}" for i in range(60)]
    for u in urls:
        assert c.get(u, headers=gz).headers["Content-Encoding"] == "gzip"
    assert len(calls) == len(urls)
    cache = app.extensions["compress_cache"]
    held = _held(app, cache, urls, prefix="gzip;")
    assert 5 <= len(held) < len(urls) and urls[-1] in held and urls[0] not in held
    assert cache.nbytes <= budget
    c.get(urls[-1], headers=gz)
    assert len(calls) == len(urls)
    # A file is kept once per path and encoding, whatever query string a client adds.
    for q in ("", "?a=1", "?b=2"):
        r = c.get("/static/js/main.js" + q, headers=gz)
        assert r.status_code == 200 and r.headers["Content-Encoding"] == "gzip"
    assert len(calls) == len(urls) + 1


def test_posted_answers_are_never_served_from_the_compressed_cache():
    # The key is the URL; a POST's answer depends on its body, so it must never be reused.
    import gzip
    import json
    # The lab's answer is ~150 bytes: compress everything, so the cache is asked about it.
    app = create_app({"TESTING": True, "RENDER_CACHE": True, "COMPRESS_MIN_SIZE": 0})
    c = app.test_client()
    words = "the quick brown fox jumps over a lazy dog while the cat sleeps in the sun"
    hashes = set()
    for extra in ("", " and then it rains"):
        text = ((words + extra + " . ") * 20).encode()
        r = c.post("/api/lab/text?lang=en", data=text, headers={"Accept-Encoding": "gzip"})
        assert r.status_code == 200 and r.headers["Content-Encoding"] == "gzip"
        hashes.add(json.loads(gzip.decompress(r.data))["text"])
    assert len(hashes) == 2


def test_render_cache_is_keyed_by_host(cclient):
    # The citation prints the page's own address: a spoofed Host must not poison the cache.
    evil = cclient.get("/en/specdec/?seed=4242", headers={"Host": "evil.example"})
    good = cclient.get("/en/specdec/?seed=4242", headers={"Host": "class.example"})
    assert b"evil.example" in evil.data
    assert b"evil.example" not in good.data and b"class.example" in good.data
