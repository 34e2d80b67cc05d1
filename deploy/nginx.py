"""The front proxy's configuration: ``python3 -m deploy.nginx --listen ADDR --upstream unix:PATH
--run-dir DIR`` prints an nginx.conf that serves ADDR and passes every request to gunicorn.

Why a proxy (issue 16; the figures are in the README): gunicorn's gthread worker gives a thread to
each connection from its first byte and has no time limit on reading a request, so a dozen
clients that send half a request and wait held every thread of a 3 × 4 server. nginx reads each
request whole, under header and body time limits, on an event loop where an idle connection
costs a few kB, buffers each answer for slow readers, and only then involves gunicorn, whose
twelve threads therefore only ever serve complete requests at loopback speed.

What nginx answers itself is in the reader's language and carries the app's security headers;
its strings come from the app's catalog (Flask-Babel), rendered when the file is generated.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import sys
from pathlib import Path

from flask_babel import force_locale
from flask_babel import gettext as _
from jinja2 import DictLoader, Environment, StrictUndefined

from app import CSP, SITE, create_app
from corpus.text import DEFAULT_LANG, LANGS
from serving import vendor
from sim.usertext import MAX_BYTES
from views.api.lab import upload_allowed
from views.caching import static_version

HERE = Path(__file__).resolve().parent

# Time limits, in seconds. A browser sends a request's headers in one packet and a 2 MB upload in
# well under a second on a school network; 10 s leaves room for a slow phone and bounds what a
# slow client can hold.
HEADER_TIMEOUT_S = 10
BODY_TIMEOUT_S = 10       # between two reads of the body, not for the whole body
SEND_TIMEOUT_S = 10       # between two writes of the answer
KEEPALIVE_TIMEOUT_S = 15
RETRY_AFTER_S = 5
# Connections per nginx worker: 200 slow clients need 200 (one each; a passed-on request one more).
CONNECTIONS = 4096
# What one client address may hold at once: connections (a browser opens 6 per origin; a few
# tabs, or a small class behind one NAT, stay well under it), and uploads in progress. A
# lecture hall behind one address needs SPECDEC_CONN_PER_ADDR raised.
CONN_PER_ADDR = int(os.environ.get("SPECDEC_CONN_PER_ADDR", "256"))
UPLOADS_PER_ADDR = int(os.environ.get("SPECDEC_UPLOADS_PER_ADDR", "4"))
# Uploads in progress on the whole server: a flood of trickling uploads takes these, never the
# connections readers need.
UPLOADS_IN_ALL = 256
# Uploads started per address: a class sends one text each, a reader a few a minute.
UPLOAD_RATE_PER_MIN = int(os.environ.get("SPECDEC_UPLOADS_PER_MIN", "30"))
UPLOAD_BURST = 10
# An upload's body: no gap over this (a 2 MB text takes well under a second on a school network).
UPLOAD_BODY_TIMEOUT_S = 5
# An upload's whole body: within this time, and from UPLOAD_RATE_GRACE_S on at this average rate
# or faster (bytes a second). 2 MiB, the largest text, takes 30 s at 70 kB/s, a poor phone line;
# a text trickled in 10 bytes at a time gives its place back after 5 s. Enforced where nginx has
# OpenResty's Lua module (LUA_MODULES; install.sh installs it); stock nginx has only the gap
# limit above, and serve.sh says so when it starts.
UPLOAD_TOTAL_S = 30
UPLOAD_RATE_GRACE_S = 5
UPLOAD_MIN_RATE = 4096
LUA_MODULES = {"ndk": Path("/usr/lib/nginx/modules/ndk_http_module.so"),
               "lua": Path("/usr/lib/nginx/modules/ngx_http_lua_module.so")}
# What nginx may write to disk for one answer from gunicorn (the largest is ~0.3 MB; files are
# served by nginx itself): beyond it, nginx waits for the reader before reading more.
PROXY_MAX_TEMP_FILE = "1m"
# The status of a refusal for too many connections or uploads from one address.
LIMIT_STATUS = 429

_HEADERS = """add_header Content-Security-Policy $specdec_csp always;
add_header X-Frame-Options $specdec_xfo always;
add_header X-Content-Type-Options $specdec_nosniff always;
add_header Referrer-Policy $specdec_referrer always;
"""


def _nginx_string(s: str) -> str:
    """A message inside the config's single quotes and the answer's JSON double quotes."""
    return json.dumps(s, ensure_ascii=False)[1:-1].replace("\\", "\\\\").replace("'", "\\'")


def messages() -> dict[str, dict[str, str]]:
    """What nginx may say to a reader, in each language of the app's catalog."""
    app = create_app({"TESTING": True})
    out: dict[str, dict[str, str]] = {"specdec_msg_busy": {}, "specdec_msg_too_big": {},
                                      "specdec_allowed_upload": {}, "specdec_msg_limit": {},
                                      "specdec_msg_bad": {}, "specdec_msg_not_found": {},
                                      "specdec_msg_too_slow": {}, "specdec_allowed_upload_time": {}}
    with app.test_request_context():
        for lang in LANGS:
            with force_locale(lang):
                out["specdec_msg_busy"][lang] = _nginx_string(
                    _("The server is busy; try again in a moment."))
                out["specdec_msg_too_big"][lang] = _nginx_string(
                    _("The text is more than %(max)s bytes (2 MB); send a shorter one.", max=MAX_BYTES))
                out["specdec_allowed_upload"][lang] = _nginx_string(upload_allowed())
                out["specdec_msg_limit"][lang] = _nginx_string(
                    _("Too many requests from your address at once; try again in a moment."))
                out["specdec_msg_bad"][lang] = _nginx_string(
                    _("The request was malformed, too large or too slow; nothing was done."))
                out["specdec_msg_not_found"][lang] = _nginx_string(_("Page not found"))
                out["specdec_msg_too_slow"][lang] = _nginx_string(_(
                    "The text came in too slowly: an upload must arrive within %(total)s seconds, "
                    "at %(rate)s bytes a second or faster. Try again on a steadier connection.",
                    total=UPLOAD_TOTAL_S, rate=UPLOAD_MIN_RATE))
                out["specdec_allowed_upload_time"][lang] = _nginx_string(_(
                    "the whole text within %(total)s seconds, at %(rate)s bytes a second or faster",
                    total=UPLOAD_TOTAL_S, rate=UPLOAD_MIN_RATE))
    return out


def prepare_files(run_dir: str) -> dict[str, str]:
    """Copy the site's static files and the vendored npm files (serving/vendor.py's table) into
    ``run_dir`` (static/, vendor/), each beside its gzip copy, for nginx to serve itself (never
    through a gunicorn thread); the copies are what was deployed when the server started, as
    the app's ``?v=`` hashes are. Returns ``{"/static/<file>": hash}`` for the versioned URLs."""
    flask_app = create_app({"TESTING": True})
    out = Path(run_dir)
    static = out / "static"
    shutil.copytree(Path(flask_app.static_folder), static, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns(".*", "__pycache__"))
    versions = {}
    for f in sorted(p for p in static.rglob("*") if p.is_file()):
        rel = f.relative_to(static).as_posix()
        versions[f"/static/{rel}"] = static_version(flask_app, rel)
    vdir = out / vendor.VENDOR_DIR
    vdir.mkdir(parents=True, exist_ok=True)
    for name in vendor.NAMES:
        if vendor.source(name, SITE).is_file():
            (vdir / name).write_bytes(vendor.read(name, SITE))
    for f in [*static.rglob("*"), *vdir.iterdir()]:
        if f.is_file() and f.suffix in (".js", ".css", ".svg", ".json", ".mjs"):
            data = f.read_bytes()
            f.with_name(f.name + ".gz").write_bytes(gzip.compress(data, 9, mtime=0))
    for f in out.rglob("*"):
        os.chmod(f, 0o755 if f.is_dir() else 0o644)   # nginx's workers read them
    return versions


def lua_modules() -> dict[str, str] | None:
    """The Lua module's files, if this nginx has them (and SPECDEC_NGINX_LUA is not 0)."""
    if os.environ.get("SPECDEC_NGINX_LUA", "1") == "0":
        return None
    if all(p.is_file() for p in LUA_MODULES.values()):
        return {k: str(p) for k, p in LUA_MODULES.items()}
    return None


def render(listen: str, upstream: str, run_dir: str, *, workers: str = "auto",
           access_log: str | None = None, log_level: str = "warn",
           static_versions: dict[str, str] | None = None, user: str | None = None,
           lua: dict[str, str] | None = None) -> str:
    env = Environment(loader=DictLoader({
        "nginx.conf": (HERE / "nginx.conf.j2").read_text(encoding="utf-8"),
        "headers": _HEADERS,
    }), undefined=StrictUndefined, keep_trailing_newline=True, autoescape=False)
    return env.get_template("nginx.conf").render(
        listen=listen, upstream=upstream, run_dir=run_dir, workers=workers,
        access_log={"-": "/dev/stdout", None: "off", "": "off"}.get(access_log, access_log), log_level=log_level, connections=CONNECTIONS,
        header_timeout=HEADER_TIMEOUT_S, body_timeout=BODY_TIMEOUT_S, send_timeout=SEND_TIMEOUT_S,
        keepalive_timeout=KEEPALIVE_TIMEOUT_S, retry_after=RETRY_AFTER_S, max_body=MAX_BYTES,
        csp=CSP.format(ancestors="'self'"), messages=messages(), langs=LANGS, default_lang=DEFAULT_LANG,
        static_versions=static_versions or {}, vendor_names=sorted(vendor.NAMES),
        vendor_max_age=365 * 24 * 3600, static_max_age=300,
        conn_per_addr=CONN_PER_ADDR, uploads_per_addr=UPLOADS_PER_ADDR, uploads_in_all=UPLOADS_IN_ALL,
        upload_rate=UPLOAD_RATE_PER_MIN, upload_burst=UPLOAD_BURST,
        upload_body_timeout=UPLOAD_BODY_TIMEOUT_S, proxy_max_temp_file=PROXY_MAX_TEMP_FILE,
        limit_status=LIMIT_STATUS, user=user, lua=lua, upload_total=UPLOAD_TOTAL_S,
        upload_rate_grace=UPLOAD_RATE_GRACE_S, upload_min_rate=UPLOAD_MIN_RATE)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--listen", required=True, help="address nginx serves, e.g. 127.0.0.1:5000")
    ap.add_argument("--upstream", required=True, help="gunicorn's address, e.g. unix:/run/x/gunicorn.sock")
    ap.add_argument("--run-dir", required=True, help="folder for nginx's pid and temporary files")
    ap.add_argument("--workers", default=os.environ.get("SPECDEC_NGINX_WORKERS", "auto"))
    ap.add_argument("--access-log", default=None, help="file for nginx's access log (off by default)")
    ap.add_argument("--user", default=None,
                    help="user and group of nginx's workers when started as root (serve.sh)")
    ap.add_argument("--no-files", action="store_true",
                    help="do not copy the static and vendored files into the run folder")
    a = ap.parse_args(argv)
    versions = None if a.no_files else prepare_files(a.run_dir)
    lua = lua_modules()
    if lua is None:
        print("deploy.nginx: no Lua module for nginx (Debian's libnginx-mod-http-lua): an upload's "
              f"body is limited by its gaps ({UPLOAD_BODY_TIMEOUT_S} s) only, not by a total time "
              f"({UPLOAD_TOTAL_S} s) or a least rate ({UPLOAD_MIN_RATE} B/s)", file=sys.stderr)
    sys.stdout.write(render(a.listen, a.upstream, a.run_dir, workers=a.workers,
                            access_log=a.access_log, static_versions=versions, user=a.user, lua=lua))
    return 0


if __name__ == "__main__":
    sys.exit(main())
