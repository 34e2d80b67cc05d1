"""The API's JSON (serving/jsonprovider.py): orjson, with the default provider's output."""
from __future__ import annotations

import json
from decimal import Decimal

import numpy as np
import pytest
from markupsafe import Markup


def test_an_answer_encodes_as_the_standard_library_would(app, client):
    r = client.get("/api/run?seed=3&gamma=4&tokens=40")
    assert r.status_code == 200
    body = r.get_data(as_text=True)
    a = json.loads(body)
    with app.app_context():
        # Same keys in the same order, the same numbers, Chinese left as it is.
        assert json.loads(app.json.dumps(a)) == a
        assert list(json.loads(app.json.dumps(a))) == list(a)
        assert app.json.dumps({"词": "元"}) == '{"词":"元"}'


@pytest.mark.parametrize("value, expected", [
    (float("nan"), None), (float("inf"), None),     # not JSON in the standard library ("NaN")
    (np.float64(0.25), 0.25), (np.int64(7), 7), (np.arange(3), [0, 1, 2]),
    (Markup("<b>a</b>"), "<b>a</b>"),
    (2 ** 70, 2 ** 70),                              # past 64 bits: the default provider writes it
    (Decimal("1.5"), "1.5"),                         # Flask's default: a Decimal as its string
])
def test_values_orjson_meets_in_the_app(app, value, expected):
    with app.app_context():
        assert json.loads(app.json.dumps({"v": value})) == {"v": expected}


def test_keys_that_are_not_strings(app):
    with app.app_context():
        assert json.loads(app.json.dumps({1: "a", 2.5: "b"})) == {"1": "a", "2.5": "b"}
