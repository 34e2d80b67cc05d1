"""Run a command that ends with its parent: ``python3 -m deploy.orphan PARENT_PID -- CMD ARGS``.

serve.sh starts nginx and gunicorn through this, so a ``kill -9`` of serve.sh (which runs no
trap) still stops them: Linux sends the command SIGTERM when its parent dies (prctl
PR_SET_PDEATHSIG, kept across exec). gunicorn's workers leave on their own when their master
goes. Where prctl is missing (not Linux) the command runs as it would without this.
"""
from __future__ import annotations

import ctypes
import os
import signal
import sys

PR_SET_PDEATHSIG = 1


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":
        print("usage: python3 -m deploy.orphan PARENT_PID -- CMD [ARGS]", file=sys.stderr)
        return 2
    parent = int(argv[0])
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    # The parent may have died before the prctl above: then nothing would signal us.
    if os.getppid() != parent:
        return 1
    os.execvp(argv[2], argv[2:])
    return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
