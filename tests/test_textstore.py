"""serving.textstore: the folder store and the Redis store, and two app servers sharing one.

The Redis tests run a real redis-server (Debian's package, installed by install.sh) on a free
loopback port in a temporary folder, started and stopped here; without one they are skipped,
saying why.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import socket
import subprocess
import time

import pytest

from app import create_app
from serving import labtexts, textstore
from sim import usertext

# One redis-server for the file, on one worker when the suite runs in parallel (--dist loadgroup).
pytestmark = pytest.mark.xdist_group("redis")

REFRAIN = ("Round the hill and back again , round the hill we go ; the hill is wide and the night is long . "
           "Round the mill and back again , round the mill we go ; the mill is wide and the night is long . ") * 6


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_dir_store_round_trip_and_refuses_bad_keys(tmp_path):
    store = textstore.DirStore(tmp_path, max_bytes=10_000)
    data = b"some text"
    assert store.get(sha(data)) is None
    assert store.put(sha(data), data) and store.get(sha(data)) == data
    assert [p.name for p in tmp_path.iterdir()] == [f"{sha(data)}.txt"]   # no temporary left
    with pytest.raises(ValueError):
        store.get("../../etc/passwd")
    # A torn or tampered file reads as missing (and goes).
    (tmp_path / f"{sha(data)}.txt").write_bytes(b"some tex")
    assert store.get(sha(data)) is None and not (tmp_path / f"{sha(data)}.txt").exists()


def test_dir_store_is_bounded_in_bytes_least_recently_used_first(tmp_path):
    store = textstore.DirStore(tmp_path, max_bytes=3_500)
    texts = [bytes([65 + i]) * 1000 for i in range(6)]
    for i, t in enumerate(texts[:3]):
        store.put(sha(t), t)
        os.utime(tmp_path / f"{sha(t)}.txt", (1_000_000 + i, 1_000_000 + i))  # distinct ages
    assert store.get(sha(texts[0])) == texts[0]      # read: now the most recently used
    store.put(sha(texts[3]), texts[3])               # 4,000 bytes > 3,500: the oldest unread goes
    assert store.get(sha(texts[1])) is None
    assert store.get(sha(texts[0])) == texts[0] and store.get(sha(texts[3])) == texts[3]
    for t in texts[4:]:
        store.put(sha(t), t)
    assert store.nbytes() <= 3_500
    assert store.put(sha(b"x" * 4000), b"x" * 4000) is False   # larger than the whole store


def test_two_workers_share_a_folder_store(tmp_path):
    # Two app servers (or two gunicorn workers) on one folder: a text sent to one is known to the
    # other, which counts it again; nothing falls back to the book.
    a = create_app({"TESTING": True, "TEXT_STORE_DIR": str(tmp_path)})
    b = create_app({"TESTING": True, "TEXT_STORE_DIR": str(tmp_path)})
    _shared_between(a, b)


def _shared_between(a, b):
    up = a.test_client().post("/api/lab/text?lang=en", data=REFRAIN.encode())
    assert up.status_code == 200
    h = up.get_json()["text"]
    labtexts.CACHE.clear()   # b is another process: it holds no models of the text
    run = b.test_client().get(f"/api/lab/run?text={h}&draft=lookup")
    assert run.status_code == 200 and run.get_json()["source"]["text"] == h
    page = b.test_client().get(f"/embed/en/specdec/lab/?text={h}&tlang=en")
    assert b'"text_missing": false' in page.data and b'"text_missing": true' not in page.data
    # A text neither holds is still a 404 naming text.
    r = b.test_client().get("/api/lab/run?text=" + "cd" * 32)
    assert r.status_code == 404 and r.get_json()["error"]["param"] == "text"


# ---- Redis ------------------------------------------------------------------------------------

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    exe = shutil.which("redis-server")
    if exe is None:
        pytest.skip("redis-server is not installed (Debian package redis-server; bash install.sh installs it)")
    pytest.importorskip("redis", reason="the redis Python package is not installed (pip install -e .)")
    import redis
    folder = tmp_path_factory.mktemp("redis")
    port = _free_port()
    # No persistence; 4 MB at most, least recently used keys evicted, as a classroom's Redis
    # would be configured (README) with a larger maxmemory.
    proc = subprocess.Popen([exe, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(folder),
                             "--save", "", "--appendonly", "no", "--maxmemory", "4mb",
                             "--maxmemory-policy", "allkeys-lru"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        for _ in range(100):
            try:
                if redis.Redis.from_url(url).ping():
                    break
            except redis.ConnectionError:
                time.sleep(0.05)
        else:
            pytest.fail("redis-server did not start")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def test_redis_store_round_trip_with_a_time_to_live(redis_url):
    import redis
    store = textstore.RedisStore(redis_url, ttl_s=600)
    data = "我们在山上看月亮".encode()
    assert store.get(sha(data)) is None
    assert store.put(sha(data), data) and store.get(sha(data)) == data
    r = redis.Redis.from_url(redis_url)
    assert 0 < r.ttl(textstore.REDIS_PREFIX + sha(data)) <= 600
    r.set(textstore.REDIS_PREFIX + sha(b"other"), b"tampered")
    assert store.get(sha(b"other")) is None


def test_redis_store_stays_within_the_servers_maxmemory(redis_url):
    import redis
    store = textstore.RedisStore(redis_url)
    texts = [bytes([97 + i % 26]) * 300_000 + str(i).encode() for i in range(40)]   # 12 MB in all
    for t in texts:
        store.put(sha(t), t)
    info = redis.Redis.from_url(redis_url).info("memory")
    assert info["used_memory"] <= info["maxmemory"]
    assert store.get(sha(texts[-1])) == texts[-1] and store.get(sha(texts[0])) is None


def test_two_app_servers_share_one_redis(redis_url, tmp_path):
    a = create_app({"TESTING": True, "TEXT_STORE_REDIS": redis_url, "TEXT_STORE_DIR": str(tmp_path / "a")})
    b = create_app({"TESTING": True, "TEXT_STORE_REDIS": redis_url, "TEXT_STORE_DIR": str(tmp_path / "b")})
    _shared_between(a, b)
    assert not any((tmp_path / "a").glob("*.txt"))   # Redis configured: the folder is not used


def test_a_redis_that_is_down_reads_as_missing_not_500(tmp_path):
    app = create_app({"TESTING": True, "TEXT_STORE_REDIS": f"redis://127.0.0.1:{_free_port()}/0"})
    c = app.test_client()
    up = c.post("/api/lab/text?lang=en", data=REFRAIN.encode() + b" down")
    assert up.status_code == 200     # counted here; only sharing is lost
    labtexts.CACHE.clear()
    r = c.get(f"/api/lab/run?text={up.get_json()['text']}")
    assert r.status_code == 404 and r.get_json()["error"]["param"] == "text"


def hung_redis():
    """A server that accepts connections and never answers (a hung Redis)."""
    hung = socket.socket()
    hung.bind(("127.0.0.1", 0))
    hung.listen(64)
    hung.setblocking(False)
    return hung, f"redis://127.0.0.1:{hung.getsockname()[1]}/0"


def asked(hung) -> int:
    """How many times the store came to the hung server since the last call: each ask that timed
    out drops its connection, so the next ask opens a new one. Counted, not timed: wall-clock
    bounds failed on a loaded machine."""
    n = 0
    while True:
        try:
            conn, _ = hung.accept()
        except BlockingIOError:
            return n
        conn.close()
        n += 1


def test_a_hung_redis_costs_one_short_wait_then_is_not_asked(tmp_path):
    # The first request waits the short time-out, the next ones do not ask Redis at all until
    # the breaker closes.
    hung, url = hung_redis()
    now = [1000.0]
    try:
        store = textstore.RedisStore(url, clock=lambda: now[0])
        h = "ab" * 32
        t0 = time.perf_counter()
        assert store.get(h) is None
        # It did wait for an answer, and not Redis's default (no time-out at all): a hang guard,
        # generous for a loaded machine.
        assert textstore.REDIS_TIMEOUT_S * 0.9 <= time.perf_counter() - t0 < 20 * textstore.REDIS_TIMEOUT_S
        assert store.broken and asked(hung) == 1
        for _ in range(20):
            assert store.get(h) is None and store.put(h, b"x") is False
        assert asked(hung) == 0                         # not asked while the breaker is open
        now[0] += textstore.REDIS_BREAK_S + 1            # the breaker closes: asked again
        assert not store.broken
        assert store.get(h) is None and store.broken
        assert asked(hung) == 1
    finally:
        hung.close()


def test_lab_requests_do_not_wait_on_a_hung_redis(tmp_path):
    hung, url = hung_redis()
    try:
        app = create_app({"TESTING": True, "TEXT_STORE_REDIS": url})
        c = app.test_client()
        for i in range(10):   # random hashes the worker does not hold: each would ask the store
            r = c.get(f"/api/lab/run?text={hashlib.sha256(bytes([i])).hexdigest()}")
            assert r.status_code == 404 and r.get_json()["error"]["param"] == "text"
        assert asked(hung) == 1   # one short time-out, not ten
    finally:
        hung.close()


def test_a_text_folder_that_cannot_be_made_falls_back_and_never_answers_500(tmp_path, caplog, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    fallback = tmp_path / "fallback"
    monkeypatch.setattr(textstore, "fallback_dirs", lambda: [blocker / "also", fallback])
    with caplog.at_level("WARNING", logger="serving.textstore"):
        store = textstore.from_config({"TEXT_STORE_DIR": str(blocker / "texts")})
    assert isinstance(store, textstore.DirStore) and store.folder == fallback
    assert str(fallback) in caplog.text and "instead of" in caplog.text
    # None can be made: no store, and still no 500.
    monkeypatch.setattr(textstore, "fallback_dirs", lambda: [blocker / "also"])
    app = create_app({"TESTING": True, "TEXT_STORE_DIR": str(blocker / "texts")})
    c = app.test_client()
    up = c.post("/api/lab/text?lang=en", data=REFRAIN.encode() + b" nowhere")
    assert up.status_code == 200
    labtexts.CACHE.clear()
    r = c.get(f"/api/lab/run?text={up.get_json()['text']}")
    assert r.status_code == 404 and r.get_json()["error"]["param"] == "text"
    assert c.get(f"/embed/en/specdec/lab/?text={up.get_json()['text']}").status_code == 200
