"""Tests for sim/param.py and sim/params.py: every kind of Param, good and bad values, parse and parse_lenient,
the page's declarations and what each section reads."""
import math

import pytest
from hypothesis import given, strategies as st
from werkzeug.datastructures import MultiDict

from sim import param, roofline, theory
from sim import params as P
from sim.param import ParamError, parse, parse_lenient

SPEC = {
    "gamma": param.int_("gamma", 0, 16, 4),
    "alpha": param.float_("alpha", 0.0, 1.0, 0.6),
    "draft": param.choice("draft", ("bigram", "unigram", "trigram"), "bigram"),
    "greedy": param.bool_("greedy"),
    "context": param.text("context", 200, ", when"),
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
    assert SPEC["gamma"].allowed() == "an integer from 0 to 16"
    assert SPEC["alpha"].allowed() == "a number from 0 to 1"
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


def test_messages_name_the_parameter_and_its_range():
    # issue 14: an out-of-range seed said only "99999999999 is out of range".
    with pytest.raises(ParamError) as ei:
        P.SEED.parse("99999999999")
    assert ei.value.message == "seed must be an integer from 0 to 2147483647; 99999999999 is out of range."
    assert ei.value.allowed == "an integer from 0 to 2147483647"


def test_gettext_translates_message_and_range():
    zh = {"an integer from %(lo)s to %(hi)s": "%(lo)s 到 %(hi)s 之间的整数",
          "%(name)s must be %(allowed)s; %(value)s is out of range.": "%(name)s 应为%(allowed)s；%(value)s 超出了范围。"}
    with pytest.raises(ParamError) as ei:
        P.GAMMA.parse("17", zh.get)
    assert ei.value.allowed == "1 到 16 之间的整数"
    assert ei.value.message == "gamma 应为1 到 16 之间的整数；17 超出了范围。"


def test_check_is_the_library_form_of_parse():
    assert roofline.CHECKS["batch"].check(65536.0) == 65536 and isinstance(roofline.CHECKS["batch"].check(64.0), int)
    for bad in (0, 1.5, True, float("nan"), "64"):
        with pytest.raises(ParamError):
            roofline.CHECKS["batch"].check(bad)
    assert roofline.CHECKS["batch"].allowed() == "an integer of at least 1"
    with pytest.raises(ValueError):   # ParamError is a ValueError: callers catching that still do
        theory.CHECKS["alpha"].check(1.5)


def test_each_page_parameter_is_declared_once_with_a_default_that_passes():
    for name, p in P.PAGE.items():
        assert p.name == name
        if p.default is not None:
            assert p.check(p.default) == p.default
        if p.stops:
            assert list(p.stops) == sorted(p.stops) and p.stops[0] == p.lo and p.stops[-1] == p.hi


def test_reads_follow_the_declaration():
    # hand-derived from the sections list in sim/params.py
    assert P.reads("tape") == ("gamma", "draft", "greedy", "seed")
    assert P.reads("exact") == ("rule", "tdraft", "rounds", "seed", "draw")
    assert P.reads("lab.map") == ("gamma", "c")
    assert set(P.reads("lab")) == {"gamma", "seed", "c", "text", "tlang", "ldraft", "adapt"}
    # Only section 6 reads the rule: the wrong rules never reach another section.
    assert P.RULE.sections == ("exact",)


def test_query_keeps_only_what_differs_from_the_defaults():
    values = {n: p.default for n, p in P.PAGE.items()} | {"gamma": 6, "greedy": True, "c": 0.25}
    assert param.query(values, P.PAGE) == {"gamma": "6", "greedy": "1", "c": "0.25"}
    assert param.query(values, P.PAGE, P.reads("onebyone")) == {}
