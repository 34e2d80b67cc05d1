"""Models counted from a reader's own text, with the same tokenisers and counting code as the books.

The text arrives as bytes, at most ``MAX_BYTES``. Its encoding is found first: a byte-order mark
(UTF-8, UTF-16), else strict UTF-8, else charset-normalizer's guess among the encodings a text
file is usually saved in (``ENCODINGS``: UTF-16 without a mark, GB18030 and its subset GBK, Big5,
Windows-1252), and the reader is told which was read. Bytes no such encoding reads, or that read
as control characters (binary data), are refused. A text must give at least ``MIN_TOKENS``
tokens with at least two different ones. A token longer than ``MAX_TOKEN_CHARS`` is cut there
(what a 2 MB "word" would otherwise cost every answer that prints it). It is counted as one
document by ``corpus.snapshot.count_arrays`` into the same three Witten–Bell models as the books
(trigram target, bigram and unigram drafts).

A text is known by the sha256 of its UTF-8 bytes (without a byte-order mark), whatever encoding
it arrived in: the same text sent again, in any encoding, is the same text.

What a counted text holds in memory is ``UserText.nbytes`` (``estimate_bytes``); which texts a
server keeps, and how many it counts at once, is the server's business (serving/labtexts.py).
"""
from __future__ import annotations

import codecs
import hashlib
import re
import sys
import time
from dataclasses import dataclass, field

import numpy as np

from corpus.snapshot import count_arrays
from corpus.text import LANGS, tokenize

from .dist import overlap
from .ngram import DENSE_CACHE, SPARSE_CACHE, NGramModel, models_from_counts

MAX_BYTES = 2 * 1024 * 1024   # 2 MiB: a long novel (Alice is about 150 kB) with room to spare
MIN_TOKENS = 50               # fewer and the trigram has nearly nothing to count
# Longer tokens are cut to this many characters (the last one "…"). English words stay far below
# (the books' longest is 18); a run of 2 MB of letters would otherwise be one 2 MB token that
# every run, tape and page printing it repeats.
MAX_TOKEN_CHARS = 32
CUT_MARK = "…"
# Per model of a reader's text, for its kept distributions (NGramModel's cache_bytes).
DIST_CACHE_BYTES = 4 * 1024 * 1024
SHA256_HEX = re.compile(r"[0-9a-f]{64}")
# Control characters other than tab, newline, carriage return and form feed: a sign of binary data.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")

# What charset-normalizer may choose from when the bytes are neither marked nor UTF-8: the
# encodings text files are saved in where this is taught (Windows' "ANSI" Chinese is GBK, read by
# its superset GB18030; Taiwan and Hong Kong use Big5; Western Windows text is cp1252).
ENCODINGS = ("utf_16", "utf_16_le", "utf_16_be", "gb18030", "big5", "cp1252")
# The names the reader is shown, which are also the WHATWG labels a browser's TextDecoder takes.
LABELS = {"utf_8": "UTF-8", "utf_16_le": "UTF-16LE", "utf_16_be": "UTF-16BE", "gb18030": "GB18030",
          "big5": "Big5", "cp1252": "windows-1252"}
_BOMS = ((codecs.BOM_UTF8, "utf_8"), (codecs.BOM_UTF16_LE, "utf_16_le"),
         (codecs.BOM_UTF16_BE, "utf_16_be"))


class TextError(ValueError):
    """The text cannot be used; ``code`` says why (for a localised message), ``detail`` with what."""

    def __init__(self, code: str, **detail):
        super().__init__(code)
        self.code = code
        self.detail = detail


@dataclass
class Decoded:
    text: str
    encoding: str          # one of LABELS' values

    @property
    def data(self) -> bytes:
        """The text's canonical bytes: UTF-8, no byte-order mark (what its hash is of)."""
        return self.text.encode("utf-8")


@dataclass
class UserText:
    sha256: str
    lang: str
    ids: np.ndarray                      # the whole text as token ids of the models' vocabulary
    models: dict[str, NGramModel]
    count_ms: float                      # time to tokenise and count (and build the models)
    n_bytes: int                         # of the text in UTF-8
    cut_tokens: int = 0                  # tokens cut to MAX_TOKEN_CHARS
    nbytes: int = 0                      # memory held for it, as estimate_bytes counts
    extra: dict = field(default_factory=dict)  # derived values cached with the text (contexts)

    @property
    def vocab(self) -> list[str]:
        return self.models["trigram"].vocab

    @property
    def n_tokens(self) -> int:
        return int(self.ids.size)


def digest(data: bytes) -> str:
    """The sha256 (hex) of a text's UTF-8 bytes: what a link carries instead of the text."""
    return hashlib.sha256(data).hexdigest()


def decode(raw: bytes) -> Decoded:
    """The text of the upload and the encoding it was read in, or TextError saying why not."""
    if not raw:
        raise TextError("empty")
    if len(raw) > MAX_BYTES:
        raise TextError("too_big", size=len(raw), max=MAX_BYTES)
    text, enc = _decode(raw)
    text = text.lstrip("\ufeff")
    if _CONTROL.search(text):
        raise TextError("binary")
    if not text.strip():
        raise TextError("empty")
    return Decoded(text, LABELS[enc])


def _decode(raw: bytes) -> tuple[str, str]:
    for bom, enc in _BOMS:
        if raw.startswith(bom):
            try:
                return raw[len(bom):].decode(enc), enc
            except UnicodeDecodeError as e:
                raise TextError("undecodable", encoding=LABELS[enc], position=e.start + len(bom) + 1) from None
    try:
        return raw.decode("utf-8"), "utf_8"
    except UnicodeDecodeError as e:
        utf8_error = e.start + 1            # bytes counted from 1, as a reader counts them
    from charset_normalizer import from_bytes
    best = from_bytes(raw, cp_isolation=list(ENCODINGS)).best()
    if best is not None:
        enc = codecs.lookup(best.encoding).name.replace("-", "_")
        enc = {"utf_16": "utf_16_le" if raw[1:2] == b"\0" else "utf_16_be"}.get(enc, enc)
        if enc in LABELS:
            try:  # the guess read a sample; the whole text must read too
                return raw.decode(enc), enc
            except UnicodeDecodeError:
                pass
    if b"\0" in raw:
        raise TextError("binary")
    raise TextError("undecodable", encoding=LABELS["utf_8"], position=utf8_error)


def cut_long_tokens(tokens: list[str]) -> tuple[list[str], int]:
    """Tokens longer than MAX_TOKEN_CHARS cut to that length (ending in "…"), and how many were."""
    n = MAX_TOKEN_CHARS
    if not tokens or max(map(len, tokens)) <= n:   # the usual case, at C speed
        return tokens, 0
    long = [i for i, t in enumerate(tokens) if len(t) > n]
    for i in long:
        tokens[i] = tokens[i][:n - 1] + CUT_MARK
    return tokens, len(long)


def count_text(text: str, lang: str, cache_bytes: int = DIST_CACHE_BYTES) -> UserText:
    """Tokenise and count a decoded text (no cache, no store)."""
    if lang not in LANGS:
        raise ValueError(f"lang must be one of {LANGS}")
    t0 = time.perf_counter()
    tokens, cut = cut_long_tokens(tokenize(lang, text))
    if len(tokens) < MIN_TOKENS:
        raise TextError("too_short", tokens=len(tokens), min=MIN_TOKENS)
    c = count_arrays([tokens])
    if len(c["vocab"]) < 2:
        raise TextError("one_token", token=tokens[0][:20])
    del tokens
    models = models_from_counts(c["vocab"], c["unigrams"], c["bigrams"], c["trigrams"],
                                cache_bytes=cache_bytes)
    ids = c["ids"][0]
    ms = (time.perf_counter() - t0) * 1000.0
    data = text.encode("utf-8")
    ut = UserText(digest(data), lang, ids, models, ms, len(data), cut)
    ut.nbytes = estimate_bytes(ut, cache_bytes)
    return ut


def build(raw: bytes, lang: str) -> UserText:
    """Decode, validate, tokenise and count; no cache (serving.labtexts keeps texts)."""
    if lang not in LANGS:
        raise ValueError(f"lang must be one of {LANGS}")
    return count_text(decode(raw).text, lang)


def estimate_bytes(ut: UserText, cache_bytes: int = DIST_CACHE_BYTES) -> int:
    """An upper bound of the memory a counted text holds, once its models have been used: every
    array of its counts, the vocabulary and its index, the per-row supports the models build as
    they are read (at most one per token), and each model's two distribution caches full
    (tests/test_usertext.py checks the bound against tracemalloc)."""
    c = ut.models["trigram"].counts
    arrays = 0
    for obj in (c, c.bi, c.tri, c.base, c.pair_row):
        for v in (vars(obj) if hasattr(obj, "__dict__") else
                  {k: getattr(obj, k) for k in obj.__slots__}).values():
            if isinstance(v, np.ndarray):
                arrays += v.nbytes + 112
    V = c.V
    strings = sum(sys.getsizeof(t) for t in c.vocab) + 8 * V + 64
    dicts = sys.getsizeof(c.index) + 32 * V + sys.getsizeof(c.tri_general) + 32 * len(c.tri_general)
    # A Support: the object (~100 B), its dict slot (~100 B), two arrays of its row (16 B an
    # entry, ~112 B of header each).
    supports = V * (200 + 2 * 112 + 64) + 16 * c.bi.nxt.size   # + 64: the dict's own table
    # A bigram distribution kept per row (``Counts.bigram``): the object with its numbers and
    # dict slot (~350 B), its view of the row (~112 B) and, once drawn from, its running sum.
    bigrams = V * (350 + 2 * 112) + 8 * c.bi.nxt.size
    # Three models, each with a sparse and a dense cache of cache_bytes (or of one entry, if one
    # is larger), and ~200 bytes of lru_cache bookkeeping per entry.
    widest = int(np.diff(c.bi.start).max(initial=1))
    caches = 3 * (max(cache_bytes, 16 * widest) + max(cache_bytes, 8 * V)
                  + 200 * (SPARSE_CACHE + DENSE_CACHE))
    return int(arrays + strings + dicts + supports + bigrams + caches + ut.ids.nbytes + 4096)


def disagreeing_context(ut: UserText, min_count: int = 3) -> tuple[int, int]:
    """A two-token context of the text where the bigram draft and the trigram target disagree:
    the largest total variation Σ max(0, p − q), weighted by √count so it is not a one-off, among
    contexts seen at least ``min_count`` times (fewer if the text is short). Cached per text."""
    if "tubes_ctx" in ut.extra:
        return ut.extra["tubes_ctx"]
    target, draft = ut.models["trigram"], ut.models["bigram"]
    ids = ut.ids
    V = target.V
    pairs, counts = np.unique(ids[:-2] * V + ids[1:-1], return_counts=True)
    for need in (min_count, 2, 1):
        ok = counts >= need
        if ok.any():
            break
    # The most frequent contexts first; a few hundred are plenty to find a good one.
    order = np.argsort(-counts * ok, kind="stable")[:300]
    best, best_score = None, -1.0
    for k in order:
        if not ok[k]:
            continue
        a, b = divmod(int(pairs[k]), V)
        p, q = target.sparse((a, b)), draft.sparse((a, b))
        score = (1.0 - _overlap(p, q)) * float(counts[k]) ** 0.5
        if score > best_score:
            best, best_score = (a, b), score
    ut.extra["tubes_ctx"] = best
    return best


def _overlap(p, q) -> float:
    return overlap(p, q)
