"""The specdec web app: `create_app()` wires Babel, the plate and API blueprints, filters, headers.

Run with `gunicorn 'app:create_app()'` or `flask --app app run`.
"""
from __future__ import annotations

import io
from pathlib import Path

from flask import Flask, abort, jsonify, redirect, render_template, request, send_file, url_for
from flask_babel import Babel
from views import translation
from views.translation import gettext as _
from werkzeug.exceptions import HTTPException

from corpus.text import DEFAULT_LANG, LANGS
from serving.jsonprovider import OrjsonProvider
from views import catalogs

HERE = Path(__file__).resolve().parent
# The site's files (templates/, static/, translations/) sit beside this module in the repository
# and an editable install; a built package (wheel, `pip install .`) carries them in the folder
# specdec_site/ beside it (setup.py).
SITE = HERE / "specdec_site" if (HERE / "specdec_site").is_dir() else HERE

# The browser's files from npm (plotly.js): serving/vendor.py's table, served under /vendor/ from
# our origin, never a CDN. A year: a file changes only when package-lock.json pins another
# version (then its ETag changes too).
VENDOR_MAX_AGE_S = 365 * 24 * 3600

# One policy for every response; only frame-ancestors differs between embeds and full pages.
# Styles allow 'unsafe-inline' because plotly sets style attributes and injects rules; scripts
# never do: no inline scripts or handlers anywhere, and nothing from another origin.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; font-src 'self'; connect-src 'self'; object-src 'none'; "
        "base-uri 'self'; form-action 'self'; frame-ancestors {ancestors}")


def select_locale() -> str:
    """The page's language comes from the URL; API calls send Accept-Language or ?lang=."""
    args = request.view_args or {}
    if args.get("lang") in LANGS:
        return args["lang"]
    # Error pages have no view args: /zh/specdec/nonsense/ still answers in Chinese.
    for part in request.path.split("/")[1:3]:
        if part in LANGS:
            return part
    if request.args.get("lang") in LANGS:
        return request.args["lang"]
    return request.accept_languages.best_match(LANGS) or DEFAULT_LANG


def preferred_lang() -> str:
    return request.accept_languages.best_match(LANGS) or DEFAULT_LANG


def security_headers(resp):
    embed = request.path.startswith("/embed/")
    resp.headers["Content-Security-Policy"] = CSP.format(ancestors="*" if embed else "'self'")
    if not embed:
        # Older browsers ignore frame-ancestors; X-Frame-Options has no "any site" value, so
        # embeds send none and rely on the CSP above.
        resp.headers["X-Frame-Options"] = "SAMEORIGIN"
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Referrer-Policy"] = "strict-origin-when-cross-origin"
    return resp


def create_app(test_config: dict | None = None) -> Flask:
    app = Flask(__name__, static_folder=SITE / "static", template_folder=SITE / "templates")
    app.json = OrjsonProvider(app)
    app.config.from_mapping(
        BABEL_DEFAULT_LOCALE=DEFAULT_LANG,
        # The .mo files are compiled from the committed .po files here when missing or stale.
        BABEL_TRANSLATION_DIRECTORIES=str(catalogs.translation_dir(SITE / "translations")),
        JSON_SORT_KEYS=False,
    )
    app.json.ensure_ascii = False  # Chinese tokens stay readable in API answers
    app.json.sort_keys = False
    if test_config:
        app.config.update(test_config)

    Babel(app, locale_selector=select_locale)
    from views import choices, format as formats
    formats.init_app(app)  # num, pct, compact, prob, fmt filters; field() for live numbers
    choices.init_app(app)  # the names of every choice of a control
    app.jinja_env.add_extension("jinja2.ext.i18n")  # {% trans %} blocks, same catalog
    translation.init_app(app)  # the templates' gettext: the request's catalog, found once

    from views.api import bp as api_bp
    from views.plate import bp as plate_bp
    app.register_blueprint(plate_bp)
    app.register_blueprint(api_bp)
    from views.teach import bp as teach_bp
    app.register_blueprint(teach_bp)
    from views.classroom import bp as classroom_bp
    app.register_blueprint(classroom_bp)

    app.after_request(security_headers)
    # A POST from another site's page (an upload a visiting student's browser was made to send)
    # is refused before any view runs (serving/origin.py).
    from serving import origin
    origin.init_app(app)
    # ETag, Cache-Control, compression and the per-URL render cache (views/caching.py).
    from views import caching
    caching.init_app(app)

    @app.get("/")
    def root():
        return redirect(url_for("plate.page", lang=preferred_lang()), code=302)

    @app.get("/specdec/")
    def specdec_root():
        return redirect(url_for("plate.page", lang=preferred_lang()), code=302)

    @app.get("/favicon.ico")
    def favicon():
        # Browsers ask for /favicon.ico on their own (embeds, error pages): point them at ours.
        return redirect(url_for("static", filename="favicon.svg"), code=301)

    @app.get("/vendor/<name>")
    def vendor(name: str):
        # Only the table's names: nothing else under node_modules/ is reachable.
        from serving import vendor as vendored
        if name not in vendored.NAMES:
            abort(404)
        path = vendored.source(name, SITE)
        if not path.is_file():
            app.logger.error("vendor: %s is missing (run `npm ci`, or bash install.sh)", path)
            abort(404)
        data, etag = vendored.read_tagged(name, SITE)
        resp = send_file(io.BytesIO(data), mimetype=vendored.mimetype(name), max_age=VENDOR_MAX_AGE_S,
                         conditional=True, etag=etag,
                         last_modified=path.stat().st_mtime)
        resp.headers["Cache-Control"] = f"public, max-age={VENDOR_MAX_AGE_S}, immutable"
        return resp

    @app.errorhandler(HTTPException)
    def http_error(e: HTTPException):
        # The API blueprint answers its own errors; unmatched /api/ URLs land here.
        if request.path.startswith("/api/"):
            from views.api import http_error_json
            return http_error_json(e)
        lang = _lang_from_path(request.path)
        return render_template("plate/error.html", lang=lang, code=e.code,
                               title=_("Page not found") if e.code == 404 else e.name), e.code

    @app.errorhandler(Exception)
    def server_error(e: Exception):
        app.logger.exception("Unhandled error on %s", request.full_path)
        if request.path.startswith("/api/"):
            body = {"error": {"param": None, "allowed": None,
                              "message": _("Something went wrong on the server."),
                              "status": 500}}
            return jsonify(body), 500
        return render_template("plate/error.html", lang=_lang_from_path(request.path), code=500,
                               title=_("Something went wrong on the server.")), 500

    return app


def _lang_from_path(path: str) -> str:
    parts = [p for p in path.split("/") if p]
    for p in parts[:2]:
        if p in LANGS:
            return p
    return DEFAULT_LANG
