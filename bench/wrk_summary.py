"""Summarise wrk outputs from bench/load.sh: one row per target, then the plate vs static ratio.

Usage: python3 bench/wrk_summary.py DIR NAME... [--rss-before KB --rss-after KB --size BYTES]
(reads DIR/NAME.txt, each the output of `wrk --latency`).
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1e3, "m": 60e3}


def _ms(text: str) -> float:
    m = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text)
    return float(m.group(1)) * _UNITS[m.group(2)] if m else float("nan")


def parse(text: str) -> dict:
    """Numbers from one wrk --latency report."""
    out = {"rps": float("nan"), "requests": 0, "non2xx": 0, "socket_errors": 0}
    if m := re.search(r"Requests/sec:\s+([\d.]+)", text):
        out["rps"] = float(m.group(1))
    if m := re.search(r"(\d+) requests in", text):
        out["requests"] = int(m.group(1))
    for pct in ("50", "90", "99"):
        m = re.search(rf"^\s+{pct}(?:\.000)?%\s+(\S+)", text, re.M)
        out[f"p{pct}"] = _ms(m.group(1)) if m else float("nan")
    if m := re.search(r"Non-2xx or 3xx responses: (\d+)", text):
        out["non2xx"] = int(m.group(1))
    if m := re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text):
        out["socket_errors"] = sum(int(x) for x in m.groups())
    if m := re.search(r"Transfer/sec:\s+(\S+)", text):
        out["transfer"] = m.group(1)
    if m := re.search(r"RSS after: (\d+)", text):  # appended by bench/load.sh
        out["rss_mib"] = int(m.group(1)) / 1024
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("names", nargs="+")
    ap.add_argument("--rss-before", type=int)
    ap.add_argument("--rss-after", type=int)
    ap.add_argument("--size", type=int, help="bytes of the plate (and of its static twin)")
    a = ap.parse_args(argv)

    rows = {n: parse((Path(a.dir) / f"{n}.txt").read_text(errors="replace")) for n in a.names}
    head = f"{'target':<10} {'req/s':>9} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'requests':>9} {'errors':>7} {'RSS MiB':>8}  transfer/s"
    print(head)
    print("-" * len(head))
    for n, r in rows.items():
        errors = r["non2xx"] + r["socket_errors"]
        print(f"{n:<10} {r['rps']:>9.0f} {r['p50']:>8.1f} {r['p90']:>8.1f} {r['p99']:>8.1f} "
              f"{r['requests']:>9} {errors:>7} {r.get('rss_mib', float('nan')):>8.0f}  "
              f"{r.get('transfer', '?')}")
    if "plate" in rows and "static" in rows and rows["static"]["rps"] > 0:
        share = rows["plate"]["rps"] / rows["static"]["rps"]
        size = f" ({a.size / 1024:.0f} KiB uncompressed)" if a.size else ""
        print(f"\nplate served at {share:.0%} of the rate of a static file of the same size{size}")
    if a.rss_before and a.rss_after:
        print(f"server RSS (master + workers): {a.rss_before / 1024:.0f} MiB before, "
              f"{a.rss_after / 1024:.0f} MiB after ({(a.rss_after - a.rss_before) / 1024:+.0f} MiB)")
    bad = sum(r["non2xx"] + r["socket_errors"] for r in rows.values())
    print(f"errors over the run: {bad}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
