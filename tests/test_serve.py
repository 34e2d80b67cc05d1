"""serve.sh as the README's run command starts it: nginx in front of gunicorn, on a free loopback
port. What only the whole server shows: its own error pages carry the security headers, silent
and half-sent connections do not stop other readers, uploads over the limit get a JSON refusal,
and stopping serve.sh stops everything it started. Skipped without nginx (install.sh installs it).
"""
from __future__ import annotations

import gzip
import json
import os
import re
import signal
import socket
import time
from pathlib import Path

import pytest

from tests import serve_util

# One server for the whole file, on one worker when the suite runs in parallel (pytest-xdist
# --dist loadgroup); the last test stops it. Slow: starting nginx and gunicorn takes seconds, the
# tests that kill them and wait for the restart some 20 s, about 23 s of CPU for the file (measured
# 2 December 2026, an eighth of the fast loop); the whole suite (.ci/run) runs them.
pytestmark = [pytest.mark.xdist_group("serve"), pytest.mark.slow]

SECURITY = ("Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy", "X-Frame-Options")
# A reader answered while others hold connections: well under the held connections' header
# time-out (deploy/nginx.py, 10 s), with room for a loaded machine.
READER_WAIT_S = 5.0


class NoAnswer(ConnectionError):
    """The connection closed before an HTTP status line came back."""


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
    with serve_util.serving(tmp_path_factory) as srv:
        yield srv


def test_pages_and_answers_come_through_with_the_apps_headers(server):
    port, *_ = server
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
    port, *_ = server
    status, h, _ = _raw(port, raw)
    assert 400 <= status < 500
    for k in SECURITY:
        assert k.lower() in h, (k, status, h)


def test_an_upload_over_the_limit_is_a_json_refusal_in_the_readers_language(server):
    port, *_ = server
    body = b"a " * (1024 * 1024 + 10)
    status, h, data = _raw(port, b"POST /api/lab/text?lang=zh HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                           b"Accept-Language: zh\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
    assert status == 413 and h["content-type"] == "application/json"
    err = json.loads(data)["error"]
    assert err["param"] == "text" and "2 MB" in err["message"] and "文本" in err["message"]


def test_silent_and_half_sent_connections_do_not_stop_other_readers(server):
    # 60 connections that send nothing or half a request (issue 16 stopped gthread with 12): a
    # reader's requests are still answered, each within a few seconds (a starved reader waits
    # for the held connections' time-outs, far longer; 1 s failed on a loaded machine).
    port, *_ = server
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
            assert status == 200 and time.perf_counter() - t0 < READER_WAIT_S, path
    finally:
        for s in held:
            s.close()


def test_a_forged_host_is_answered_under_the_servers_name(server):
    port, *_ = server
    status, _h, body = _raw(port, b"GET /en/specdec/ HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
    assert status == 200 and b"evil.example" not in body and f"127.0.0.1:{port}".encode() in body


def _json_refusal(status: int, h: dict, body: bytes) -> dict:
    assert h.get("content-type", "").startswith("application/json"), (status, h, body[:200])
    assert b"nginx" not in body.lower() and b"gunicorn" not in body.lower()
    return json.loads(body)["error"]


def test_a_second_serve_sh_on_the_busy_port_says_so_and_exits(server, tmp_path_factory):
    port, *_ = server
    t0 = time.perf_counter()
    proc, log = serve_util.start(tmp_path_factory, port)
    assert proc.wait(30) != 0 and time.perf_counter() - t0 < 30
    assert f"127.0.0.1:{port} is busy" in log.read_text()
    assert _get(port, "/api/theory")[0] == 200     # the first one still serves


def test_static_and_vendored_files_come_from_nginx_itself(server):
    port, *_ = server
    from bench.pageweight import PLOTLY_BUDGET
    status, h, body = _get(port, "/vendor/plotly.min.js", "Accept-Encoding: gzip\r\n")
    assert status == 200 and h["content-encoding"] == "gzip" and h["content-type"] == "text/javascript"
    assert len(body) <= PLOTLY_BUDGET and "immutable" in h["cache-control"]
    from serving import vendor
    assert gzip.decompress(body).startswith(vendor.HINTS["plotly.min.js"])   # nginx's copy has it too
    # nginx's own ETag (mtime-size in hex), not the app's: no gunicorn thread sent it.
    assert re.fullmatch(r'"[0-9a-f]+-[0-9a-f]+"', h["etag"]), h["etag"]
    page = _get(port, "/en/specdec/")[2].decode()
    css = re.search(r'/static/css/[\w.-]+\.css\?v=[0-9a-f]+', page).group(0)
    status, h, _b = _get(port, css)
    assert status == 200 and "immutable" in h["cache-control"] and re.fullmatch(r'"[0-9a-f]+-[0-9a-f]+"', h["etag"])
    status, h, _b = _get(port, css.split("?")[0])
    assert status == 200 and h["cache-control"] == "public, max-age=300"
    for path in ("/vendor/axe.min.js", "/static/.bench/x", "/static/none.js"):
        status, h, body = _get(port, path)
        assert status in (400, 404) and _json_refusal(status, h, body)["status"] == status, path
    # A path that leaves /vendor/ is the app's (its own page not found), never node_modules/.
    status, _h, body = _get(port, "/vendor/../package.json")
    assert status == 404 and b"devDependencies" not in body


@pytest.mark.parametrize("raw", [
    b"GET /en/specdec/ HTTP/1.1\r\nHost: x\r\nBad Header Line\r\n\r\n",
    b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET /?" + b"a" * 4094 + b" HTTP/1.1\r\nHost: x\r\n\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\n" + b"".join(b"X-A%d: 1\r\n" % i for i in range(1500)) + b"\r\n",
    b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"b" * 6000 + b"\r\n\r\n",
    b"NONSENSE\r\n\r\n",
])
def test_every_refusal_is_json_naming_no_server(server, raw):
    port, *_ = server
    status, h, body = _raw(port, raw)
    assert 400 <= status < 500, status
    _json_refusal(status, h, body)


def test_slow_uploads_hold_only_the_upload_places_and_are_cut_off(server):
    # Uploads that send their headers and then trickle: each address has a few upload places
    # (deploy/nginx.py); the next upload is refused at once in JSON, readers are not touched,
    # and a body that stops coming is dropped after the upload's body time-out.
    from deploy.nginx import UPLOAD_BODY_TIMEOUT_S, UPLOADS_PER_ADDR
    port, *_ = server
    head = (b"POST /api/lab/text?lang=en HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\n"
            b"Content-Length: 100000\r\n\r\nthe cat ")
    held = []
    try:
        for _ in range(UPLOADS_PER_ADDR):
            s = socket.create_connection(("127.0.0.1", port), timeout=30)
            s.sendall(head)
            held.append(s)
        time.sleep(0.5)
        status, h, body = _raw(port, head.replace(b"100000", b"8").replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"))
        assert status == 429 and _json_refusal(status, h, body)["status"] == 429
        t0 = time.perf_counter()
        assert _get(port, "/api/theory?alpha=0.6")[0] == 200 and time.perf_counter() - t0 < READER_WAIT_S
        t0 = time.perf_counter()
        while held[0].recv(65536):   # whatever nginx sends, then it closes
            pass
        assert time.perf_counter() - t0 < UPLOAD_BODY_TIMEOUT_S + 5
    except ConnectionResetError:
        assert time.perf_counter() - t0 < UPLOAD_BODY_TIMEOUT_S + 5
    finally:
        for s in held:
            s.close()


def test_a_trickling_upload_is_cut_off_and_a_steady_one_comes_through(server):
    # Bytes every second keep every gap under the body time-out, so only a total time and a least
    # rate (nginx's Lua module, deploy/nginx.py) give the upload's place back. Without the module
    # serve.sh says so, and this test says why it cannot hold.
    from deploy.nginx import UPLOAD_MIN_RATE, UPLOAD_RATE_GRACE_S, UPLOAD_TOTAL_S, lua_modules
    if lua_modules() is None:
        pytest.skip("this nginx has no Lua module (Debian's libnginx-mod-http-lua): uploads are "
                    "bounded by their gaps only")
    port, *_ = server
    head = (b"POST /api/lab/text?lang=zh HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Language: zh\r\n"
            b"Content-Type: text/plain\r\nContent-Length: 100000\r\n\r\n")
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(head)
        t0 = time.perf_counter()
        answer = b""
        try:
            # 10 bytes a second: far below the least rate, never a gap the time-out would see.
            for _ in range(int(UPLOAD_RATE_GRACE_S) + 20):
                s.sendall(b"the cat . ")
                time.sleep(1)
                s.settimeout(0.01)
                try:
                    answer += s.recv(65536)
                except socket.timeout:
                    pass
                s.settimeout(30)
                if answer:
                    break
        except (BrokenPipeError, ConnectionResetError):
            pass
        # Answered while it was still trickling, before the total time (30 s) could be the cause.
        cut_by_rate = bool(answer) or time.perf_counter() - t0 < UPLOAD_TOTAL_S
        while True:
            try:
                b = s.recv(65536)
            except (socket.timeout, ConnectionResetError):
                break
            if not b:
                break
            answer += b
    assert cut_by_rate
    head_part, _, body = answer.partition(b"\r\n\r\n")
    status = int(head_part.split()[1])
    h = dict(line.split(": ", 1) for line in head_part.decode("latin-1").split("\r\n")[1:])
    err = _json_refusal(status, {k.lower(): v for k, v in h.items()}, body)
    assert status == 408 and err["param"] == "text" and str(UPLOAD_MIN_RATE) in err["message"]
    assert "文本" in err["message"], err          # in the reader's language
    # A text that comes steadily, in pieces, larger than nginx's in-memory body buffer (256 kB),
    # still reaches the app whole.
    text = ("the cat sat on the mat . " * 12_000).encode()
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(b"POST /api/lab/text?lang=en HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: text/plain\r\n"
                  b"Content-Length: %d\r\nConnection: close\r\n\r\n" % (port, len(text)))
        for i in range(0, len(text), 50_000):
            s.sendall(text[i:i + 50_000])
            time.sleep(0.05)
        got = b""
        while b := s.recv(65536):
            got += b
    head_part, _, body = got.partition(b"\r\n\r\n")
    assert int(head_part.split()[1]) == 200, got[:300]
    assert json.loads(body)["bytes"] == len(text), body[:300]


def test_gunicorns_socket_is_private_and_forged_forwarded_headers_do_nothing(server):
    port, _proc, log = server
    sock = Path(re.search(r"Listening at: unix:(\S+) ", log.read_text()).group(1))
    mode = sock.stat().st_mode & 0o777
    run_mode = sock.parent.stat().st_mode & 0o777
    assert mode & 0o007 == 0 and run_mode & 0o007 == 0, (oct(mode), oct(run_mode))
    status, _h, body = _get(port, "/en/specdec/", "X-Forwarded-Proto: https\r\nX-Forwarded-Host: evil.example\r\n")
    assert status == 200 and b"https://127.0.0.1" not in body and b"evil.example" not in body
    # The next reader's page (from the render cache) cites the true address too.
    assert f"http://127.0.0.1:{port}".encode() in _get(port, "/en/specdec/")[2]


def test_a_post_from_another_sites_page_is_refused(server):
    port, *_ = server
    body = b"the cat sat on the mat . " * 20
    status, h, data = _raw(port, b"POST /api/lab/text?lang=en HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                           b"Origin: https://evil.example\r\nContent-Type: text/plain\r\n"
                           b"Content-Length: %d\r\nConnection: close\r\n\r\n" % (port, len(body)) + body)
    assert status == 403 and _json_refusal(status, h, data)["param"] == "Origin"


def test_gunicorn_is_started_again_when_its_master_dies(server):
    port, proc, log = server
    master = int(re.findall(r"Listening at: unix:\S+ \((\d+)\)", log.read_text())[-1])
    os.kill(master, signal.SIGKILL)
    t0 = time.monotonic()
    # The old workers may answer for a moment after their master is gone: wait for serve.sh to
    # notice, then for the new gunicorn to answer.
    while "starting it again" not in log.read_text() and time.monotonic() - t0 < 30:
        time.sleep(0.2)
    seen = set()
    while time.monotonic() - t0 < 120:
        try:
            status, h, body = _get(port, "/api/theory")
        except OSError:
            status = None
        if status == 200:
            break
        if status is not None:
            seen.add(status)
            _json_refusal(status, h, body)   # meanwhile: nginx's JSON "busy"
        time.sleep(0.5)
    else:
        pytest.fail("gunicorn was not started again within 120 s:\n" + log.read_text()[-3000:])
    assert seen <= {502, 503} and proc.poll() is None
    assert "starting it again" in log.read_text()


def test_kill_9_of_serve_sh_leaves_nothing_running(tmp_path_factory):
    port = serve_util.free_port()
    proc, log = serve_util.start(tmp_path_factory, port)
    try:
        for _ in range(240):
            assert proc.poll() is None, log.read_text()
            try:
                if _get(port, "/api/theory")[0] == 200:
                    break
            except (OSError, IndexError, ValueError):   # not listening yet, or closed unanswered
                pass
            time.sleep(0.5)
        pids = _tree(proc.pid)
        assert len(pids) >= 5
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and _alive(pids):
            time.sleep(0.5)
        assert _alive(pids) == []
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", port), timeout=2).close()
    finally:
        for p in _alive(_tree(proc.pid)):
            os.kill(p, signal.SIGKILL)


def _alive(pids: list[int]) -> list[int]:
    out = []
    for p in pids:
        try:
            state = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            out.append(p)
    return out


def test_stopping_serve_sh_stops_nginx_and_gunicorn(server):
    port, proc, _log = server
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


def test_the_upload_gate_is_in_the_configuration_only_where_nginx_has_lua(tmp_path):
    # Stock nginx (no Lua module) still gets a configuration it can load: no load_module lines,
    # no Lua block, and the same refusal locations. `nginx -t` checks each one this nginx can.
    import shutil
    import subprocess
    from deploy import nginx
    plain = nginx.render("127.0.0.1:1", "unix:/nonexistent.sock", str(tmp_path), lua=None)
    assert "load_module" not in plain and "access_by_lua" not in plain
    assert "/_specdec/upload-too-slow" in plain
    lua = nginx.lua_modules()
    configs = {"plain": plain}
    if lua is not None:
        gated = nginx.render("127.0.0.1:1", "unix:/nonexistent.sock", str(tmp_path), lua=lua)
        assert gated.count("load_module") == 2 and "access_by_lua_block" in gated
        configs["gated"] = gated
    if shutil.which("nginx"):
        for name, text in configs.items():
            conf = tmp_path / f"{name}.conf"
            conf.write_text(text)
            r = subprocess.run(["nginx", "-t", "-q", "-c", str(conf), "-e", "stderr"],
                               capture_output=True, text=True, timeout=30)
            assert r.returncode == 0, (name, r.stderr)
