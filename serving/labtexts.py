"""The lab's texts in this process: the models of recent texts in a cache bounded in bytes, and a
gate on counting.

What is kept: the models and token ids of recent texts (the lookup draft copies from the text,
and the lab starts where the text ends), in a cache bounded in bytes (``TextCache``,
``MEMORY_BYTES``), each text costed by ``sim.usertext.UserText.nbytes``. The texts themselves go
to a store every worker shares (``serving.textstore``), from which a worker that does not hold a
text counts it again. Counting is CPU work of up to a second: ``COUNTING`` lets one text be
counted at a time per process and one more wait; beyond that ``Busy`` (the API answers 503 with
Retry-After).
"""
from __future__ import annotations

import os
import threading

from corpus.text import LANGS
from serving.bytecache import ByteLRU
from sim.usertext import SHA256_HEX, Decoded, TextError, UserText, count_text, decode, digest

# Per process, for every reader's text held (models, ids, distribution caches), as UserText.nbytes
# counts them: a 2 MB English text costs about 70 MB, a 2 MB Chinese one about 120 MB, a page of
# text under 1 MB. SPECDEC_LAB_MEMORY_MB overrides.
MEMORY_BYTES = int(os.environ.get("SPECDEC_LAB_MEMORY_MB", "320")) * 1024 * 1024

class Busy(RuntimeError):
    """This process is already counting as many texts as it may; try again in ``retry_after`` s."""

    def __init__(self, retry_after: int):
        super().__init__(f"busy counting; retry after {retry_after} s")
        self.retry_after = retry_after


class TextCache:
    """(sha256, lang) -> UserText, least recently used first out, at most ``max_bytes`` in all
    (as UserText.nbytes counts). Safe to share between threads."""

    def __init__(self, max_bytes: int = MEMORY_BYTES):
        self._d = ByteLRU(max_bytes, sizeof=lambda ut: ut.nbytes)

    @property
    def max_bytes(self) -> int:
        return self._d.max_bytes

    def get(self, key: tuple[str, str]) -> UserText | None:
        return self._d.get(key)

    def put(self, ut: UserText) -> None:
        self._d.set((ut.sha256, ut.lang), ut)

    def clear(self) -> None:
        self._d.clear()

    @property
    def nbytes(self) -> int:
        return self._d.nbytes

    def __len__(self) -> int:
        return len(self._d)

    def __contains__(self, key: tuple[str, str]) -> bool:
        return key in self._d


class CountingGate:
    """At most ``running`` texts counted at once in this process and ``waiting`` more queued for
    up to ``wait_s``; anyone else gets ``Busy`` at once. Counting is CPU work under the GIL, so
    two at once in one process only take twice as long each, while every thread that waits is
    one the worker's other readers cannot have."""

    def __init__(self, running: int = 1, waiting: int = 1, wait_s: float = 10.0, retry_after: int = 2):
        self._slots = threading.BoundedSemaphore(running + waiting)
        self._run = threading.BoundedSemaphore(running)
        self.wait_s = wait_s
        self.retry_after = retry_after

    def __enter__(self):
        if not self._slots.acquire(blocking=False):
            raise Busy(self.retry_after)
        if not self._run.acquire(timeout=self.wait_s):
            self._slots.release()
            raise Busy(self.retry_after)
        return self

    def __exit__(self, *exc):
        self._run.release()
        self._slots.release()
        return False


CACHE = TextCache()
COUNTING = CountingGate()


def load_text(dec: Decoded, lang: str, cache: TextCache | None = None, store=None) -> UserText:
    """The models of a decoded text: from this process's cache (``CACHE`` unless another is
    given), else counted (and the text put in the store, where every worker finds it)."""
    cache = CACHE if cache is None else cache
    data = dec.data
    sha = digest(data)
    ut = cache.get((sha, lang))
    if ut is None:
        with COUNTING:
            ut = cache.get((sha, lang))   # counted by another thread while this one waited
            if ut is None:
                ut = count_text(dec.text, lang)
                cache.put(ut)
    if store is not None:
        store.put(sha, data)
    return ut


def load(raw: bytes, lang: str, cache: TextCache | None = None, store=None) -> UserText:
    """``load_text`` of the upload's bytes."""
    if lang not in LANGS:
        raise ValueError(f"lang must be one of {LANGS}")
    return load_text(decode(raw), lang, cache, store)


def lookup(sha: str, lang: str, cache: TextCache | None = None, store=None) -> UserText | None:
    """The models of a hash: from this process's cache, else counted from the store's copy of the
    text; None if neither has it (the browser must send the text again). May raise Busy."""
    if not SHA256_HEX.fullmatch(sha or "") or lang not in LANGS:
        return None
    cache = CACHE if cache is None else cache
    ut = cache.get((sha, lang))
    if ut is not None or store is None:
        return ut
    data = store.get(sha)
    if data is None:
        return None
    with COUNTING:
        ut = cache.get((sha, lang))
        if ut is None:
            try:
                ut = count_text(data.decode("utf-8"), lang)
            except (TextError, UnicodeDecodeError):
                return None   # stored for the other language, and too short in this one
            cache.put(ut)
    return ut
