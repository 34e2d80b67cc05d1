"""Requests that change the server's state (a POST: an upload, a class's answer) are refused when
a browser says they come from another site.

Any web page can make a visiting student's browser POST to us: a ``text/plain`` body needs no
CORS preflight, so a page elsewhere could fill the text store from a lecture hall's browsers.
Browsers name the page's origin on every cross-origin POST (``Origin``) and, where they support
it, say ``Sec-Fetch-Site: cross-site``; a POST whose Origin is not this server's own address (its
Host), or that is marked cross-site, is answered 403 in JSON before any view runs. A request
with neither header (curl, scripts, the tests' client, very old browsers) is not a browser
acting for another site, and passes.
"""
from __future__ import annotations

from urllib.parse import urlsplit

from flask import Flask, jsonify, request
from flask_babel import gettext as _

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def same_origin(origin: str | None, host: str, fetch_site: str | None) -> bool:
    """Whether a request with this Origin, Host and Sec-Fetch-Site may change state."""
    if fetch_site is not None and fetch_site.lower() == "cross-site":
        return False
    if origin is None:
        return True
    if origin == "null":   # a sandboxed frame or a file: page
        return False
    u = urlsplit(origin)
    default = {"http": ":80", "https": ":443"}.get(u.scheme, "")
    strip = lambda h: h.lower().removesuffix(default) if default else h.lower()  # noqa: E731
    return bool(u.netloc) and strip(u.netloc) == strip(host or "")


def init_app(app: Flask) -> None:
    @app.before_request
    def _refuse_cross_site_posts():
        if request.method not in UNSAFE_METHODS:
            return None
        if same_origin(request.headers.get("Origin"), request.host,
                       request.headers.get("Sec-Fetch-Site")):
            return None
        body = {"error": {"param": "Origin", "allowed": request.host_url.rstrip("/"),
                          "message": _("Only this site's own pages may send this request."),
                          "status": 403}}
        resp = jsonify(body)
        resp.status_code = 403
        resp.headers["Cache-Control"] = "no-store"
        return resp
