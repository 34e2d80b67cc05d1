"""The JSON API blueprint (`/api/...`).

Each route module owns a blueprint of its routes; this one holds them all under /api and answers
every error as JSON: a bad parameter is a 400 naming it, anything else a JSON 404/405/500 without a
traceback.
"""
from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request
from views.translation import gettext as _
from werkzeug.exceptions import HTTPException

from sim.param import ParamError, join
from views.api import dist, lab, roofline, sections, speculative, tree

bp = Blueprint("api", __name__, url_prefix="/api")
for _routes in (dist, lab, roofline, sections, speculative, tree):
    bp.register_blueprint(_routes.bp)
for _exc, _handler in lab.ERRORS.items():
    bp.register_error_handler(_exc, _handler)


@bp.after_request
def _cache_answers(resp):
    # Answers are deterministic for a given query (seeded), so they may be cached briefly;
    # errors are not, so a fixed link starts working at once.
    if resp.status_code == 200:
        resp.headers.setdefault("Cache-Control", "public, max-age=300")
    else:
        resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.errorhandler(ParamError)
def _param_error(e: ParamError):
    return jsonify(e.to_json()), 400


@bp.errorhandler(HTTPException)
def _http_error(e: HTTPException):
    return http_error_json(e)


def http_error_json(e: HTTPException):
    """An HTTP error of the API (no such route, another method, too large) as JSON, its message
    in the reader's language (?lang= or Accept-Language)."""
    if e.code == 404:
        message = _("There is no such route in the API; the README lists them.")
    elif e.code == 405:
        methods = join([m for m in (getattr(e, "valid_methods", None) or ["GET"]) if m not in ("HEAD", "OPTIONS")], _)
        message = _("This route answers %(methods)s only, not %(method)s.", methods=methods, method=request.method)
    elif e.code == 413:
        message = _("The request is too large.")
    else:
        message = _("The request could not be answered (HTTP %(code)s).", code=e.code)
    body = {"error": {"param": None, "allowed": None, "message": message, "status": e.code}}
    return jsonify(body), e.code


@bp.errorhandler(Exception)
def _unexpected(e: Exception):  # pragma: no cover - a bug path; logged, never shown
    current_app.logger.exception("API error on %s", request.full_path)
    body = {"error": {"param": None, "allowed": None,
                      "message": _("Something went wrong on the server."), "status": 500}}
    return jsonify(body), 500
