"""The server's own names: a request naming any other Host is answered as if it named the first.

Pages print their own address (the citation), so the render cache keys on the Host header; left
as sent, every made-up Host would force a full render and take a cache entry. With the names
known (``SERVER_HOSTS`` in the Flask config, or ``SPECDEC_HOSTS`` in the environment, which
serve.sh fills from the address it serves: the names and addresses of this machine), any other
Host is replaced by the first name before the app sees it: the reader still gets the page (a
forged name gets the true address in its citation), and all such requests share one entry.
Without a list (the development server, the tests) the Host is left alone.
"""
from __future__ import annotations

import os
import re


def parse_hosts(value: str | None) -> list[str]:
    """``"a:5000, b  c"`` -> ``["a:5000", "b", "c"]`` (lower case; commas or spaces between)."""
    return [h.lower() for h in re.split(r"[,\s]+", value or "") if h]


def configured_hosts(config) -> list[str]:
    return parse_hosts(config.get("SERVER_HOSTS") or os.environ.get("SPECDEC_HOSTS"))


class CanonicalHost:
    """WSGI middleware: a Host not in ``hosts`` becomes ``hosts[0]``. A name given without a
    port matches it on any port; a name with a port matches only that port."""

    def __init__(self, wsgi_app, hosts: list[str]):
        if not hosts:
            raise ValueError("CanonicalHost needs at least one name")
        self.wsgi_app = wsgi_app
        self.canonical = hosts[0]
        self.exact = set(hosts)
        self.any_port = {h for h in hosts if not re.search(r":\d+$", h)}

    def known(self, host: str) -> bool:
        host = host.lower()
        if host in self.exact:
            return True
        name = re.sub(r":\d+$", "", host)
        return name in self.any_port

    def __call__(self, environ, start_response):
        if not self.known(environ.get("HTTP_HOST", "")):
            environ["HTTP_HOST"] = self.canonical
            # The proxy's X-Forwarded-Host, if any, is not trusted either way: drop it.
            environ.pop("HTTP_X_FORWARDED_HOST", None)
        return self.wsgi_app(environ, start_response)
