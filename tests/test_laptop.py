"""`specdec serve` from a built wheel in a fresh virtual environment (deploy/laptop.py): the
console script starts waitress with no nginx, no apt and no compiler, serves the plate in both
languages, and refuses a busy port in words. The environment reuses the test environment's
installed dependencies as tests/test_packaging.py explains."""
from __future__ import annotations

import http.client
import shutil
import site
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.test_packaging import NOT_IN_A_CLONE, ROOT, _run



def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _get(port, path):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path)
        r = conn.getresponse()
        return r.status, r.read().decode("utf-8", "replace")
    finally:
        conn.close()


@pytest.mark.slow
def test_specdec_serve_runs_from_a_wheel_in_a_fresh_venv(tmp_path):
    src = tmp_path / "specdec"
    shutil.copytree(ROOT, src, ignore=NOT_IN_A_CLONE)
    wheels = tmp_path / "wheels"
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", wheels, src], cwd=tmp_path)
    wheel = next(wheels.glob("specdec-*.whl"))
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv])
    py = venv / "bin" / "python"
    purelib = _run([py, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]).strip()
    Path(purelib, "test-environment.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    _run([py, "-m", "pip", "install", "-q", "--no-deps", wheel], cwd=tmp_path)
    script = venv / "bin" / "specdec"
    assert script.is_file()
    # Its dependencies are the declared ones, pure Python among them for serving.
    meta = _run([py, "-c", "from importlib.metadata import requires; print('\\n'.join(requires('specdec')))"])
    assert any(r.startswith("waitress") for r in meta.split()) and any(r.startswith("segno") for r in meta.split())

    port = _free_port()
    proc = subprocess.Popen([script, "serve", "--port", str(port)], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        for _ in range(120):
            if proc.poll() is not None:
                pytest.fail(f"specdec serve exited:\n{proc.stdout.read()}")
            try:
                status, _body = _get(port, "/api/theory")
                if status == 200:
                    break
            except OSError:
                pass
            time.sleep(0.5)
        else:
            pytest.fail("specdec serve did not answer within 60 s")
        status, zh = _get(port, "/zh/specdec/teach/")
        assert status == 200 and "教师页" in zh
        status, en = _get(port, "/en/specdec/")
        assert status == 200 and "Speculative decoding" in en
        assert _get(port, "/static/css/plate.css")[0] == 200
        # A second copy on the same port says so and stops.
        busy = subprocess.run([script, "serve", "--port", str(port)], capture_output=True, text=True, timeout=60)
        assert busy.returncode == 2 and f"port {port} is busy" in busy.stderr
    finally:
        proc.terminate()
        try:
            out, _ = proc.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
    assert f"http://127.0.0.1:{port}/" in out


def test_lan_prints_the_address_and_its_qr_code(monkeypatch, capsys):
    from deploy import laptop
    served = {}
    monkeypatch.setattr(laptop, "lan_address", lambda: "192.168.7.20")
    monkeypatch.setattr(laptop, "port_free", lambda host, port: True)
    import waitress
    monkeypatch.setattr(waitress, "serve", lambda app, **kw: served.update(kw, app=app))
    assert laptop.main(["serve", "--lan", "--port", "8123"]) == 0
    out = capsys.readouterr().out
    assert "http://192.168.7.20:8123/" in out
    assert served["host"] == "0.0.0.0" and served["port"] == 8123
    qr = laptop.qr_text("http://192.168.7.20:8123/")
    assert qr in out and len(qr.splitlines()) > 10 and "█" in qr
    # Pages then print the address students reach (the server's own name comes first).
    c = served["app"].test_client()
    r = c.get("/en/specdec/teach/", headers={"Host": "evil.example"})
    assert "http://192.168.7.20:8123/en/specdec/" in r.get_data(as_text=True)
