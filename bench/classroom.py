"""A class on the server: N students at once, against what the README's run command starts.

Starts ./serve.sh on a free 127.0.0.1 port (nginx in front of gunicorn), then each student, arriving
within the first RAMP_S seconds, loads the page as a browser does (the document, its style sheet,
main.js and, when a chart comes near, plotly.js) and then, every 2 to 10 s, moves a control:
one API answer with fresh values (a section's tape with a new seed, a run with a new seed and γ,
the theory at a new α). Prints the API answers' latency percentiles, the failures (no 200 within
10 s), the server's CPU time and memory. Bounded in count and time; nothing but 127.0.0.1 is
contacted. Every student comes from 127.0.0.1, so nginx's per-address connection limit is raised
for the run (a real class comes from many addresses).

Usage: python3 bench/classroom.py [--students 300] [--seconds 60] [--workers N]
"""
from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.attack import HOST, free_port, request, rss_mib, stop_server, tree  # noqa: E402

RAMP_S = 10.0
TIMEOUT_S = 10.0
MOVE_EVERY_S = (2.0, 10.0)
PAGE = "/en/specdec/"


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of the server's processes (all of them, children included)."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for p in tree(pid):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except (OSError, IndexError, ValueError):
            pass
    return total


def start(port: int, run_dir: Path, workers: int | None):
    import subprocess
    env = {**os.environ, "SPECDEC_TEXT_DIR": str(run_dir / "texts"), "SPECDEC_LOG_LEVEL": "warning",
           "SPECDEC_BIND": f"{HOST}:{port}", "SPECDEC_CONN_PER_ADDR": "65535"}
    env.pop("SPECDEC_REDIS_URL", None)
    if workers:
        env["WEB_CONCURRENCY"] = str(workers)
    root = Path(__file__).resolve().parents[1]
    proc = subprocess.Popen(["./serve.sh"], cwd=root, env=env, stdout=open(run_dir / "server.log", "wb"),
                            stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.time() + 180
    while time.time() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited: see {run_dir / 'server.log'}")
        status, _n, _t = asyncio.run(request(port, "GET", "/api/theory", timeout=2))
        if status == 200:
            return proc
        time.sleep(0.5)
    stop_server(proc)
    raise SystemExit("the server did not start within 180 s")


# What a student's moved control asks, with fresh values (bench/cpu.py --class times each).
MOVES = ("tape", "run", "theory")


def move(kind: int, rng: random.Random) -> str:
    if MOVES[kind] == "tape":
        return f"/api/section/tape?lang=en&seed={rng.randrange(1, 10**6)}"
    if MOVES[kind] == "run":
        return f"/api/run?seed={rng.randrange(1, 10**6)}&gamma={rng.randrange(1, 9)}&tokens=40"
    return f"/api/theory?alpha={rng.randrange(5, 95) / 100}&gamma={rng.randrange(1, 17)}"


async def student(port: int, i: int, until: float, api: list, pages: list, rng: random.Random):
    await asyncio.sleep(rng.uniform(0, RAMP_S))
    gz = {"Accept-Encoding": "gzip"}
    status, _n, t = await request(port, "GET", PAGE, headers=gz, timeout=TIMEOUT_S)
    pages.append((status, t))
    for path in ("/static/css/plate.css", "/static/js/main.js", "/vendor/plotly.min.js"):
        status, _n, t = await request(port, "GET", path, headers=gz, timeout=TIMEOUT_S)
        pages.append((status, t))
    while time.monotonic() < until:
        await asyncio.sleep(rng.uniform(*MOVE_EVERY_S))
        if time.monotonic() >= until:
            break
        kind = rng.randrange(len(MOVES))
        path = move(kind, rng)
        status, _n, t = await request(port, "GET", path, headers=gz, timeout=TIMEOUT_S)
        api.append((status, t, kind))


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


async def main_async(students: int, seconds: float, port: int, pid: int) -> dict:
    rng = random.Random(7)
    api: list = []
    pages: list = []
    cpu0, t0 = cpu_seconds(pid), time.monotonic()
    until = t0 + RAMP_S + seconds
    await asyncio.gather(*(student(port, i, until, api, pages, random.Random(rng.random()))
                           for i in range(students)))
    wall = time.monotonic() - t0
    cpu = cpu_seconds(pid) - cpu0
    ok = [t for s, t, _k in api if s == 200]
    return {"students": students, "answers": len(api), "failed": sum(1 for s, *_ in api if s != 200),
            "p50": pct(ok, 0.5), "p95": pct(ok, 0.95), "p99": pct(ok, 0.99), "max": max(ok, default=0),
            "pages_failed": sum(1 for s, _t in pages if s != 200),
            "page_p95": pct([t for s, t in pages if s == 200], 0.95),
            "cpu_cores": cpu / wall, "wall": wall, "rss": rss_mib(pid)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--students", type=int, default=300, help="1..1500")
    ap.add_argument("--seconds", type=float, default=60, help="after the ramp, 5..300")
    ap.add_argument("--workers", type=int, default=None, help="gunicorn workers (WEB_CONCURRENCY)")
    a = ap.parse_args(argv)
    if not (1 <= a.students <= 1500 and 5 <= a.seconds <= 300):
        ap.error("--students 1..1500, --seconds 5..300")
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="specdec-class-") as d:
        proc = start(port, Path(d), a.workers)
        try:
            r = asyncio.run(main_async(a.students, a.seconds, port, proc.pid))
        finally:
            stop_server(proc)
    load = os.getloadavg()[0]
    print(f"class of {r['students']} on 127.0.0.1:{port}, {os.cpu_count()} cores, load average {load:.2f} "
          f"after; {r['wall']:.0f} s; the load generator shares the cores")
    print("| students | API answers | failed | p50 ms | p95 ms | p99 ms | max ms | pages failed | page p95 ms "
          "| server CPU (cores) | RSS MiB (all, largest) |")
    print(f"| {r['students']} | {r['answers']} | {r['failed']} | {r['p50'] * 1000:.0f} | {r['p95'] * 1000:.0f} "
          f"| {r['p99'] * 1000:.0f} | {r['max'] * 1000:.0f} | {r['pages_failed']} | {r['page_p95'] * 1000:.0f} "
          f"| {r['cpu_cores']:.2f} | {r['rss'][0]:.0f}, {r['rss'][1]:.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
