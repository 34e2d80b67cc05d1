"""Security and caching headers on every kind of route (views/caching.py, app.security_headers).

Kinds: the plate (both languages), the whole-plate embed, a one-section embed, an API answer,
an API error, an unknown API path, an HTML 404, a redirect, a static file, the vendored plotly.js.
"""
from __future__ import annotations

import re

import pytest

from app import create_app
from views.caching import LRUBytes

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
    real = plate.section_data
    monkeypatch.setattr(plate, "section_data", lambda *a: calls.append(a) or real(*a))
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


def test_lru_is_bounded_by_entries_and_bytes():
    lru = LRUBytes(max_entries=3, max_bytes=100)
    for i in range(5):
        lru.set(i, b"x" * 10)
    assert len(lru) == 3 and lru.get(0) is None and lru.get(4) == b"x" * 10
    lru.get(2)  # 2 is now the most recent; 3 is the oldest
    lru.set("big", (b"y" * 80, "etag"))
    # 10 + 10 + 80 > 100: the oldest entries go until the bytes fit.
    assert lru.nbytes <= 100 and lru.get(3) is None and lru.get("big") is not None
    lru.set("huge", b"z" * 101)  # larger than the whole cache: never stored
    assert lru.get("huge") is None and lru.nbytes <= 100


def test_render_cache_is_keyed_by_host(cclient):
    # The citation prints the page's own address: a spoofed Host must not poison the cache.
    evil = cclient.get("/en/specdec/?seed=4242", headers={"Host": "evil.example"})
    good = cclient.get("/en/specdec/?seed=4242", headers={"Host": "class.example"})
    assert b"evil.example" in evil.data
    assert b"evil.example" not in good.data and b"class.example" in good.data
