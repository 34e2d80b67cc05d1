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
import json
import os
import sys
from pathlib import Path

from flask_babel import force_locale
from flask_babel import gettext as _
from jinja2 import DictLoader, Environment, StrictUndefined

from app import CSP, create_app
from corpus.text import LANGS
from sim.usertext import MAX_BYTES
from views.api.lab import upload_allowed

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
                                      "specdec_allowed_upload": {}}
    with app.test_request_context():
        for lang in LANGS:
            with force_locale(lang):
                out["specdec_msg_busy"][lang] = _nginx_string(
                    _("The server is busy; try again in a moment."))
                out["specdec_msg_too_big"][lang] = _nginx_string(
                    _("The text is more than %(max)s bytes (2 MB); send a shorter one.", max=MAX_BYTES))
                out["specdec_allowed_upload"][lang] = _nginx_string(upload_allowed())
    return out


def render(listen: str, upstream: str, run_dir: str, *, workers: str = "auto",
           access_log: str | None = None, log_level: str = "warn") -> str:
    env = Environment(loader=DictLoader({
        "nginx.conf": (HERE / "nginx.conf.j2").read_text(encoding="utf-8"),
        "headers": _HEADERS,
    }), undefined=StrictUndefined, keep_trailing_newline=True, autoescape=False)
    return env.get_template("nginx.conf").render(
        listen=listen, upstream=upstream, run_dir=run_dir, workers=workers,
        access_log={"-": "/dev/stdout", None: "off", "": "off"}.get(access_log, access_log), log_level=log_level, connections=CONNECTIONS,
        header_timeout=HEADER_TIMEOUT_S, body_timeout=BODY_TIMEOUT_S, send_timeout=SEND_TIMEOUT_S,
        keepalive_timeout=KEEPALIVE_TIMEOUT_S, retry_after=RETRY_AFTER_S, max_body=MAX_BYTES,
        csp=CSP.format(ancestors="'self'"), messages=messages())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--listen", required=True, help="address nginx serves, e.g. 127.0.0.1:5000")
    ap.add_argument("--upstream", required=True, help="gunicorn's address, e.g. unix:/run/x/gunicorn.sock")
    ap.add_argument("--run-dir", required=True, help="folder for nginx's pid and temporary files")
    ap.add_argument("--workers", default=os.environ.get("SPECDEC_NGINX_WORKERS", "auto"))
    ap.add_argument("--access-log", default=None, help="file for nginx's access log (off by default)")
    a = ap.parse_args(argv)
    sys.stdout.write(render(a.listen, a.upstream, a.run_dir, workers=a.workers, access_log=a.access_log))
    return 0


if __name__ == "__main__":
    sys.exit(main())
