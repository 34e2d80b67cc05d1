"""The command line's main() run in the test's process, as `python -m sim ARGS` runs it."""
from __future__ import annotations

import contextlib
import io
import subprocess

from sim.__main__ import main


def run_main(argv: list[str]) -> subprocess.CompletedProcess:
    """What `python -m sim *argv` prints and returns (stdout, stderr, returncode)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as e:   # argparse's --help
            code = e.code
    return subprocess.CompletedProcess(["python", "-m", "sim", *argv], code, out.getvalue(), err.getvalue())
