"""A class's predictions (serving/classes.py, views/classroom.py): anonymous counts, one answer per
question per tab, nothing kept after closing or 24 hours, bounded, rate-limited, refusals in the
reader's language; and 60 students answering at once through the real server (nginx + gunicorn,
two workers) with every count checked."""
from __future__ import annotations

import http.client
import json
import random
import threading

import pytest

from serving import classes as C
from serving import textstore
from serving.textstore import DirStore
from tests import serve_util


class Clock:
    def __init__(self, t=1_000_000.0):
        self.t = t

    def __call__(self):
        return self.t


def test_counts_one_answer_per_question_per_tab(tmp_path):
    cls = C.DirClasses(tmp_path)
    code, key = cls.open()
    assert C.CODE.fullmatch(code) and len(key) == 32
    cls.answer(code, "tape", 2, "a" * 16)
    cls.answer(code, "tape", 3, "b" * 16)
    cls.answer(code, "exact", 1, "a" * 16)
    with pytest.raises(C.ClassError) as e:
        cls.answer(code, "tape", 1, "a" * 16)     # the same tab again, another option
    assert e.value.kind == "answered"
    assert cls.counts(code, key)["counts"] == {"tape": {"2": 1, "3": 1}, "exact": {"1": 1}}
    with pytest.raises(C.ClassError) as e:
        cls.counts(code, "0" * 32)
    assert e.value.kind == "key"


def test_nothing_is_kept_after_closing_or_24_hours(tmp_path):
    clock = Clock()
    cls = C.DirClasses(tmp_path, clock=clock)
    code, key = cls.open()
    cls.answer(code, "tape", 2, "a" * 16)
    cls.close(code, key)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(C.ClassError) as e:
        cls.answer(code, "tape", 2, "c" * 16)
    assert e.value.kind == "closed"
    code, key = cls.open()
    cls.answer(code, "tape", 2, "a" * 16)
    clock.t += C.LIFETIME_S + 1
    assert not cls.is_open(code)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(C.ClassError):
        cls.counts(code, key)


def test_bounded_in_classes_and_answers(tmp_path, monkeypatch):
    monkeypatch.setattr(C, "MAX_CLASSES", 3)
    monkeypatch.setattr(C, "MAX_ANSWERS", 5)
    cls = C.DirClasses(tmp_path)
    codes = [cls.open() for _ in range(3)]
    with pytest.raises(C.ClassError) as e:
        cls.open()
    assert e.value.kind == "full"
    code, key = codes[0]
    for i in range(5):
        cls.answer(code, "tape", 1, f"{i:016x}")
    with pytest.raises(C.ClassError) as e:
        cls.answer(code, "tape", 1, f"{99:016x}")
    assert e.value.kind == "full"
    assert cls.counts(code, key)["counts"] == {"tape": {"1": 5}}
    # What a class holds on disk: empty files, their names only.
    assert sum(p.stat().st_size for p in (tmp_path / code).iterdir()) < 200


def test_rate_limited_per_class(monkeypatch):
    b = C._Bucket()
    now = 100.0
    took = sum(b.take("AAAAAA", now) for _ in range(C.RATE_BURST + 50))
    assert took == C.RATE_BURST
    assert b.take("BBBBBB", now)          # another class is not held back
    assert b.take("AAAAAA", now + 1.0)    # refilled after a second


def test_classes_live_beside_the_texts(tmp_path):
    store = DirStore(tmp_path / "texts")
    cls = C.for_store(store)
    assert isinstance(cls, C.DirClasses) and cls.root == tmp_path / "classes"


@pytest.mark.parametrize("bad", [{"q": "tape", "option": 0, "tab": "a" * 16}, {"q": "Tape!", "option": 1, "tab": "a" * 16},
                                 {"q": "tape", "option": 1, "tab": "short"}, {}])
def test_a_bad_answer_is_refused_by_name(client, bad):
    code = client.post("/api/class").get_json()["code"]
    r = client.post(f"/api/class/{code}/answer", json=bad)
    assert r.status_code == 400 and "option from 1 to 9" in r.get_json()["error"]["message"]


@pytest.mark.parametrize("lang, words", [("en", "is not open"), ("zh", "没有开放")])
def test_a_closed_code_is_refused_clearly_in_the_readers_language(client, lang, words):
    made = client.post("/api/class").get_json()
    code, key = made["code"], made["key"]
    assert client.get(f"/api/class/{code}").status_code == 200
    assert client.post(f"/api/class/{code}/close", headers={"X-Class-Key": key}).status_code == 200
    for r in (client.get(f"/api/class/{code}", headers={"Accept-Language": lang}),
              client.post(f"/api/class/{code}/answer", json={"q": "tape", "option": 1, "tab": "a" * 16},
                          headers={"Accept-Language": lang})):
        assert r.status_code == 410
        assert words in r.get_json()["error"]["message"] and code in r.get_json()["error"]["message"]
        assert r.headers["Cache-Control"] == "no-store"
    r = client.get("/api/class/ZZZZZZ", headers={"Accept-Language": lang})
    assert r.status_code == 410


def test_no_cookies_and_no_names(client):
    made = client.post("/api/class")
    r = client.post(f"/api/class/{made.get_json()['code']}/answer", json={"q": "tape", "option": 1, "tab": "a" * 16})
    assert "Set-Cookie" not in made.headers and "Set-Cookie" not in r.headers


def test_teacher_screen_shows_the_lessons_questions(client):
    code = client.post("/api/class").get_json()["code"]
    r = client.get(f"/zh/specdec/class/{code}/?sections=tape,exact&depth=story")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert 'data-q="tape-story"' in html and 'data-q="exact-story"' in html
    assert f"class={code}" in html and "sections=tape,exact" in html
    assert client.get("/en/specdec/class/bad/").status_code == 404


# ---- Redis: the same counts, one rate for every worker, never a stalled route ----------------------

from tests.test_textstore import asked, hung_redis, redis_url  # noqa: E402,F401  (redis_url: a redis-server of this module)


def test_redis_classes_count_close_and_expire_as_the_folder_does(redis_url):
    clock = Clock()
    cls = C.RedisClasses(redis_url, clock=clock)
    code, key = cls.open()
    cls.answer(code, "tape", 2, "a" * 16)
    cls.answer(code, "tape", 3, "b" * 16)
    with pytest.raises(C.ClassError) as e:
        cls.answer(code, "tape", 1, "a" * 16)
    assert e.value.kind == "answered"
    other = C.RedisClasses(redis_url, clock=clock)          # another worker sees the same counts
    assert other.counts(code, key)["counts"] == {"tape": {"2": 1, "3": 1}}
    with pytest.raises(C.ClassError) as e:
        other.counts(code, "0" * 32)
    assert e.value.kind == "key"
    other.close(code, key)
    assert not cls.is_open(code)
    code, key = cls.open()
    clock.t += C.LIFETIME_S + 1
    assert not cls.is_open(code)


def test_the_rate_holds_across_workers_with_redis(redis_url, monkeypatch):
    # Two workers (two clients of one Redis) draw from one bucket per class: together they get
    # the burst, not each of them.
    monkeypatch.setattr(C, "RATE_BURST", 6)
    monkeypatch.setattr(C, "RATE_PER_S", 0.5)
    a, b = C.RedisClasses(redis_url), C.RedisClasses(redis_url)
    took = [w.rate_ok("RATEAA") for w in (a, b) * 5]
    assert took == [True] * 6 + [False] * 4
    assert b.rate_ok("RATEBB")                          # another class is not held back
    # Without Redis the bucket is this process's (said in serving/classes.py and in the log).
    assert C.DirClasses.rate_ok is C._Classes.rate_ok


def test_a_hung_redis_costs_the_classes_one_short_wait(monkeypatch):
    hung, url = hung_redis()
    try:
        now = [1000.0]
        cls = C.RedisClasses(url, breaker=textstore.Breaker(clock=lambda: now[0]))
        with pytest.raises(C.ClassError) as e:
            cls.open()
        assert e.value.kind == "down" and cls.breaker.broken and asked(hung) == 1
        for _ in range(20):
            for call in (cls.open, lambda: cls.answer("ABCDEF", "tape", 1, "a" * 16),
                         lambda: cls.counts("ABCDEF", "k"), lambda: cls.is_open("ABCDEF")):
                with pytest.raises(C.ClassError) as e:
                    call()
                assert e.value.kind == "down"
            assert cls.rate_ok("ABCDEF")                  # this process's bucket meanwhile
        assert asked(hung) == 0                           # not asked while the breaker is open
        # The texts' store and the classes ask the same Redis through one breaker.
        store = textstore.RedisStore(url)
        assert C.for_store(store).breaker is store.breaker
    finally:
        hung.close()


@pytest.mark.parametrize("lang, words", [("en", "cannot be reached"), ("zh", "暂时")])
def test_class_routes_do_not_wait_on_a_hung_redis(lang, words):
    from app import create_app
    hung, url = hung_redis()
    try:
        c = create_app({"TESTING": True, "TEXT_STORE_REDIS": url}).test_client()
        h = {"Accept-Language": lang, "X-Class-Key": "k"}
        for _ in range(5):
            for r in (c.post("/api/class", headers=h), c.get("/api/class/ABCDEF", headers=h),
                      c.post("/api/class/ABCDEF/answer", json={"q": "tape", "option": 1, "tab": "a" * 16}, headers=h),
                      c.get("/api/class/ABCDEF/counts", headers=h), c.post("/api/class/ABCDEF/close", headers=h)):
                err = r.get_json()["error"]
                assert r.status_code == 503 and err["kind"] == "down" and words in err["message"], err
        assert asked(hung) == 1                            # one short time-out, not 25
    finally:
        hung.close()


# ---- through the real server ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """serve.sh as tests/test_serve.py starts it: nginx in front of two gunicorn workers."""
    with serve_util.serving(tmp_path_factory) as (port, proc, _log):
        yield port, proc


QUESTIONS = ("tape", "exact", "alpha-story")


def _post(port, path, body, headers=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("POST", path, body=json.dumps(body) if body is not None else None,
                     headers={"Content-Type": "application/json", **(headers or {})})
        r = conn.getresponse()
        return r.status, dict(r.getheaders()), r.read()
    finally:
        conn.close()


@pytest.mark.slow
def test_sixty_students_answer_at_once_through_the_real_server(server):
    port, _ = server
    status, _h, body = _post(port, "/api/class", None)
    assert status == 201
    made = json.loads(body)
    code, key = made["code"], made["key"]
    rng = random.Random(23)
    students = [{"tab": f"{i:032x}", "answers": {q: rng.randint(1, 3) for q in QUESTIONS}} for i in range(60)]
    expected = {q: {} for q in QUESTIONS}
    for s in students:
        for q, opt in s["answers"].items():
            expected[q][str(opt)] = expected[q].get(str(opt), 0) + 1
    start = threading.Barrier(60)
    results, errors = [], []

    def student(s):
        try:
            start.wait(timeout=60)
            for q, opt in s["answers"].items():
                for _attempt in range(30):     # as the page does: a 429 is sent again a moment later
                    st, h, b = _post(port, f"/api/class/{code}/answer", {"q": q, "option": opt, "tab": s["tab"]})
                    if st != 429:
                        break
                    threading.Event().wait(float(h.get("Retry-After", 1)))
                results.append(st)
            # A second answer from the same tab is not counted.
            st, _h, _b = _post(port, f"/api/class/{code}/answer", {"q": QUESTIONS[0], "option": 1, "tab": s["tab"]})
            results.append(("again", st))
        except Exception as e:  # noqa: BLE001
            errors.append(repr(e))

    threads = [threading.Thread(target=student, args=(s,)) for s in students]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    assert [r for r in results if not isinstance(r, tuple)] == [200] * (60 * len(QUESTIONS))
    assert [r for r in results if isinstance(r, tuple)] == [("again", 409)] * 60
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", f"/api/class/{code}/counts", headers={"X-Class-Key": key})
    r = conn.getresponse()
    got = json.loads(r.read())["counts"]
    conn.close()
    assert got == expected
    # Closed: gone, and refused.
    assert _post(port, f"/api/class/{code}/close", None, {"X-Class-Key": key})[0] == 200
    assert _post(port, f"/api/class/{code}/answer", {"q": "tape", "option": 1, "tab": "f" * 32})[0] == 410


# ---- fuzzed, as tests/test_fuzz_api.py fuzzes every other route of the API -------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from tests.test_fuzz_api import check  # noqa: E402


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_class_routes_never_fail_on_bad_input(client, data):
    code = data.draw(st.one_of(st.text(max_size=12).filter(lambda t: "/" not in t and "?" not in t and "#" not in t),
                               st.sampled_from(["ABCDEF", "A1B2C3", "HJKMNP"])), label="code")
    from urllib.parse import quote
    route = data.draw(st.sampled_from(["", "/answer", "/counts", "/close"]), label="route")
    path = f"/api/class/{quote(code, safe='')}{route}" if code else "/api/class"
    body = data.draw(st.one_of(
        st.binary(max_size=300),
        st.dictionaries(st.sampled_from(["q", "option", "tab", "x"]),
                        st.one_of(st.integers(-5, 20), st.text(max_size=40), st.none()), max_size=4)
          .map(lambda d: __import__("json").dumps(d).encode()),
    ), label="body")
    query = data.draw(st.sampled_from(["", "lang=zh", "lang=xx", "gamma=4"]), label="query")
    method = "get" if route == "/counts" or (route == "" and code) else "post"
    headers = {"X-Class-Key": data.draw(st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=40), label="key")}
    resp = getattr(client, method)(path, query_string=query, data=body if method == "post" else None,
                                   content_type="application/json", headers=headers)
    if resp.status_code == 404 and resp.mimetype != "application/json":
        return   # a path werkzeug does not route (an empty segment): the app's 404 page
    if resp.status_code == 201:      # a class opened
        assert C.CODE.fullmatch(resp.get_json()["code"])
        return
    check(resp, ({"lang", "gamma"} if query else set()) | {"q", "option", "tab", "code"})


@pytest.mark.parametrize("lang, words", [("en", "not a class code"), ("zh", "不是班级代码")])
@pytest.mark.parametrize("route", ["/api/class/abc", "/api/class/ABCDE0/counts", "/api/class/ABCDEFG/answer",
                                   "/api/class/%3Cb%3E/close"])
def test_a_code_that_cannot_be_one_is_refused_by_name(route, lang, words):
    # Not "the class is closed" (410): no class ever had that code. 0 and 7 letters are outside
    # the alphabet and the length (serving/classes.py CODE).
    from app import create_app
    c = create_app({"TESTING": True}).test_client()
    h = {"Accept-Language": lang, "X-Class-Key": "k"}
    r = c.post(route, headers=h, json={}) if route.endswith(("answer", "close")) else c.get(route, headers=h)
    err = r.get_json()["error"]
    assert r.status_code == 400 and err["param"] == "code" and words in err["message"], err
    assert C.CODE_ALPHABET in err["allowed"]
