"""serving.origin: a POST a browser sends for another site's page is refused (403, JSON) before
the upload is read; the page's own POSTs, and clients that are not browsers, pass."""
from __future__ import annotations

import pytest

from app import create_app
from serving.origin import same_origin

TEXT = ("the cat sat on the mat and the dog sat on the log . " * 40).encode()


@pytest.fixture()
def client(tmp_path):
    return create_app({"TESTING": True, "TEXT_STORE_DIR": str(tmp_path)}).test_client()


@pytest.mark.parametrize("headers", [
    {"Origin": "https://evil.example"},
    {"Origin": "null"},
    {"Origin": "http://localhost.evil.example"},
    {"Sec-Fetch-Site": "cross-site"},
    {"Origin": "http://localhost", "Sec-Fetch-Site": "cross-site"},
])
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_upload_from_another_sites_page_is_refused_in_json(client, headers, lang):
    r = client.post(f"/api/lab/text?lang={lang}", data=TEXT,
                    headers={"Content-Type": "text/plain", "Accept-Language": lang, **headers})
    assert r.status_code == 403 and r.mimetype == "application/json"
    err = r.get_json()["error"]
    assert err["param"] == "Origin" and err["status"] == 403
    assert ("站" in err["message"]) == (lang == "zh")


@pytest.mark.parametrize("headers", [
    {},                                                         # curl, scripts
    {"Origin": "http://localhost"},                             # the page itself
    {"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin"},
])
def test_the_pages_own_uploads_and_non_browsers_pass(client, headers):
    r = client.post("/api/lab/text?lang=en", data=TEXT, headers={"Content-Type": "text/plain", **headers})
    assert r.status_code == 200, r.get_json()


def test_reading_is_never_refused(client):
    r = client.get("/api/theory", headers={"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"})
    assert r.status_code == 200


@pytest.mark.parametrize("origin, host, ok", [
    ("http://school.example", "school.example", True),
    ("http://school.example", "school.example:80", True),
    ("https://school.example", "school.example:443", True),
    ("http://school.example:8000", "school.example:8000", True),
    ("http://school.example:8000", "school.example", False),
    ("https://school.example", "school.example:80", False),
    ("", "school.example", False),
])
def test_same_origin(origin, host, ok):
    assert same_origin(origin, host, None) is ok
