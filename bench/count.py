"""Where the time goes when a reader's 2 MB text is counted (sim.usertext.count_text), stage by
stage, against what the same stages cost before issue 16 (NLTK's tokenizer with its wall-clock
timer; the counting code of commit 54bab0e, whose counts went into JSON lists and back; the
models' pair index as a dict).

The texts are made here, seeded (no book is needed): English words with a Zipf-like frequency
and a large vocabulary, and Chinese characters, each just under 2 MB. Prints the best of N runs
of each stage, in ms of wall-clock time (the process does nothing else). Usage:
python3 bench/count.py [N]
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from corpus import snapshot, text  # noqa: E402
from sim import usertext  # noqa: E402
from sim.ngram import models_from_counts  # noqa: E402

MAX = usertext.MAX_BYTES - 64


def english(seed: int = 1) -> bytes:
    rng = np.random.default_rng(seed)
    ranks = rng.zipf(1.25, 500_000) % 60_000
    words = [f"w{r}" if r % 7 else f"Word{r}" for r in ranks]
    punct = rng.random(len(words))
    out = " ".join(w + ("," if p < 0.06 else "." if p < 0.1 else "") for w, p in zip(words, punct))
    return out.encode()[:MAX].rsplit(b" ", 1)[0]


def chinese(seed: int = 2) -> bytes:
    rng = np.random.default_rng(seed)
    chars = rng.zipf(1.3, 800_000) % 6000 + 0x4E00
    s = "".join(map(chr, chars))
    return s.encode()[:MAX - 4].decode("utf-8", "ignore").encode()


def best(f, n: int) -> float:
    out = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        out.append((time.perf_counter() - t) * 1000)
    return min(out)


def stages(raw: bytes, lang: str, n: int) -> list[tuple[str, float, float | None]]:
    """(stage, now ms, before ms or None)."""
    dec = usertext.decode(raw)
    toks = text.tokenize(lang, dec.text)
    c = snapshot.count_arrays([toks])
    rows = [("decode (encoding found, checked)", best(lambda: usertext.decode(raw), n), None)]
    if text.LANGUAGES[lang].tokenizer == text.EN_PATTERN:   # NLTK's RegexpTokenizer, the same pattern
        from nltk.tokenize import RegexpTokenizer
        nltk_tok = RegexpTokenizer(text.EN_PATTERN)
        rows.append(("tokenize", best(lambda: text.tokenize(lang, dec.text), n),
                     best(lambda: nltk_tok.tokenize(dec.text), n)))
    else:
        rows.append(("tokenize", best(lambda: text.tokenize(lang, dec.text), n), None))
    rows.append(("cut long tokens", best(lambda: usertext.cut_long_tokens(list(toks)), n), None))

    def old_count():
        # As sim.usertext did before issue 16 (commit 54bab0e): corpus.snapshot.count's JSON-ready
        # lists (its code then, below), turned back into arrays, and the ids looked up again.
        from collections import Counter
        uni = Counter(toks)
        vocab = sorted(uni, key=lambda tok: (-uni[tok], tok))
        ids = {tok: i for i, tok in enumerate(vocab)}
        V = len(vocab)
        d = np.fromiter((ids[tok] for tok in toks), dtype=np.int64, count=len(toks))
        bi, bi_n = np.unique(d[:-1] * V + d[1:], return_counts=True)
        tri, tri_n = np.unique((d[:-2] * V + d[1:-1]) * V + d[2:], return_counts=True)
        snap = {"unigrams": [uni[tok] for tok in vocab],
                "bigrams": np.column_stack([bi // V, bi % V, bi_n]).tolist(),
                "trigrams": np.column_stack([tri // (V * V), tri // V % V, tri % V, tri_n]).tolist()}
        for k in ("unigrams", "bigrams", "trigrams"):
            np.asarray(snap[k], dtype=np.int64)
        np.fromiter((ids[t] for t in toks), dtype=np.int64, count=len(toks))
    rows.append(("count n-grams and ids", best(lambda: snapshot.count_arrays([toks]), n), best(old_count, n)))

    def models():
        return models_from_counts(c["vocab"], c["unigrams"], c["bigrams"], c["trigrams"],
                                  cache_bytes=usertext.DIST_CACHE_BYTES)

    def old_pairs():
        # What the pair index cost as a dict (the rest of the models' build is unchanged).
        V = len(c["vocab"])
        keys = np.unique(c["trigrams"][:, 0] * V + c["trigrams"][:, 1])
        return {int(k): i for i, k in enumerate(keys)}
    m = best(models, n)
    rows.append(("build the three models", m, m + best(old_pairs, n)))
    rows.append(("whole count_text", best(lambda: usertext.count_text(dec.text, lang), n), None))
    return rows


def main(argv=None) -> int:
    import os
    n = int((argv or sys.argv[1:] or ["3"])[0])
    print(f"counting a reader's 2 MB text, best of {n}, ms (load average {os.getloadavg()[0]:.2f} at the start)")
    for lang, raw in (("en", english()), ("zh", chinese())):
        ut = usertext.count_text(usertext.decode(raw).text, lang)
        print(f"\n{lang}: {len(raw):,} bytes, {ut.n_tokens:,} tokens, {len(ut.vocab):,} different; "
              f"memory charged {ut.nbytes / 2**20:.0f} MiB")
        print(f"{'stage':<36} {'now':>9} {'before':>9}")
        for stage, now, before in stages(raw, lang, n):
            print(f"{stage:<36} {now:>9.0f} {'' if before is None else f'{before:.0f}':>9}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
