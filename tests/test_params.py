"""Tests for views/params.py: every kind of Param, good and bad values, parse and parse_lenient."""
import math

import pytest
from hypothesis import given, strategies as st
from werkzeug.datastructures import MultiDict

from views.params import Param, ParamError, parse, parse_lenient

SPEC = {
    "gamma": Param.int(0, 16, default=4),
    "alpha": Param.float(0.0, 1.0, default=0.6),
    "draft": Param.choice(("bigram", "unigram", "trigram"), default="bigram"),
    "greedy": Param.bool(default=False),
    "context": Param.text(max_len=200, default=", when"),
}


def test_defaults_when_absent():
    assert parse(MultiDict(), SPEC) == {
        "gamma": 4, "alpha": 0.6, "draft": "bigram", "greedy": False, "context": ", when"}


def test_typed_values():
    v = parse(MultiDict({"gamma": "0", "alpha": "1", "draft": "trigram", "greedy": "true",
                         "context": "Mock"}), SPEC)
    assert v == {"gamma": 0, "alpha": 1.0, "draft": "trigram", "greedy": True, "context": "Mock"}
    assert isinstance(v["alpha"], float) and isinstance(v["gamma"], int)


def test_plain_dict_is_accepted():
    assert parse({"gamma": "16"}, SPEC)["gamma"] == 16


@pytest.mark.parametrize("name,raw", [
    ("gamma", "17"), ("gamma", "-1"), ("gamma", "4.0"), ("gamma", "1e1"), ("gamma", "x"),
    ("gamma", ""), ("gamma", "0x10"),
    ("alpha", "1.01"), ("alpha", "-0.0001"), ("alpha", "nan"), ("alpha", "inf"), ("alpha", "a"),
    ("draft", "Bigram"), ("draft", "fourgram"), ("draft", ""),
    ("greedy", "yes"), ("greedy", "2"), ("greedy", ""),
    ("context", "x" * 201), ("context", "a\x00b"),
])
def test_bad_values_name_the_param(name, raw):
    with pytest.raises(ParamError) as ei:
        parse(MultiDict({name: raw}), SPEC)
    e = ei.value
    assert e.param == name
    assert e.allowed == SPEC[name].allowed()
    assert e.message
    body = e.to_json()["error"]
    assert set(body) == {"param", "allowed", "message"}


def test_allowed_texts():
    assert SPEC["gamma"].allowed() == "integer 0..16"
    assert SPEC["alpha"].allowed() == "number 0..1"
    assert SPEC["draft"].allowed() == "one of bigram, unigram, trigram"
    assert "200" in SPEC["context"].allowed()


def test_unknown_name_is_an_error():
    with pytest.raises(ParamError) as ei:
        parse(MultiDict({"gama": "3"}), SPEC)
    assert ei.value.param == "gama"
    assert "gamma" in ei.value.allowed


def test_repeated_name_is_an_error():
    with pytest.raises(ParamError) as ei:
        parse(MultiDict([("gamma", "3"), ("gamma", "4")]), SPEC)
    assert ei.value.param == "gamma"


def test_bool_spellings():
    for raw, want in [("0", False), ("1", True), ("true", True), ("FALSE", False), (" 1 ", True)]:
        assert parse({"greedy": raw}, SPEC)["greedy"] is want


def test_text_keeps_spaces_and_limit_is_inclusive():
    # Leading punctuation and spaces matter for the model's context, so text is not stripped.
    assert parse({"context": ", when"}, SPEC)["context"] == ", when"
    assert parse({"context": "y" * 200}, SPEC)["context"] == "y" * 200


def test_lenient_keeps_defaults_and_reports():
    v, errors = parse_lenient(MultiDict({"gamma": "99", "draft": "trigram", "utm": "x"}), SPEC)
    assert v["gamma"] == 4 and v["draft"] == "trigram"
    assert [e.param for e in errors] == ["gamma"]   # the unknown "utm" is ignored


@given(st.integers(min_value=-10**6, max_value=10**6))
def test_int_range_property(n):
    ok = 0 <= n <= 16
    try:
        assert parse({"gamma": str(n)}, SPEC)["gamma"] == n and ok
    except ParamError:
        assert not ok


@given(st.floats(allow_nan=True, allow_infinity=True))
def test_float_range_property(x):
    ok = math.isfinite(x) and 0.0 <= x <= 1.0
    try:
        assert parse({"alpha": repr(x)}, SPEC)["alpha"] == x and ok
    except ParamError:
        assert not ok


@given(st.text(max_size=300))
def test_any_text_either_parses_or_raises_param_error(s):
    # Never another exception type: the API maps ParamError to 400, anything else would be a 500.
    try:
        parse({"context": s, "gamma": s, "alpha": s, "draft": s, "greedy": s}, SPEC)
    except ParamError:
        pass
