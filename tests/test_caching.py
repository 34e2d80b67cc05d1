"""views/caching.py against the attacks of issue 16 (item 7): what forces a render, what is kept,
and who may keep answers made from a reader's text."""
from __future__ import annotations

import pytest

from app import create_app
from sim import usertext

REFRAIN = ("Round the hill and back again , round the hill we go ; the hill is wide and the night is long . "
           "Round the mill and back again , round the mill we go ; the mill is wide and the night is long . ") * 6


def _renders(monkeypatch) -> list:
    import views.plate as plate
    calls = []
    real = plate._context   # one call per page rendered
    monkeypatch.setattr(plate, "_context", lambda *a, **k: calls.append(a) or real(*a, **k))
    return calls


@pytest.fixture()
def cached_app(tmp_path):
    return create_app({"TESTING": True, "RENDER_CACHE": True, "TEXT_STORE_DIR": str(tmp_path)})


def test_unknown_parameters_do_not_force_a_render(cached_app, monkeypatch):
    calls = _renders(monkeypatch)
    c = cached_app.test_client()
    first = c.get("/embed/en/specdec/draft/?seed=77")
    for junk in ("x=1", "x=2", "utm_source=mail", "x=1&y=2", "fbclid=abc"):
        again = c.get(f"/embed/en/specdec/draft/?seed=77&{junk}")
        assert again.status_code == 200 and again.data == first.data
    assert len(calls) == 1
    # The order of the page's own parameters does not matter either; their values do.
    c.get("/embed/en/specdec/draft/?gamma=3&seed=77")
    c.get("/embed/en/specdec/draft/?seed=77&gamma=3")
    assert len(calls) == 2


def test_api_query_order_does_not_force_a_new_answer(cached_app, monkeypatch):
    import sim.theory
    calls = []
    real = sim.theory.summary
    monkeypatch.setattr(sim.theory, "summary", lambda *a, **k: calls.append(a) or real(*a, **k))
    c = cached_app.test_client()
    a = c.get("/api/theory?alpha=0.7&gamma=3")
    b = c.get("/api/theory?gamma=3&alpha=0.7")
    assert a.data == b.data and len(calls) == 1
    # Unknown parameters are refused (400), never answered from the cache.
    assert c.get("/api/theory?gamma=3&alpha=0.7&x=1").status_code == 400


def test_forged_hosts_are_answered_under_the_servers_name(tmp_path, monkeypatch):
    app = create_app({"TESTING": True, "RENDER_CACHE": True, "TEXT_STORE_DIR": str(tmp_path),
                      "SERVER_HOSTS": "class.example:5000, 192.0.2.7, localhost"})
    calls = _renders(monkeypatch)
    c = app.test_client()
    pages = [c.get("/en/specdec/?seed=4242", headers={"Host": f"evil{i}.example"}) for i in range(6)]
    assert len(calls) == 1 and all(p.data == pages[0].data for p in pages)
    assert b"evil" not in pages[0].data and b"class.example:5000" in pages[0].data
    # The server's own names are kept as sent (a name without a port, on any port).
    own = c.get("/en/specdec/?seed=4242", headers={"Host": "192.0.2.7:8080"})
    assert b"192.0.2.7:8080" in own.data and len(calls) == 2
    assert b"localhost:5000" in c.get("/en/specdec/?seed=4242", headers={"Host": "LOCALHOST:5000"}).data
    assert len(calls) == 3
    # A known name with another port than the one listed is not that name.
    assert b"class.example:5000" in c.get("/en/specdec/?seed=4242", headers={"Host": "class.example:6000"}).data


def test_a_page_rendered_before_its_text_arrives_is_not_kept(cached_app):
    c = cached_app.test_client()
    text = REFRAIN + " a text of this test alone ."   # no other test has sent it
    sha = usertext.digest(text.encode())
    url = f"/embed/en/specdec/lab/?text={sha}&tlang=en"
    before = c.get(url)
    assert before.status_code == 200 and b'"text_missing": true' in before.data
    assert before.headers["Cache-Control"] == "no-store" and "ETag" not in before.headers
    assert c.post("/api/lab/text?lang=en", data=text.encode()).status_code == 200
    after = c.get(url)
    assert b'"text_missing": false' in after.data and b'"text_missing": true' not in after.data
    assert after.headers["Cache-Control"].startswith("private")


def test_answers_made_from_a_readers_text_are_private(cached_app):
    c = cached_app.test_client()
    up = c.post("/api/lab/text?lang=en", data=REFRAIN.encode())
    assert up.headers["Cache-Control"] == "no-store"
    sha = up.get_json()["text"]
    for path in (f"/api/lab/run?text={sha}", f"/api/lab/drafts?text={sha}",
                 f"/api/lab/compare?text={sha}", f"/api/lab/tubes?text={sha}",
                 f"/en/specdec/?text={sha}&tlang=en", f"/embed/en/specdec/lab/?text={sha}&tlang=en"):
        for _ in range(2):   # made, then served from the render cache: private both times
            r = c.get(path)
            assert r.status_code == 200, path
            assert r.headers["Cache-Control"].startswith("private, max-age="), (path, r.headers["Cache-Control"])
    # The book's answers stay public.
    for path in ("/api/lab/run", "/en/specdec/", "/embed/en/specdec/lab/"):
        assert c.get(path).headers["Cache-Control"].startswith("public"), path
