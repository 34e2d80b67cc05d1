"""serve.sh as the README's run command starts it (nginx in front of gunicorn, two workers), on a
free loopback port, for the tests that need the whole server (tests/test_serve.py,
tests/test_classroom.py): started, waited for, stopped. Skipped without nginx or gunicorn
(install.sh installs them)."""
from __future__ import annotations

import http.client
import os
import shutil
import signal
import socket
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(tmp_path_factory, port: int, *extra: str) -> tuple[subprocess.Popen, Path]:
    """serve.sh on 127.0.0.1:port (the address as the README's example passes it: `--bind`
    among gunicorn's arguments), two workers, readers' texts in a folder of the test session."""
    env = {**os.environ, "WEB_CONCURRENCY": "2", "SPECDEC_TEXT_DIR": str(tmp_path_factory.mktemp("texts"))}
    for k in ("SPECDEC_HOSTS", "SPECDEC_BIND", "SPECDEC_REDIS_URL"):
        env.pop(k, None)
    log = tmp_path_factory.mktemp("log") / "serve.log"
    proc = subprocess.Popen(["./serve.sh", "--bind", f"127.0.0.1:{port}", *extra], cwd=ROOT, env=env,
                            stdout=open(log, "wb"), stderr=subprocess.STDOUT, start_new_session=True)
    return proc, log


def answers(port: int, path: str = "/api/theory") -> bool:
    """Whether the server answers `path` with 200 now. An answer cut short, or a connection nginx
    takes and drops while gunicorn boots, is "not yet"."""
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            conn.request("GET", path)
            return conn.getresponse().status == 200
        finally:
            conn.close()
    except (OSError, http.client.HTTPException):
        return False


def wait_up(proc: subprocess.Popen, port: int, log: Path, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail("serve.sh exited:\n" + log.read_text())
        if answers(port):
            return
        time.sleep(0.5)
    pytest.fail(f"serve.sh did not answer within {seconds:.0f} s:\n" + log.read_text())


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


@contextmanager
def serving(tmp_path_factory):
    """(port, proc, log) of a serve.sh answering on a free port; stopped afterwards."""
    for tool in ("nginx", "gunicorn"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (bash install.sh installs it)")
    port = free_port()
    proc, log = start(tmp_path_factory, port)
    try:
        wait_up(proc, port, log)
        yield port, proc, log
    finally:
        stop(proc)
