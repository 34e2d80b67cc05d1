"""A memo of a one-argument function, bounded in bytes (least recently used out first).

The models keep recent distributions (a context repeats a lot in running text). Bounded by count,
their caches' memory depended on the text: a book's 4,096 sparse and 256 dense distributions took
about 35 MiB, a reader's text with thousands of followers per token far more. Bounded by the bytes
each value holds, every model's caches have a known ceiling. Pure Python with no dependency (the
serving layer's byte cache is the same idea for answers; this one sits under sim/, below it).
A hit is one dict lookup and a move to the end; a miss computes outside the lock.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable, Hashable

# Per entry: the OrderedDict's node and the sizes dict's entry.
ENTRY_OVERHEAD = 200
_MISS = object()


class ByteMemo:
    """``memo(key)`` is ``fn(key)``, kept while the kept values' ``sizeof`` add up to at most
    ``max_bytes``; at least one value is kept however large (the one just computed)."""

    def __init__(self, fn: Callable[[Hashable], Any], max_bytes: int, sizeof: Callable[[Any], int]):
        self._fn = fn
        self.max_bytes = int(max_bytes)
        self._sizeof = sizeof
        self._d: OrderedDict = OrderedDict()
        # Each value's size, beside it rather than in a (value, size) tuple: a tuple per entry is
        # one more object for the garbage collector to walk, thousands of them in a long run.
        self._sizes: dict = {}
        self.nbytes = 0
        self.misses = 0   # values computed (a test counts the work a request does)
        self._lock = threading.Lock()

        self.call = self._make_call()

    def _make_call(self):
        # A closure over bound methods: the hit path is two dict operations and no attribute
        # look-ups (it runs for every token the models draw or score).
        d, sizes = self._d, self._sizes
        get, move = d.get, d.move_to_end
        fn, sizeof, lock = self._fn, self._sizeof, self._lock

        def call(key):
            hit = get(key, _MISS)
            if hit is not _MISS:
                try:
                    move(key)
                except KeyError:   # evicted by another thread in between: still valid
                    pass
                return hit
            value = fn(key)
            size = sizeof(value) + ENTRY_OVERHEAD
            with lock:
                self.misses += 1
                if key in d:
                    return d[key]
                d[key] = value
                sizes[key] = size
                self.nbytes += size
                while self.nbytes > self.max_bytes and len(d) > 1:
                    k, _v = d.popitem(last=False)
                    self.nbytes -= sizes.pop(k)
            return value
        return call

    def __call__(self, key):
        return self.call(key)

    def cache_clear(self) -> None:
        with self._lock:
            self._d.clear()
            self._sizes.clear()
            self.nbytes = 0
            self.misses = 0

    def __len__(self) -> int:
        return len(self._d)
