"""``python -m bench``: our models against NLTK's, side by side in one run, as ratios.

1. Building the models from the token streams: our counting + table build vs NLTK's ``fit``.
2. The full next-token distribution: ours (one vectorised call, caches cleared) vs NLTK's ``score``
   called for every token of the vocabulary. NLTK is timed on a sample of the contexts (it takes
   about a tenth of a second per context); both are reported per context.
3. A 10,000-token speculative run (trigram target, bigram draft, γ = 4).

Needs the book texts in ../shared/corpus (parts 1 and 2 read them); prints what it measured.
"""
from __future__ import annotations

import argparse
import gc
import time

import numpy as np
from nltk.lm import WittenBellInterpolated
from nltk.util import everygrams

import corpus
from corpus import snapshot
from sim.ngram import NGramModel, load_models
from sim.speculative import generate


def best_of(repeat: int, fn, setup=None) -> float:
    """The fastest of ``repeat`` runs, in seconds of this process's CPU time (the least disturbed
    by the rest of a shared machine); ``setup`` runs before each, untimed."""
    times = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return min(times)


def build_ours(documents):
    """Count the streams and build the trigram from the count arrays (what ``snapshot.count``
    writes to JSON is the same counts as lists, a step of saving them, not of building)."""
    c = snapshot.count_arrays(documents)
    return NGramModel(c["vocab"], c["unigrams"], c["bigrams"], c["trigrams"], 3)


def build_nltk(documents):
    lm = WittenBellInterpolated(3)
    lm.fit([everygrams(doc, max_len=3) for doc in documents],
           vocabulary_text=[tok for doc in documents for tok in doc])
    return lm


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--contexts", type=int, default=1000)
    parser.add_argument("--nltk-contexts", type=int, default=20, help="contexts NLTK is timed on")
    parser.add_argument("--tokens", type=int, default=10_000)
    args = parser.parse_args(argv)

    for lang in corpus.LANGS:
        documents = corpus.read_documents(lang)
        n_tokens = sum(map(len, documents))
        ours_build = best_of(3, lambda: build_ours(documents))
        nltk_build = best_of(3, lambda: build_nltk(documents))
        model, lm = build_ours(documents), build_nltk(documents)
        print(f"[{lang}] {n_tokens:,} tokens, vocabulary {model.V:,}")
        print(f"  build      ours {ours_build * 1e3:8.1f} ms   nltk {nltk_build * 1e3:8.1f} ms"
              f"   ratio {nltk_build / ours_build:8.1f}x")

        rng = np.random.default_rng(0)
        pairs = [divmod(k, model.V) for k in model._pair_row]
        picks = rng.choice(len(pairs), size=args.contexts, replace=len(pairs) < args.contexts)
        contexts = [pairs[i] for i in picks]

        def ours_all():
            model.clear_caches()  # time the computation, not the cache
            for ctx in contexts:
                model.dist(ctx)

        ours_per = best_of(3, ours_all) / len(contexts)
        words = [[model.vocab[i] for i in ctx] for ctx in contexts[:args.nltk_contexts]]

        def nltk_some():
            for ctx in words:
                for w in model.vocab:
                    lm.score(w, ctx)

        nltk_per = best_of(1, nltk_some) / len(words)
        print(f"  dist       ours {ours_per * 1e6:8.1f} µs   nltk {nltk_per * 1e6:8.0f} µs"
              f"   ratio {nltk_per / ours_per:8.0f}x   (per context; ours over {len(contexts)},"
              f" nltk over {len(words)})")

        models = load_models(lang)
        target, draft = models["trigram"], models["bigram"]
        ctx = target.encode([model.vocab[i] for i in contexts[0]])   # the first context above
        # The run is timed as a server's worker runs it (gunicorn.conf.py): what was loaded
        # before it is frozen out of CPython's collector, which then walks only the objects made
        # since (a full collection of this process's 10^5 objects, NLTK's model among them, took
        # up to 75 ms; a 10,000-token run sets off one or two). Each run starts with the models'
        # caches empty and the collector's counts at zero.
        del lm, nltk_some
        gc.collect()
        gc.freeze()

        def cold():
            target.clear_caches(); draft.clear_caches()
            gc.collect()

        def run():
            return generate(target, draft, ctx, args.tokens, 4, np.random.default_rng(1))

        t_run = best_of(5, run, setup=cold)
        stats = run().stats()
        gc.unfreeze()
        print(f"  run        {args.tokens:,} tokens, γ = 4: {t_run:.3f} s (CPU, best of 5)"
              f"   ({stats['passes']:,} target passes, α = {stats['alpha']:.3f},"
              f" {stats['tokens_per_pass']:.2f} tokens per pass)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
