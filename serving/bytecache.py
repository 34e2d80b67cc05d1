"""A least-recently-used cache bounded in bytes, safe to share between a worker's threads.

cachetools' ``LRUCache`` with a ``getsizeof`` does the bookkeeping (evicting the least recently
used entries until a new one fits); this wraps it in a lock, since gunicorn's gthread workers
serve requests from several threads, and answers None for a miss. An entry larger than the
whole cache is simply not kept. Every cache of answers here is one of these: bounding by entry
count let a few huge answers (a text of 35 kB "words") grow one worker to 2.6 GB.
"""
from __future__ import annotations

import sys
import threading
from typing import Any, Callable, Hashable

from cachetools import LRUCache


def size_of_bytes(value: Any) -> int:
    """Size of a bytes-like value, or of a tuple whose parts are (the render cache's entries:
    body, ETag, mimetype, Cache-Control), with Python's own overhead per object."""
    if isinstance(value, (bytes, bytearray, str)):
        return sys.getsizeof(value)
    if isinstance(value, tuple):
        return sys.getsizeof(value) + sum(size_of_bytes(v) for v in value)
    return sys.getsizeof(value)


class ByteLRU:
    """``get``/``set``/``delete``/``clear`` over an LRU cache of at most ``max_bytes`` bytes, as
    measured by ``sizeof`` (the value's own estimate of the memory it holds)."""

    def __init__(self, max_bytes: int, sizeof: Callable[[Any], int] = size_of_bytes):
        self.max_bytes = int(max_bytes)
        self._sizeof = sizeof
        self._d = LRUCache(maxsize=self.max_bytes, getsizeof=sizeof)
        self._lock = threading.Lock()

    def get(self, key: Hashable, default=None):
        with self._lock:
            return self._d.get(key, default)   # a hit moves the entry to the back of the line

    def set(self, key: Hashable, value: Any) -> bool:
        """Keep the value (evicting the least recently used); False if it alone is too big."""
        size = self._sizeof(value)
        with self._lock:
            if size > self.max_bytes:
                self._d.pop(key, None)
                return False
            self._d[key] = value
            return True

    def delete(self, key: Hashable) -> None:
        with self._lock:
            self._d.pop(key, None)

    def pop_where(self, test: Callable[[Hashable], bool]) -> int:
        """Drop every entry whose key passes ``test``; how many were dropped."""
        with self._lock:
            keys = [k for k in self._d if test(k)]
            for k in keys:
                del self._d[k]
            return len(keys)

    def clear(self) -> None:
        with self._lock:
            self._d.clear()

    @property
    def nbytes(self) -> int:
        """Bytes held, as counted by ``sizeof``."""
        return int(self._d.currsize)

    def __len__(self) -> int:
        return len(self._d)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._d
