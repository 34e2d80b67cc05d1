"""Property-based bad input: every API route, thousands of malformed requests, never a 500.

Hypothesis builds queries from each route's own parameter table (so new parameters are fuzzed
without editing this file): values inside the allowed range, just outside it, far outside,
non-numbers, unicode, control characters, text far over its length cap, repeated names, unknown
names, and raw query strings that are not valid UTF-8 or percent-encoding. The property: the
answer is 200 with a JSON body, or a 4xx JSON error whose `param` names a parameter we sent and
whose `message` and `allowed` are non-empty strings; never a 5xx, never HTML, never a traceback.
"""
from __future__ import annotations

import os
from urllib.parse import urlencode

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim import params as P
from sim.param import Param
from views.sections import UNITS

# Route -> its parameter table, from the declarations: every GET route of the API and the page's
# /api/section/<unit> for every unit. An /api/ route missing here fails
# test_every_api_route_is_fuzzed, so no route escapes.
SPECS: dict[str, dict[str, Param]] = {
    **P.ROUTES,
    **{f"/api/section/{u}": P.section_spec(u) for u in UNITS},
}
# Routes that take a body (POST), fuzzed with random bodies: route -> query table.
POST_SPECS: dict[str, dict[str, Param]] = {
    "/api/lab/text": P.API_LAB_TEXT,
}

# A hundred per route in all: the strategies come from the declarations, so each example is
# already a boundary, a wrong type or junk, and the bugs this file has caught showed within the
# first few dozen. The fast loop asks QUICK of them (about 18 ms of CPU each, a quarter of the fast
# loop's time at a hundred); the whole suite asks the rest too, in tests marked slow.
# SPECDEC_FUZZ_EXAMPLES=1000 fuzzes deeper (minutes).
EXAMPLES = int(os.environ.get("SPECDEC_FUZZ_EXAMPLES", "100"))
QUICK = min(EXAMPLES, 40)
HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture]
FUZZ = settings(max_examples=QUICK, deadline=None, suppress_health_check=HEALTH)
FUZZ_DEEPER = settings(max_examples=max(1, EXAMPLES - QUICK), deadline=None, suppress_health_check=HEALTH)
slow = pytest.mark.slow

NASTY = [
    "", " ", "  4  ", "nan", "NaN", "-nan", "inf", "-inf", "Infinity", "1e309", "-1e309", "1e-400",
    "-0", "+0", "0x10", "0b1", "1_000", "4.0", "4.", ".5", "1/2", "１２", "٣", "Ⅻ", "true", "True",
    "yes", "null", "None", "[]", "{}", "[1,2]", "%00", "\x00", "\t", "\n", "\u202e", "\ufeff",
    "../../etc/passwd", "<script>alert(1)</script>", "' OR 1=1 --", "${7*7}", "{{7*7}}",
    "9" * 13, "9" * 400, "-" + "9" * 30, "🙂", "说", "说" * 201, "a" * 1001,
]


def junk() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(NASTY),
        st.text(max_size=40),                                     # any unicode, incl. controls
        st.integers(-10**30, 10**30).map(str),
        st.floats(allow_nan=True, allow_infinity=True).map(repr),
        # Huge: far past every length cap (the API refuses them before any model work).
        # (No lone surrogates: no URL can carry one, so the test client cannot even send it.)
        st.tuples(st.characters(exclude_categories=("Cs",)), st.integers(201, 5_000))
        .map(lambda t: t[0] * t[1]),
    )


def valid(p: Param) -> st.SearchStrategy[str]:
    if p.kind == "int":
        return st.integers(int(p.lo), int(p.hi)).map(str)
    if p.kind == "float":
        return st.floats(p.lo, p.hi, allow_nan=False).map(repr)
    if p.kind == "choice":
        return st.sampled_from(p.choices)
    if p.kind == "bool":
        return st.sampled_from(["0", "1", "true", "false", "TRUE"])
    return st.text(max_size=p.max_len)


def near_miss(p: Param) -> st.SearchStrategy[str]:
    """Just outside the allowed set: one past each end, a choice with a typo."""
    if p.kind == "int":
        return st.sampled_from([str(int(p.lo) - 1), str(int(p.hi) + 1), str(int(p.hi) * 10 + 7)])
    if p.kind == "float":
        return st.sampled_from([repr(p.lo - 1e-9), repr(p.hi + 1e-9), repr(p.hi * 2 + 1)])
    if p.kind == "choice":
        return st.sampled_from(p.choices).map(lambda c: c.upper() + " ")
    if p.kind == "bool":
        return st.sampled_from(["2", "-1", "on", "off"])
    return st.just("x" * (p.max_len + 1))


def query_pairs(spec: dict[str, Param]) -> st.SearchStrategy[list[tuple[str, str]]]:
    # Built once per table (see QUERIES): building strategies inside the test costs more than
    # the requests themselves.
    pair = st.one_of([
        st.tuples(st.just(n), st.one_of(valid(p), valid(p), near_miss(p), junk()))
        for n, p in sorted(spec.items())])
    unknown = st.tuples(st.one_of(st.sampled_from(["x", "GAMMA", "gamma ", "", "lang[]"]),
                                  st.text(max_size=12)), junk())
    return st.lists(st.one_of(pair, pair, pair, unknown), max_size=8)


QUERIES = {route: query_pairs(spec) for route, spec in SPECS.items()}


def check(resp, sent_names: set[str] | None) -> None:
    assert resp.status_code < 500, (resp.status_code, resp.get_data(as_text=True)[:300])
    assert resp.mimetype == "application/json", resp.mimetype
    body = resp.get_json()
    assert isinstance(body, dict)
    text = resp.get_data(as_text=True)
    assert "Traceback" not in text
    if resp.status_code == 200:
        assert "error" not in body
        return
    assert 400 <= resp.status_code < 500
    err = body["error"]
    assert isinstance(err["message"], str) and err["message"].strip()
    if resp.status_code == 400:
        assert isinstance(err["param"], str)
        assert isinstance(err["allowed"], str) and err["allowed"].strip()
        if sent_names is not None:
            assert err["param"] in sent_names, (err, sent_names)


def bad_input(client, route, pairs):
    q = pairs.draw(QUERIES[route], label="query")
    lang = pairs.draw(st.sampled_from(["en", "zh", "zh-CN,zh;q=0.9", "*", "xx", ""]), label="al")
    resp = client.get(route, query_string=urlencode(q), headers={"Accept-Language": lang})
    check(resp, {k for k, _v in q})
    if resp.status_code == 400:
        # Refusals name one of the parameters that was actually wrong: sending the same query
        # without it must not fail on that same parameter again for the same reason.
        assert resp.get_json()["error"]["param"] in {k for k, _ in q}


@pytest.mark.parametrize("route", sorted(SPECS))
@FUZZ
@given(pairs=st.data())
def test_api_never_fails_on_bad_input(client, route, pairs):
    bad_input(client, route, pairs)


@slow
@pytest.mark.parametrize("route", sorted(SPECS))
@FUZZ_DEEPER
@given(pairs=st.data())
def test_api_never_fails_on_bad_input_deeper(client, route, pairs):
    bad_input(client, route, pairs)


RAW = st.one_of(
    st.binary(max_size=300),
    st.lists(st.sampled_from(["%", "%f", "%ff", "%fe%ff", "%c3%28", "%ed%a0%80", "&", "=", "==",
                              "&&", ";", "+", "%2B", "gamma=", "gamma", "lang=zh", "%00",
                              "%e8%af%b4", "a" * 50]), max_size=30).map("".join),
)


def raw_query(client, route, raw):
    if isinstance(raw, bytes):
        # Bytes that are not UTF-8 reach the app as a latin-1 decoded WSGI string.
        raw = raw.decode("latin-1")
    resp = client.get(route, query_string=raw)
    check(resp, None)


# A quarter as many: raw strings are mostly not a parameter at all, so they test the query parser
# every route shares (33 routes × 25 = 825 strings through it in the whole suite), not the route.
@pytest.mark.parametrize("route", sorted(SPECS))
@settings(max_examples=max(1, QUICK // 4), deadline=None, suppress_health_check=list(HealthCheck))
@given(raw=RAW)
def test_api_survives_raw_query_strings(client, route, raw):
    raw_query(client, route, raw)


@slow
@pytest.mark.parametrize("route", sorted(SPECS))
@settings(max_examples=max(1, (EXAMPLES - QUICK) // 4), deadline=None, suppress_health_check=list(HealthCheck))
@given(raw=RAW)
def test_api_survives_raw_query_strings_deeper(client, route, raw):
    raw_query(client, route, raw)


@pytest.mark.parametrize("route", sorted(SPECS) + sorted(POST_SPECS))
def test_api_answers_other_methods_with_json(client, route):
    for method in ("put", "delete", "patch") + (("get",) if route in POST_SPECS else ("post",)):
        resp = getattr(client, method)(route, data=b"gamma=4")
        assert resp.status_code == 405
        check(resp, None)


def test_every_api_route_is_fuzzed(app):
    rules = {r.rule for r in app.url_map.iter_rules() if r.rule.startswith("/api/")}
    sections = {f"/api/section/{u}" for u in UNITS}
    # The class routes (views/classroom.py) are fuzzed in tests/test_classroom.py.
    assert rules == (set(SPECS) - sections) | {"/api/section/<unit>"} | set(POST_SPECS) | set(P.CLASS_ROUTES), \
        "add the new route's parameter table to sim.params.ROUTES"


@pytest.mark.parametrize("route", sorted(POST_SPECS))
@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_api_survives_random_bodies(client, route, data):
    q = data.draw(QUERIES_POST[route], label="query")
    body = data.draw(st.one_of(
        st.binary(max_size=2000),                                 # mostly not UTF-8
        st.text(max_size=3000).map(lambda t: t.encode("utf-8")),  # any unicode
        st.sampled_from([b"", b"\x00" * 100, "说".encode() * 600, b"word " * 400,
                         b"\xff\xfe" + "text".encode("utf-16-le")]),
    ), label="body")
    ctype = data.draw(st.sampled_from(["text/plain; charset=utf-8", "application/octet-stream",
                                       "application/json", "multipart/form-data"]), label="ct")
    resp = client.post(route, query_string=urlencode(q), data=body, content_type=ctype)
    check(resp, {k for k, _v in q} | {"text"})


QUERIES_POST = {route: query_pairs(spec) for route, spec in POST_SPECS.items()}



_STATE_QUERY = query_pairs(P.PAGE)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(pairs=st.data())
def test_embed_pages_ignore_bad_state(client, pairs):
    """Pages never refuse: a bad value falls back to its default (a notice says so)."""
    q = pairs.draw(_STATE_QUERY, label="query")
    resp = client.get("/embed/en/specdec/draft/", query_string=urlencode(q))
    assert resp.status_code == 200
    assert resp.mimetype == "text/html"
