"""The attacks of issue 16 against a server on this machine's loopback, bounded in count and time.

Starts the server on a free 127.0.0.1 port (one of three setups), runs each attack while a prober
plays an ordinary reader, stops the server, and prints one row per attack: how the reader's
requests fared (latency percentiles, failures: no answer within 5 s, or not a 200) and the
server's memory. Nothing but 127.0.0.1 is ever contacted.

Setups (--server):
  nginx    what the README's run command starts: ./serve.sh (nginx in front of gunicorn gthread)
  gthread  gunicorn alone, as it was served before issue 16 (3 workers × 4 threads)
  gevent   gunicorn alone with gevent's worker (a greenlet per connection, no thread tied up;
           needs `pip install gevent`, which the app itself does not)

Attacks (--only NAME[,NAME]; all by default):
  baseline     the prober alone
  partial      N connections that send the first 45 bytes of a request, then wait
  slow-headers N connections that send a header line every 2 s, never ending the headers
  silent       N connections that connect and send nothing
  slow-body    N uploads that announce 1 MB and send 10 bytes every 2 s
  slow-read    N requests for the page (244 KB) whose answer is never read
  slow-plotly  N requests for plotly.js (the first chart's bundle) whose answer is never read;
               the note gives what nginx wrote to its temporary folders meanwhile
  (each of these keeps N connections open for the attack's duration: one closed by the server
  is opened again at once)
  uploads      24 different 2 MB texts uploaded at once (a 503 sent again after Retry-After, as
               the lab's script does, 15 times at most)
  giant        a 2 MB text of 60 words of 34,000 letters: the answers' sizes and the memory
  texts        50 (--texts) different 1 MB texts, each uploaded and run once: the memory afterwards
  junk         300 page requests each with a parameter of its own, then 300 each with a Host of
               its own: how long they take (a full render is ~0.2 s, a cached page a few ms)

Usage: python3 bench/attack.py [--server nginx|gthread|gevent] [--conns 200] [--seconds 20]
"""
from __future__ import annotations

import argparse
import asyncio
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
PROBE_EVERY_S = 0.1
PROBE_TIMEOUT_S = 5.0
PROBE_PATHS = ("/api/theory?alpha=0.6", "/embed/en/specdec/tape/", "/api/run?tokens=40&gamma=4")
ATTACKS = ("baseline", "partial", "slow-headers", "silent", "slow-body", "slow-read", "slow-plotly", "uploads",
           "giant", "texts", "junk")


# ---- the server --------------------------------------------------------------------------------

PER_ADDRESS_LIMITS = False


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def start_server(kind: str, port: int, run_dir: Path) -> subprocess.Popen:
    env = {**os.environ, "SPECDEC_TEXT_DIR": str(run_dir / "texts"), "SPECDEC_LOG_LEVEL": "warning"}
    env.pop("SPECDEC_REDIS_URL", None)
    if kind == "nginx":
        cmd = ["./serve.sh"]
        env["SPECDEC_BIND"] = f"{HOST}:{port}"
        # Every attack comes from 127.0.0.1: the per-address upload limits (deploy/nginx.py)
        # would refuse the memory scenarios' texts after the first few (--per-address-limits
        # keeps them, to see them refuse).
        if not PER_ADDRESS_LIMITS:
            env.setdefault("SPECDEC_UPLOADS_PER_MIN", "100000")
            env.setdefault("SPECDEC_UPLOADS_PER_ADDR", "64")
    else:
        cmd = ["gunicorn", "app:create_app()", "-c", "gunicorn.conf.py", "--bind", f"{HOST}:{port}"]
        env["SPECDEC_HOSTS"] = f"{HOST}:{port}"
        if kind == "gevent":
            cmd += ["-k", "gevent", "--worker-connections", "1000"]
    log = open(run_dir / "server.log", "wb")
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited: see {run_dir / 'server.log'}")
        try:
            with socket.create_connection((HOST, port), timeout=1) as s:
                s.sendall(b"GET /api/theory HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                if s.recv(12).startswith(b"HTTP/1.1 200"):
                    return proc
        except OSError:
            pass
        time.sleep(0.5)
    stop_server(proc)
    raise SystemExit("the server did not start within 120 s")


def stop_server(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)   # serve.sh stops nginx and gunicorn; gunicorn its workers
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(5)


def tree(pid: int) -> list[int]:
    """pid and all its descendants (from /proc)."""
    children: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                ppid = int(Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(children.get(p, []))
    return out


def rss_mib(pid: int) -> tuple[float, float]:
    """(the whole server's RSS, its largest process's), MiB."""
    sizes = []
    for p in tree(pid):
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    sizes.append(int(line.split()[1]) / 1024)
        except OSError:
            pass
    return sum(sizes), max(sizes, default=0.0)


# ---- HTTP over raw connections -----------------------------------------------------------------

async def request(port: int, method: str, path: str, body: bytes = b"", headers: dict | None = None,
                  timeout: float = PROBE_TIMEOUT_S) -> tuple[int, int, float]:
    """(status, body bytes, seconds); status 0 if no answer in time or the connection failed."""
    t0 = time.perf_counter()
    head = {"Host": f"{HOST}:{port}", "Connection": "close", **(headers or {})}
    if body or method == "POST":
        head["Content-Length"] = str(len(body))
    raw = (f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in head.items())
           + "\r\n").encode() + body
    writer = None
    try:
        async def go():
            nonlocal writer
            reader, writer = await asyncio.open_connection(HOST, port)
            writer.write(raw)
            await writer.drain()
            return await reader.read()
        data = await asyncio.wait_for(go(), timeout)
        status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/") else 0
        size = len(data) - data.find(b"\r\n\r\n") - 4
        return status, size, time.perf_counter() - t0
    except (asyncio.TimeoutError, OSError, ValueError, IndexError):
        return 0, 0, time.perf_counter() - t0
    finally:
        if writer is not None:
            writer.close()


async def probe(port: int, stop: asyncio.Event, results: list) -> None:
    """An ordinary reader: a request every PROBE_EVERY_S, each on its own connection."""
    tasks, i = [], 0
    while not stop.is_set():
        path = PROBE_PATHS[i % len(PROBE_PATHS)]
        i += 1
        tasks.append(asyncio.create_task(request(port, "GET", path)))
        try:
            await asyncio.wait_for(stop.wait(), PROBE_EVERY_S)
        except asyncio.TimeoutError:
            pass
    results.extend(await asyncio.gather(*tasks))


async def hold(kind: str, port: int, stop: asyncio.Event, counts: dict) -> None:
    """One attacking connection, opened again whenever the server closes it, until stop. The
    attackers connect over the first two seconds (a burst of 200 requests at once would measure
    load, not slowness)."""
    await asyncio.sleep(random.uniform(0, 2))
    while not stop.is_set():
        writer = closed = None
        try:
            if kind in ("slow-read", "slow-plotly"):
                sock = socket.socket()
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                sock.setblocking(False)
                await asyncio.wait_for(asyncio.get_running_loop().sock_connect(sock, (HOST, port)), 5)
                reader, writer = await asyncio.open_connection(sock=sock)
            else:
                reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, port), 5)
        except (OSError, asyncio.TimeoutError):
            counts["refused"] += 1
            await asyncio.sleep(0.2)
            continue
        counts["opened"] += 1
        try:
            writer.write({
                "partial": b"GET /en/specdec/ HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: a",   # 45 bytes
                "slow-headers": b"GET /en/specdec/ HTTP/1.1\r\nHost: 127.0.0.1\r\n",
                "silent": b"",
                "slow-body": (b"POST /api/lab/text?lang=en HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                              b"Content-Length: 1000000\r\n\r\n"),
                "slow-read": b"GET /en/specdec/ HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",   # 244 KB, rendered already
                "slow-plotly": b"GET /vendor/plotly.min.js HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",   # 1.2 MB
            }[kind])
            await writer.drain()
            closed = asyncio.create_task(_until_closed(reader, kind))
            while not stop.is_set() and not closed.done():
                await asyncio.wait({closed}, timeout=2)
                if closed.done():
                    break
                if kind == "slow-headers":
                    writer.write(b"X-a: b\r\n")
                elif kind == "slow-body":
                    writer.write(b"aaaaaaaaa ")
                await writer.drain()
        except OSError:
            pass   # reset by the server
        if not stop.is_set():
            counts["closed_by_server"] += 1
        if closed is not None:
            closed.cancel()
        writer.close()


class Spool:
    """The largest size, over an attack, of nginx's temporary folders (its proxy spool): the run
    folder of serve.sh, found from nginx's command line."""

    def __init__(self, pid: int):
        import threading
        self.pid, self.peak, self._stop = pid, 0, threading.Event()
        self._t = threading.Thread(target=self._watch, daemon=True)

    def _dirs(self) -> list[Path]:
        for p in tree(self.pid):
            try:
                cmd = Path(f"/proc/{p}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"-p" in cmd and any(b"nginx" in c for c in cmd[:1]):
                run = Path(cmd[cmd.index(b"-p") + 1].decode())
                return [run / "proxy", run / "client_body"]
        return []

    def _watch(self) -> None:
        dirs = self._dirs()
        while not self._stop.wait(0.5):
            total = 0
            for d in dirs:
                for f in d.rglob("*"):
                    try:
                        total += f.stat().st_blocks * 512
                    except OSError:
                        pass
            self.peak = max(self.peak, total)

    def start(self) -> None:
        self._t.start()

    def stop(self) -> int:
        self._stop.set()
        self._t.join(5)
        return self.peak


async def _until_closed(reader, kind: str) -> None:
    try:
        if kind in ("slow-read", "slow-plotly"):
            # Never read the answer: only notice the server giving up (it closes its end).
            while not reader.at_eof():
                await asyncio.sleep(1)
            return
        while await reader.read(65536):
            pass
    except OSError:
        return


def summary(results: list) -> dict:
    lat = sorted(t * 1000 for status, _n, t in results if status == 200)
    failed = sum(1 for status, _n, _t in results if status != 200)
    q = (lambda f: lat[min(len(lat) - 1, int(f * len(lat)))] if lat else float("nan"))
    return {"probes": len(results), "p50": q(0.5), "p99": q(0.99), "max": lat[-1] if lat else float("nan"),
            "failed": failed, "over_1s": sum(1 for x in lat if x > 1000) + failed}


# ---- the attacks -------------------------------------------------------------------------------

async def with_probe(port: int, seconds: float, attack) -> tuple[dict, object]:
    stop = asyncio.Event()
    results: list = []
    prober = asyncio.create_task(probe(port, stop, results))
    outcome = await attack(stop)
    await prober
    return summary(results), outcome


async def connections_attack(kind: str, port: int, n: int, seconds: float):
    counts = {"opened": 0, "closed_by_server": 0, "refused": 0}

    async def attack(stop):
        holders = [asyncio.create_task(hold(kind, port, stop, counts)) for _ in range(n)]
        await asyncio.sleep(min(3.0, seconds / 4))   # let every attacker connect first
        await asyncio.sleep(seconds)
        stop.set()
        await asyncio.gather(*holders)
        return counts
    return await with_probe(port, seconds, attack)


def words_text(seed: int, n_bytes: int) -> bytes:
    rng = random.Random(seed)
    out, size = [], 0
    while size < n_bytes - 20:
        w = f"w{int(rng.paretovariate(1.2) * 10) % 40000}"
        out.append(w)
        size += len(w) + 1
    return " ".join(out).encode()[:n_bytes - 1]


async def uploads_attack(port: int, n: int = 24):
    texts = [words_text(1000 + i, 2 * 1024 * 1024 - 100) for i in range(n)]

    async def upload(t):
        # As the lab's script does: a 503 is sent again after its Retry-After, 15 times at most.
        t0 = time.perf_counter()
        first = None
        for attempt in range(16):
            status, _n, _t = await request(port, "POST", "/api/lab/text?lang=en", t, timeout=120)
            first = status if first is None else first
            if status != 503 or attempt == 15:
                break
            await asyncio.sleep(2)
        return first, status, time.perf_counter() - t0

    async def attack(stop):
        t0 = time.perf_counter()
        res = await asyncio.gather(*[upload(t) for t in texts])
        stop.set()
        first: dict = {}
        final: dict = {}
        for a, b, _t in res:
            first[a] = first.get(a, 0) + 1
            final[b] = final.get(b, 0) + 1
        return {"first": first, "final": final, "slowest_s": round(max(t for _a, _b, t in res), 1),
                "all_s": round(time.perf_counter() - t0, 1)}
    return await with_probe(port, 0, attack)


async def giant_attack(port: int, pid: int):
    raw = " ".join(f"w{i}" + "a" * 34_000 for i in range(60)).encode()
    before = rss_mib(pid)
    status, _n, _t = await request(port, "POST", "/api/lab/text?lang=en", raw, timeout=60)
    import hashlib
    h = hashlib.sha256(raw).hexdigest()
    sizes = {"upload": status}
    for seed in range(1, 31):
        s, n, _t = await request(port, "GET", f"/api/lab/run?text={h}&tokens=200&gamma=8&seed={seed}", timeout=60)
        sizes["run_bytes"] = max(sizes.get("run_bytes", 0), n)
        s, n, _t = await request(port, "GET", f"/en/specdec/?text={h}&tlang=en&seed={seed}", timeout=60)
        sizes["page_bytes"] = max(sizes.get("page_bytes", 0), n)
    after = rss_mib(pid)
    return {**sizes, "rss_before": before, "rss_after": after}


async def texts_attack(port: int, pid: int, n: int = 50):
    import hashlib
    before = rss_mib(pid)
    codes: dict = {}
    for i in range(n):
        raw = words_text(5000 + i, 1024 * 1024)
        s, _n, _t = await request(port, "POST", "/api/lab/text?lang=en", raw, timeout=60)
        codes[s] = codes.get(s, 0) + 1
        h = hashlib.sha256(raw).hexdigest()
        s, _n, _t = await request(port, "GET", f"/api/lab/run?text={h}&gamma=8&tokens=200", timeout=60)
        codes[f"run {s}"] = codes.get(f"run {s}", 0) + 1
    return {"statuses": codes, "rss_before": before, "rss_after": rss_mib(pid)}


async def junk_attack(port: int, pid: int, n: int = 300):
    before = rss_mib(pid)
    out = {}
    for name, make in (("params", lambda i: ("/en/specdec/?seed=3&junk%d=1" % i, {})),
                       ("hosts", lambda i: ("/en/specdec/?seed=3", {"Host": f"evil{i}.example"}))):
        t0 = time.perf_counter()
        lat = []
        for i in range(n):
            path, headers = make(i)
            s, _n, t = await request(port, "GET", path, headers=headers, timeout=30)
            lat.append(t * 1000)
        out[name] = {"mean_ms": round(statistics.mean(lat), 1), "total_s": round(time.perf_counter() - t0, 1)}
    return {**out, "rss_before": before, "rss_after": rss_mib(pid)}


# ---- main --------------------------------------------------------------------------------------

def fmt_rss(r) -> str:
    return f"{r[0]:.0f} (largest {r[1]:.0f})"


async def run(kind: str, conns: int, seconds: float, only: list[str], n_texts: int = 50) -> None:
    import tempfile
    run_dir = Path(tempfile.mkdtemp(prefix="specdec-attack-"))
    port = free_port()
    proc = start_server(kind, port, run_dir)
    load = os.getloadavg()
    print(f"specdec attacks: server {kind} on {HOST}:{port}, {os.cpu_count()} cores, load average "
          f"{load[0]:.2f} at the start; {conns} attacking connections for {seconds:.0f} s each; "
          f"a reader's request every {PROBE_EVERY_S * 1000:.0f} ms (failure: no 200 within {PROBE_TIMEOUT_S:.0f} s)")
    print()
    head = (f"| attack | reader's requests | p50 ms | p99 ms | max ms | failed | over 1 s | "
            f"server RSS MiB after | notes |")
    print(head)
    print("|" + "---|" * 9)
    try:
        for name in only:
            note = ""
            if name == "baseline":
                res, _o = await with_probe(port, seconds, lambda stop: _sleep_then(stop, min(seconds, 5)))
            elif name in ("partial", "slow-headers", "silent", "slow-body", "slow-read", "slow-plotly"):
                spool = Spool(proc.pid) if name == "slow-plotly" else None
                if spool:
                    spool.start()
                res, counts = await connections_attack(name, port, conns, seconds)
                note = (f"{counts['opened']} opened, {counts['closed_by_server']} closed by the server, "
                        f"{counts['refused']} refused or timed out")
                if spool:
                    note += f"; nginx's temporary files at most {spool.stop() / 2**20:.1f} MiB"
            elif name == "uploads":
                res, o = await uploads_attack(port)
                note = (f"first answers {o['first']}, after retrying 503s {o['final']}; "
                        f"the last done in {o['slowest_s']} s")
            elif name == "giant":
                o = await giant_attack(port, proc.pid)
                res = None
                note = (f"upload {o['upload']}; largest /api/lab/run answer {o['run_bytes'] / 1024:.0f} KiB, "
                        f"page {o['page_bytes'] / 1024:.0f} KiB; RSS {fmt_rss(o['rss_before'])} -> "
                        f"{fmt_rss(o['rss_after'])}")
            elif name == "texts":
                o = await texts_attack(port, proc.pid, n_texts)
                res = None
                note = f"{o['statuses']}; RSS {fmt_rss(o['rss_before'])} -> {fmt_rss(o['rss_after'])}"
            elif name == "junk":
                o = await junk_attack(port, proc.pid)
                res = None
                note = (f"unknown parameters: {o['params']['mean_ms']} ms a page; forged Hosts: "
                        f"{o['hosts']['mean_ms']} ms a page; RSS {fmt_rss(o['rss_before'])} -> "
                        f"{fmt_rss(o['rss_after'])}")
            else:
                raise SystemExit(f"unknown attack {name!r}")
            r = rss_mib(proc.pid)
            if res is None:
                print(f"| {name} | | | | | | | {fmt_rss(r)} | {note} |")
            else:
                print(f"| {name} | {res['probes']} | {res['p50']:.0f} | {res['p99']:.0f} | {res['max']:.0f} | "
                      f"{res['failed']} | {res['over_1s']} | {fmt_rss(r)} | {note} |")
            sys.stdout.flush()
            await asyncio.sleep(2)   # let the server settle between attacks
    finally:
        stop_server(proc)
        import shutil
        shutil.rmtree(run_dir, ignore_errors=True)


async def _sleep_then(stop, seconds):
    await asyncio.sleep(seconds)
    stop.set()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--server", choices=("nginx", "gthread", "gevent"), default="nginx")
    ap.add_argument("--conns", type=int, default=200, help="attacking connections (1..8500; the issue's slow uploads were 8,500)")
    ap.add_argument("--seconds", type=float, default=20, help="per attack (1..120)")
    ap.add_argument("--only", default=",".join(ATTACKS))
    ap.add_argument("--texts", type=int, default=50, help="texts of 1 MB for the 'texts' attack (1..200)")
    ap.add_argument("--per-address-limits", action="store_true",
                    help="keep nginx's per-address upload limits (all attacks come from one address)")
    a = ap.parse_args(argv)
    global PER_ADDRESS_LIMITS
    PER_ADDRESS_LIMITS = a.per_address_limits
    if not (1 <= a.conns <= 8500 and 1 <= a.seconds <= 120 and 1 <= a.texts <= 200):
        ap.error("--conns 1..8500, --seconds 1..120, --texts 1..200")
    only = [x for x in a.only.split(",") if x]
    asyncio.run(run(a.server, a.conns, a.seconds, only, a.texts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
