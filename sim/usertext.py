"""Models counted from a reader's own text, with the same tokenisers and counting code as the books.

The text arrives as bytes. It must be UTF-8, at most ``MAX_BYTES`` long, not binary (no NUL or
other control characters beyond whitespace), and give at least ``MIN_TOKENS`` tokens with at least
two different ones. It is counted as one document by ``corpus.snapshot.count`` into the same three
Witten–Bell models as the books (trigram target, bigram and unigram drafts).

What is kept: a bounded LRU cache in this process, keyed by the sha256 of the bytes, of the models
and the token ids (the lookup draft copies from the text, and the lab starts where the text ends).
Nothing is written anywhere; another process (or a restart) simply does not know the hash, and the
browser sends the text again.
"""
from __future__ import annotations

import hashlib
import re
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from corpus.snapshot import count
from corpus.text import tokenize

from .ngram import NGramModel, models_from_counts

MAX_BYTES = 2 * 1024 * 1024   # 2 MiB: a long novel (Alice is about 150 kB) with room to spare
MIN_TOKENS = 50               # fewer and the trigram has nearly nothing to count
CACHE_SIZE = 8                # texts kept per process; a 2 MB text's models take tens of MB
DIST_CACHE_BYTES = 48 * 1024 * 1024  # per model, for its kept distributions (NGramModel's cache_bytes)
LANGS = ("en", "zh")
SHA256_HEX = re.compile(r"[0-9a-f]{64}")
# Control characters other than tab, newline, carriage return and form feed: a sign of binary data.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")


class TextError(ValueError):
    """The text cannot be used; ``code`` says why (for a localised message), ``detail`` with what."""

    def __init__(self, code: str, **detail):
        super().__init__(code)
        self.code = code
        self.detail = detail


@dataclass
class UserText:
    sha256: str
    lang: str
    ids: np.ndarray                      # the whole text as token ids of the models' vocabulary
    models: dict[str, NGramModel]
    count_ms: float                      # time to tokenise and count (and build the models)
    n_bytes: int
    extra: dict = field(default_factory=dict)  # derived values cached with the text (contexts)

    @property
    def vocab(self) -> list[str]:
        return self.models["trigram"].vocab

    @property
    def n_tokens(self) -> int:
        return int(self.ids.size)


def digest(raw: bytes) -> str:
    """The text's sha256 (hex): what a link carries instead of the text."""
    return hashlib.sha256(raw).hexdigest()


def decode(raw: bytes) -> str:
    """The text of the upload, or TextError saying why it is not a usable text."""
    if not raw:
        raise TextError("empty")
    if len(raw) > MAX_BYTES:
        raise TextError("too_big", size=len(raw), max=MAX_BYTES)
    if b"\0" in raw:
        raise TextError("binary")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise TextError("not_utf8", position=e.start) from None
    text = text.lstrip("\ufeff")
    if _CONTROL.search(text):
        raise TextError("binary")
    if not text.strip():
        raise TextError("empty")
    return text


def build(raw: bytes, lang: str) -> UserText:
    """Validate, tokenise and count; no cache (see ``load``)."""
    if lang not in LANGS:
        raise ValueError(f"lang must be one of {LANGS}")
    t0 = time.perf_counter()
    text = decode(raw)
    tokens = tokenize(lang, text)
    if len(tokens) < MIN_TOKENS:
        raise TextError("too_short", tokens=len(tokens), min=MIN_TOKENS)
    if len(set(tokens)) < 2:
        raise TextError("one_token", token=tokens[0][:20])
    snap = count(lang, [tokens])
    # Convert the counts to arrays once, not once per model.
    uni, bi, tri = (np.asarray(snap[k], dtype=np.int64) for k in ("unigrams", "bigrams", "trigrams"))
    models = models_from_counts(snap["vocab"], uni, bi.reshape(-1, 3), tri.reshape(-1, 4),
                                cache_bytes=DIST_CACHE_BYTES)
    index = models["trigram"].index
    ids = np.fromiter((index[t] for t in tokens), dtype=np.int64, count=len(tokens))
    ms = (time.perf_counter() - t0) * 1000.0
    return UserText(digest(raw), lang, ids, models, ms, len(raw))


class TextCache:
    """A bounded LRU map (sha256, lang) -> UserText, safe to share between threads."""

    def __init__(self, size: int = CACHE_SIZE):
        self.size = size
        self._d: OrderedDict[tuple[str, str], UserText] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str]) -> UserText | None:
        with self._lock:
            ut = self._d.get(key)
            if ut is not None:
                self._d.move_to_end(key)
            return ut

    def put(self, ut: UserText) -> None:
        with self._lock:
            key = (ut.sha256, ut.lang)
            self._d[key] = ut
            self._d.move_to_end(key)
            while len(self._d) > self.size:
                self._d.popitem(last=False)

    def __len__(self) -> int:
        return len(self._d)

    def __contains__(self, key: tuple[str, str]) -> bool:
        return key in self._d


CACHE = TextCache()


def load(raw: bytes, lang: str, cache: TextCache = CACHE) -> UserText:
    """The models of this text, counted once per process while the cache keeps them."""
    ut = cache.get((digest(raw), lang))
    if ut is None:
        ut = build(raw, lang)
        cache.put(ut)
    return ut


def lookup(sha: str, lang: str, cache: TextCache = CACHE) -> UserText | None:
    """The cached text of a hash, or None (unknown here: the browser must send the text again)."""
    return cache.get((sha, lang)) if SHA256_HEX.fullmatch(sha or "") else None


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
        p, q = target.dist((a, b)), draft.dist((a, b))
        score = float(np.maximum(p - q, 0).sum()) * float(counts[k]) ** 0.5
        if score > best_score:
            best, best_score = (a, b), score
    ut.extra["tubes_ctx"] = best
    return best
