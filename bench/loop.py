"""The speculative loop's speed: a long run (10,000 tokens, trigram target, bigram draft, γ = 4,
seed 1, the models' caches cleared before each run, as ``python -m bench`` times it), by CPU
time (``time.process_time``: what this process used, less disturbed than wall time by the rest
of a shared machine), best of N, interleaved with the plain loop on the old per-context models
(``generate_steps``, no trigram table) so that both see the same machine; the ratio is the
figure to carry. ``--checkout DIR`` also times ``generate`` of another checkout of the project
(e.g. main, before this change) in a subprocess, interleaved the same way. Prints the load
average before and after: on a busy machine every time is inflated, the ratio much less.

    python3 bench/loop.py [--tokens 10000] [--repeat 7] [--checkout /work/main]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

import corpus  # noqa: E402
import sim.ngram as ngram  # noqa: E402
from sim import examples  # noqa: E402
from sim.speculative import generate, generate_steps  # noqa: E402

# Run in a subprocess for --checkout: times that checkout's own generate.
CHILD = r"""
import json, sys, time
import numpy as np
from sim.ngram import load_models
from sim.speculative import generate
lang, tokens, words = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
m = load_models(lang); t, d = m["trigram"], m["bigram"]
ctx = t.encode(words)
t.clear_caches(); d.clear_caches()
c0 = time.process_time()
run = generate(t, d, ctx, tokens, 4, np.random.default_rng(1))
print(json.dumps({"cpu": time.process_time() - c0, "tokens": run.tokens}))
"""


def context(model, lang):
    # The tubes' starting context (the language record's, or one sim.examples finds): any
    # context the book has will do, the same for every loop timed (the checkout's too).
    return model.encode(list(examples.tubes_context(lang)))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--checkout", help="another checkout whose generate to time as well")
    parser.add_argument("--langs", default="en,zh")
    args = parser.parse_args(argv)
    print(f"load average before: {os.getloadavg()}")
    for lang in args.langs.split(","):
        fast = ngram.load_models(lang)
        old_bytes, ngram.TRIGRAM_TABLE_BYTES = ngram.TRIGRAM_TABLE_BYTES, 0
        snap = corpus.load(lang)
        plain = ngram.models_from_counts(snap.vocab, snap.unigrams, snap.bigrams, snap.trigrams)
        ngram.TRIGRAM_TABLE_BYTES = old_bytes
        times = {"fast": [], "plain": [], "checkout": []}
        tokens = {}

        def timed(name, models, fn):
            t, d = models["trigram"], models["bigram"]
            t.clear_caches(); d.clear_caches()
            c0 = time.process_time()
            run = fn(t, d, context(t, lang), args.tokens, 4, np.random.default_rng(1))
            times[name].append(time.process_time() - c0)
            tokens[name] = run.tokens

        for _ in range(args.repeat):
            timed("fast", fast, generate)
            timed("plain", plain, generate_steps)
            if args.checkout:
                out = subprocess.run([sys.executable, "-c", CHILD, lang, str(args.tokens),
                                      json.dumps(list(examples.tubes_context(lang)))],
                                     cwd=args.checkout, capture_output=True, text=True, check=True,
                                     env={**os.environ, "PYTHONPATH": args.checkout})
                got = json.loads(out.stdout)
                times["checkout"].append(got["cpu"])
                tokens["checkout"] = got["tokens"]
        best = {k: min(v) for k, v in times.items() if v}
        same = all(tokens[k] == tokens["fast"] for k in tokens)
        line = (f"[{lang}] {args.tokens:,} tokens, best of {args.repeat} (CPU s): "
                f"generate {best['fast']:.3f}, plain loop {best['plain']:.3f} "
                f"(ratio {best['fast'] / best['plain']:.2f})")
        if "checkout" in best:
            line += (f", {args.checkout} {best['checkout']:.3f} "
                     f"(ratio {best['fast'] / best['checkout']:.2f})")
        print(line + f"; the same tokens: {same}")
        print(f"  all (CPU s): " + "; ".join(f"{k} " + " ".join(f"{x:.3f}" for x in v)
                                            for k, v in times.items() if v))
    print(f"load average after: {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
