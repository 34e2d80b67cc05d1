"""`specdec serve`: the plate on a teacher's laptop, from an installed wheel, with no nginx, no
apt and no compiler, on Linux, macOS and Windows. waitress (pure Python, a production server
with its own thread pool and request buffering) serves the app; `--lan` listens on the local
network and prints the address students open, and its QR code in the terminal (segno).

The server's own names are set (serving/hosts.py), so pages print the address students can
reach and a forged Host is answered under it. A busy port is said at once, with a free one to try.
"""
from __future__ import annotations

import argparse
import errno
import socket
import sys

from app import create_app
from corpus.text import LANGUAGES

DEFAULT_PORT = 8000
THREADS = 8          # a class of 30 at once: each page asks a handful of answers


def lan_address() -> str:
    """This machine's address on the network that leads outside (no packet is sent: a UDP
    socket's connect only picks the route); loopback when there is no network."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))    # TEST-NET-1: never routed anywhere real
            return s.getsockname()[0]
        except OSError:
            return "127.0.0.1"


def port_free(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((host, port))
        except OSError as e:
            if e.errno in (errno.EADDRINUSE, errno.EACCES) or getattr(e, "winerror", None) == 10048:
                return False
            raise
    return True


def qr_text(url: str) -> str:
    """The URL as a QR code drawn with block characters, for the terminal."""
    import io

    import segno
    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue()


def make_app(names: list[str]):
    return create_app({"SERVER_HOSTS": " ".join(names)})


def serve(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="specdec serve", description="Serve the plate on this computer.")
    p.add_argument("--lan", action="store_true",
                   help="listen on the local network (students' phones and laptops), not only this computer")
    p.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"the port (default {DEFAULT_PORT})")
    p.add_argument("--threads", type=int, default=THREADS, help=f"requests served at once (default {THREADS})")
    a = p.parse_args(argv)
    if not 1 <= a.port <= 65535:
        p.error(f"--port must be from 1 to 65535, not {a.port}")
    host = "0.0.0.0" if a.lan else "127.0.0.1"
    if not port_free(host, a.port):
        print(f"specdec serve: port {a.port} is busy (another server is using it); "
              f"try --port {a.port + 1}", file=sys.stderr)
        return 2
    here = lan_address() if a.lan else "127.0.0.1"
    url = f"http://{here}:{a.port}/"
    names = [f"{here}:{a.port}", f"localhost:{a.port}", f"127.0.0.1:{a.port}"]
    app = make_app(list(dict.fromkeys(names)))
    pages = ", ".join(f"{language.name} {url}{code}/specdec/" for code, language in LANGUAGES.items())
    print(f"specdec: serving {url}  ({pages})", flush=True)
    if a.lan:
        print("Students on the same network open this address, or scan:", flush=True)
        print(qr_text(url), flush=True)
    print("Stop with Ctrl+C.", flush=True)
    import waitress
    waitress.serve(app, host=host, port=a.port, threads=a.threads, ident="specdec",
                   clear_untrusted_proxy_headers=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: specdec serve [--lan] [--port PORT] [--threads N]\n\n"
              "  serve   serve the plate on this computer (--lan: for the local network)")
        return 0 if argv else 2
    if argv[0] != "serve":
        print(f"specdec: unknown command {argv[0]!r}; the command is: specdec serve", file=sys.stderr)
        return 2
    return serve(argv[1:])


if __name__ == "__main__":
    sys.exit(main())
