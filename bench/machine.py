"""The bench's machine in headless Chromium with SwiftShader (software WebGL): where its start-up
time goes, the long tasks it adds after load, and its frame timings while it plays.

Opens /embed/<lang>/specdec/bench/ (the machine is in the first view there) with the long-task
observer of bench/pageweight.py installed, once with the machine and once with
prefers-reduced-motion (no machine: the page as it was), then presses Play (the reader's first) and records every
animation frame's interval (requestAnimationFrame timestamps) and the long tasks for PLAY_MS.
Software WebGL draws every pixel on the CPU, so these are a slow machine's figures, and on a
shared machine they move with its load (printed beside them).

Also the cost of one frame drawn on its own (FRAME_COST), the page's own thread's share of each
frame of a pass played at 60 frames a second (MAIN_THREAD), and the CPU time the browser's processes
spend (from /proc): the load of a shared machine stretches wall-clock times, not CPU time.

Usage: python3 bench/machine.py [--lang en] [--width 1280 --width 390] [--rounds 1]
Prints one line per run (load average, fps, frame-interval percentiles, long tasks while playing:
count and longest) on stderr, and every figure as one JSON object on stdout.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app import create_app  # noqa: E402
from corpus.text import DEFAULT_LANG  # noqa: E402
from bench import chromium  # noqa: E402
from bench.chromium import CHROMIUM  # noqa: E402
from bench.pageweight import LONG_TASKS_AFTER_LOAD, LONG_TASKS_INIT  # noqa: E402

PLAY_MS = 8000
SETTLE_MS = 4000

# The cost of one frame, apart from the page's other work and the browser's frame pacing: the
# machine posed at 60 moments of pass 1 and drawn, each waited for to the last pixel (a pixel read back),
# so the GPU process's software rasterizing is counted too. Also the share of frames whose slip or
# tape picture changes (a canvas repainted and uploaded).
FRAME_COST = """async () => {
  const host = document.querySelector('.machine'), m = host.machine, e = m.view.e;
  const gl = e.renderer.getContext();
  const times = [], px = new Uint8Array(4);
  for (let k = 0; k <= 60; k++) {
    const t0 = performance.now();
    m.seek(1, k / 60); gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px);
    times.push(performance.now() - t0);
    await new Promise((ok) => setTimeout(ok, 0));
  }
  return times.slice(1);
}"""

# What a frame costs the page's own thread, apart from rasterizing (which a GPU does, and which
# SwiftShader does in the GPU process): pass 2 played at 60 frames a second's steps, one frame per
# animation frame, each pose and draw call timed (the slip's and the tape's repaints included).
# At 60 frames a second a frame has 16.7 ms.
MAIN_THREAD = """async () => {
  const v = document.querySelector('.machine').machine.view, times = [];
  v.pass = 2; v.f = 0;
  for (let k = 0; k < 192; k++) {
    await new Promise((ok) => requestAnimationFrame(ok));
    const t0 = performance.now();
    v.playing = true; v.advance(1 / 60); v.draw();
    times.push(performance.now() - t0);
  }
  v.playing = false;
  return times;
}"""

FRAMES_INIT = """window.__frames = []; (function f(t) { window.__frames.push(t); requestAnimationFrame(f); })(0);"""


def tree_cpu(root=None):
    """CPU seconds (user + system) so far of every process descended from ``root`` (this one):
    the browser's, which the load of a shared machine slows but does not add to."""
    root = root or os.getpid()
    kids, ticks = {}, {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            raw = Path(f"/proc/{d}/stat").read_text()
        except OSError:
            continue
        rest = raw[raw.rindex(")") + 2:].split()
        kids.setdefault(int(rest[1]), []).append(int(d))
        ticks[int(d)] = int(rest[11]) + int(rest[12])
    total, todo = 0, [root]
    while todo:
        for c in kids.get(todo.pop(), []):
            total += ticks.get(c, 0)
            todo.append(c)
    return total / os.sysconf("SC_CLK_TCK")


def summary(xs):
    xs = sorted(xs)
    if not xs:
        return None
    pick = lambda q: xs[min(len(xs) - 1, int(q * len(xs)))]  # noqa: E731
    return {"n": len(xs), "median": round(statistics.median(xs), 1), "p90": round(pick(0.9), 1),
            "p95": round(pick(0.95), 1), "p99": round(pick(0.99), 1), "max": round(xs[-1], 1)}


def measure(browser, base, lang, width, reduced):
    ctx = browser.new_context(viewport={"width": width, "height": 900},
                              reduced_motion="reduce" if reduced else "no-preference")
    page = ctx.new_page()
    page.add_init_script(LONG_TASKS_INIT)
    page.goto(f"{base}/embed/{lang}/specdec/bench/?batch=1")
    page.wait_for_selector("html[data-ready='1']", state="attached", timeout=60_000)
    if not reduced:
        page.wait_for_selector(".machine[data-machine=live]", state="attached", timeout=120_000)
    page.wait_for_timeout(SETTLE_MS)
    out = {"long_tasks_after_load_ms": [round(d) for _s, d in page.evaluate(LONG_TASKS_AFTER_LOAD)]}
    if reduced:
        ctx.close()
        return out
    out["startup_marks_ms"] = page.evaluate("""() => performance.getEntriesByType('mark')
        .filter(m => m.name.startsWith('machine:')).map(m => [m.name.slice(8, 40), Math.round(m.startTime)])""")
    out["draw_calls"] = page.evaluate("() => document.querySelector('.machine').machine.view.e.renderer.info.render.calls")
    out["drawing_buffer"] = page.evaluate("() => { const c = document.querySelector('.machine-canvas'); return [c.width, c.height]; }")
    mark = page.evaluate("() => performance.now()")
    page.evaluate(FRAMES_INIT)
    page.click("[data-act=play]")
    cpu = tree_cpu()
    page.wait_for_timeout(PLAY_MS)
    cpu = tree_cpu() - cpu
    page.click("[data-act=play]")  # pause
    frames = page.evaluate("() => window.__frames.slice(1)")
    gaps = [b - a for a, b in zip(frames, frames[1:])]
    tasks = [d for s, d in page.evaluate("() => window.__longTasks") if s >= mark]
    out["playing"] = {"frame_interval_ms": summary(gaps), "frames_per_s": round(len(gaps) / (PLAY_MS / 1000), 1),
                      "long_tasks_ms": summary(tasks), "tasks_over_50ms": len(tasks),
                      "longest_task_ms": round(max(tasks, default=0)),
                      "browser_cpu_s": round(cpu, 2), "browser_cpu_ms_per_frame": round(cpu * 1000 / max(1, len(gaps)), 1)}
    # After playing: posing every moment of a pass would build whatever the first play builds
    # (a program first drawn mid-pass), and the playing figures are a reader's first play.
    cpu = tree_cpu()
    out["frame_cost_ms"] = summary(page.evaluate(FRAME_COST))
    out["frame_cost_browser_cpu_ms"] = round((tree_cpu() - cpu) / 60 * 1000, 1)
    times = page.evaluate(MAIN_THREAD)
    out["main_thread_ms"] = summary(times) | {"over_16_7": sum(t > 1000 / 60 for t in times)}
    ctx.close()
    return out


def line(r):
    """One run in a line: what bench3d.md's table records."""
    w = r["with_machine"]
    p, mt = w["playing"], w["main_thread_ms"]
    fi = p["frame_interval_ms"] or {}
    return (f"{r['lang']} {r['width']} px  load {r['load_average']:.1f}-{r['load_average_after']:.1f}  "
            f"buffer {w['drawing_buffer'][0]}x{w['drawing_buffer'][1]}  calls {w['draw_calls']}  "
            f"frame drawn cpu {w['frame_cost_browser_cpu_ms']} ms  playing {p['frames_per_s']} fps  "
            f"interval p50/p90/p95/p99 {fi.get('median')}/{fi.get('p90')}/{fi.get('p95')}/{fi.get('p99')} ms  "
            f"long tasks {p['tasks_over_50ms']} (max {p['longest_task_ms']} ms)  cpu/frame {p['browser_cpu_ms_per_frame']} ms  "
            f"main thread p50/p99/max {mt['median']}/{mt['p99']}/{mt['max']} ms ({mt['over_16_7']} of {mt['n']} over 16.7)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lang", default=DEFAULT_LANG)
    ap.add_argument("--width", type=int, action="append", help="viewport width (repeat for several; 1280 if none)")
    ap.add_argument("--rounds", type=int, default=1, help="measure every width this many times, in turn")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    from tests.conftest import LiveServer
    results = []
    with LiveServer(create_app({"TESTING": True})) as srv, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=chromium.SWIFTSHADER, headless=True)
        for _ in range(args.rounds):
            for width in args.width or [1280]:
                result = {"lang": args.lang, "width": width, "load_average": os.getloadavg()[0],
                          "cpus": os.cpu_count(),
                          "without_machine": measure(browser, srv.url, args.lang, width, reduced=True),
                          "with_machine": measure(browser, srv.url, args.lang, width, reduced=False)}
                result["load_average_after"] = os.getloadavg()[0]
                print(line(result), file=sys.stderr, flush=True)
                results.append(result)
        browser.close()
    print(json.dumps(results[0] if len(results) == 1 else results, indent=1))


if __name__ == "__main__":
    main()
