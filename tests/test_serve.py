"""serve.sh as the README's run command starts it: nginx in front of gunicorn, on a free loopback
port. What only the whole server shows: its own error pages carry the security headers, silent
and half-sent connections do not stop other readers, uploads over the limit get a JSON refusal,
and stopping serve.sh stops everything it started. Skipped without nginx (install.sh installs it).
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

# One server for the whole file, on one worker when the suite runs in parallel (pytest-xdist
# --dist loadgroup); the last test stops it.
pytestmark = pytest.mark.xdist_group("serve")

ROOT = Path(__file__).resolve().parents[1]
SECURITY = ("Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy", "X-Frame-Options")


class NoAnswer(ConnectionError):
    """The connection closed before an HTTP status line came back."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _raw(port: int, data: bytes, timeout: float = 10) -> tuple[int, dict, bytes]:
    """Send bytes as they are; (status, headers, body) of the answer."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        chunks = []
        while True:
            try:
                b = s.recv(65536)
            except socket.timeout:
                break
            if not b:
                break
            chunks.append(b)
    raw = b"".join(chunks)
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    if len(lines[0].split()) < 2:
        # Closed before a status line: while gunicorn starts, nginx may take the connection and
        # drop it. The server is not answering yet, which is what OSError means here.
        raise NoAnswer(f"no status line in {raw[:80]!r}")
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    return int(lines[0].split()[1]), headers, body


def _get(port: int, path: str, headers: str = "") -> tuple[int, dict, bytes]:
    return _raw(port, f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{headers}Connection: close\r\n\r\n".encode())


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    for tool in ("nginx", "gunicorn"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (bash install.sh installs it)")
    port = _free_port()
    env = {**os.environ, "SPECDEC_BIND": f"127.0.0.1:{port}", "WEB_CONCURRENCY": "2",
           "SPECDEC_TEXT_DIR": str(tmp_path_factory.mktemp("texts"))}
    env.pop("SPECDEC_HOSTS", None)
    log = tmp_path_factory.mktemp("log") / "serve.log"
    proc = subprocess.Popen(["./serve.sh"], cwd=ROOT, env=env, stdout=open(log, "wb"),
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        for _ in range(240):
            if proc.poll() is not None:
                pytest.fail("serve.sh exited:\n" + log.read_text())
            try:
                if _get(port, "/api/theory")[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.5)
        else:
            pytest.fail("serve.sh did not answer within 120 s:\n" + log.read_text())
        yield port, proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)


def test_pages_and_answers_come_through_with_the_apps_headers(server):
    port, _ = server
    status, h, body = _get(port, "/en/specdec/")
    assert status == 200 and b"</html>" in body
    assert all(k.lower() in h for k in SECURITY)
    # An embed keeps its own policy: any site may frame it, and no X-Frame-Options is added.
    status, h, _ = _get(port, "/embed/en/specdec/tape/")
    assert status == 200 and "frame-ancestors *" in h["content-security-policy"]
    assert "x-frame-options" not in h


@pytest.mark.parametrize("raw", [
    b"GET /en/specdec/ HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n",     # not a header
    b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",              # request line too long
    b"NONSENSE\r\n\r\n",
])
def test_the_servers_own_error_pages_carry_the_security_headers(server, raw):
    port, _ = server
    status, h, _ = _raw(port, raw)
    assert 400 <= status < 500
    for k in SECURITY:
        assert k.lower() in h, (k, status, h)


def test_an_upload_over_the_limit_is_a_json_refusal_in_the_readers_language(server):
    port, _ = server
    body = b"a " * (1024 * 1024 + 10)
    status, h, data = _raw(port, b"POST /api/lab/text?lang=zh HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                           b"Accept-Language: zh\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
    assert status == 413 and h["content-type"] == "application/json"
    err = json.loads(data)["error"]
    assert err["param"] == "text" and "2 MB" in err["message"] and "文本" in err["message"]


def test_silent_and_half_sent_connections_do_not_stop_other_readers(server):
    # 60 connections that send nothing or half a request (issue 16 stopped gthread with 12): a
    # reader's requests are still answered, each in under a second.
    port, _ = server
    held = []
    try:
        for i in range(60):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            if i % 2:
                s.sendall(b"GET /en/specdec/ HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: a")
            held.append(s)
        time.sleep(1)
        for path in ("/api/theory?alpha=0.5", "/embed/en/specdec/tape/", "/api/run?tokens=20&seed=5"):
            t0 = time.perf_counter()
            status, _h, _b = _get(port, path)
            assert status == 200 and time.perf_counter() - t0 < 1.0, path
    finally:
        for s in held:
            s.close()


def test_a_forged_host_is_answered_under_the_servers_name(server):
    port, _ = server
    status, _h, body = _raw(port, b"GET /en/specdec/ HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
    assert status == 200 and b"evil.example" not in body and f"127.0.0.1:{port}".encode() in body


def test_stopping_serve_sh_stops_nginx_and_gunicorn(server):
    port, proc = server
    pids = _tree(proc.pid)
    assert len(pids) >= 5   # serve.sh, nginx master + worker(s), gunicorn master + workers
    proc.send_signal(signal.SIGTERM)
    proc.wait(30)
    time.sleep(0.5)
    alive = [p for p in pids if Path(f"/proc/{p}").exists()
             and "Z" not in Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[0]]
    assert alive == []
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).close()


def _tree(pid: int) -> list[int]:
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                ppid = int(Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, []))
    return out
