"""``python3 -m deploy.portcheck HOST PORT``: exit 1, saying so, if another server holds the
address (serve.sh asks before it spends a minute loading the models); 0 if nginx could bind it."""
from __future__ import annotations

import socket
import sys


def busy(host: str, port: int) -> str | None:
    """Why ``host:port`` cannot be bound, or None if it can (bound as nginx binds: SO_REUSEADDR,
    so a port left in TIME_WAIT by a server just stopped is free)."""
    host = host.strip("[]") or "0.0.0.0"
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as e:
            return e.strerror or str(e)
    return None


def main(argv: list[str]) -> int:
    host, port = argv[0], int(argv[1])
    why = busy(host, port)
    if why is None:
        return 0
    print(f"serve.sh: {host}:{port} is busy ({why}): another server listens there; choose "
          "another address with --bind HOST:PORT (or SPECDEC_BIND)", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
