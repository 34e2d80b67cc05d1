"""Where readers' texts are kept so that every worker (and every app server) can find them.

A reader's text is known by the sha256 of its UTF-8 bytes (``sim.usertext``). The worker that
receives an upload counts it and puts the text here; a worker asked about a hash it does not
hold fetches the text from here and counts it again (a 2 MB text in under a second), so a
refresh, another worker or a restarted one never falls back to the book while the store keeps
the text. Only the text is stored, never the models: it is the smallest form (2 MB at most,
where the counted arrays of a 2 MB text take 20–110 MB) and it stays valid whatever the
counting code becomes.

Two stores, chosen by one setting:
- ``DirStore`` (the default, one machine): one file per text in a folder, ``<sha256>.txt``,
  written to a temporary name and renamed into place (atomic, so workers never read half a
  file); bounded in bytes, the least recently used going first (a read touches the file's
  modification time); nothing to install.
- ``RedisStore`` (several machines): ``TEXT_STORE_REDIS`` (or the environment variable
  ``SPECDEC_REDIS_URL``) set to a ``redis://`` URL. Each text is a key with a time to live that
  every read renews; the Redis server's own ``maxmemory`` with ``allkeys-lru`` bounds it in bytes.

A store that fails (a full disk, Redis down) is logged and read as "not there": the reader is
asked to send the text again, never shown a 500. A Redis that hangs (accepts, never answers)
costs one request a short time-out, then the store stops asking for a while (a circuit
breaker), so readers do not each wait on it. A folder that cannot be made (a service user
without a writable home) gives way to one that can, said in the log when the app starts.
"""
from __future__ import annotations

import hashlib
import logging
import os
import re
import tempfile
import time
from pathlib import Path

log = logging.getLogger(__name__)

SHA256_HEX = re.compile(r"[0-9a-f]{64}")
# The embedded store's default bound: 256 texts of the 2 MB maximum, or thousands of essays.
DEFAULT_DIR_BYTES = 512 * 1024 * 1024
# Redis: a text not read for a week goes (a course meets at least weekly); reads renew it.
REDIS_TTL_S = 7 * 24 * 3600
REDIS_PREFIX = "specdec:text:"
# Redis answers on a LAN in a millisecond; one that has not answered in a quarter of a second is
# in trouble, and a reader waits at most that long for it.
REDIS_TIMEOUT_S = 0.25
# After a failure the store is not asked again for this long (each worker decides alone): a
# hung Redis then costs a request nothing, and the text is simply asked for again.
REDIS_BREAK_S = 30.0


def _check(sha: str) -> str:
    if not SHA256_HEX.fullmatch(sha or ""):
        raise ValueError("not a sha256")
    return sha


def _intact(sha: str, data: bytes | None) -> bytes | None:
    """The data if it hashes to its key (a torn or tampered entry reads as missing)."""
    if data is not None and hashlib.sha256(data).hexdigest() == sha:
        return data
    return None


def default_dir() -> Path:
    """``$XDG_CACHE_HOME/specdec/texts`` (``~/.cache/specdec/texts``): per user, kept across
    restarts, and not the repository."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "specdec" / "texts"


class DirStore:
    """Texts as files in one folder, at most ``max_bytes`` in all (least recently used go)."""

    kind = "dir"

    def __init__(self, folder: str | os.PathLike, max_bytes: int = DEFAULT_DIR_BYTES):
        self.folder = Path(folder)
        self.max_bytes = int(max_bytes)
        self.folder.mkdir(parents=True, exist_ok=True)

    def _path(self, sha: str) -> Path:
        return self.folder / f"{_check(sha)}.txt"

    def get(self, sha: str) -> bytes | None:
        path = self._path(sha)
        try:
            data = path.read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError:
            log.exception("text store: cannot read %s", path)
            return None
        if _intact(sha, data) is None:
            self._unlink(path)
            return None
        self._touch(path)
        return data

    def put(self, sha: str, data: bytes) -> bool:
        path = self._path(sha)
        try:
            there = path.exists()
        except OSError:
            there = False
        if there:
            self._touch(path)
            return True
        if len(data) > self.max_bytes:
            return False
        try:
            fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".tmp-")
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except OSError:
            log.exception("text store: cannot write %s", path)
            try:
                os.unlink(tmp)
            except (OSError, UnboundLocalError):
                pass
            return False
        self.prune()
        return True

    def prune(self) -> int:
        """Delete the least recently used texts until the folder holds at most max_bytes;
        how many went. Several workers may prune at once: a file already gone is fine."""
        entries = []
        try:
            listing = list(os.scandir(self.folder))
        except OSError:
            return 0
        for e in listing:
            try:
                st = e.stat()
            except FileNotFoundError:
                continue
            if e.name.endswith(".txt"):
                entries.append((st.st_mtime, st.st_size, e.path))
            elif e.name.startswith(".tmp-") and st.st_mtime < time.time() - 3600:
                self._unlink(e.path)   # left by a worker killed while writing
        total = sum(size for _m, size, _p in entries)
        gone = 0
        for _mtime, size, p in sorted(entries):
            if total <= self.max_bytes:
                break
            self._unlink(p)
            total -= size
            gone += 1
        return gone

    def nbytes(self) -> int:
        return sum(e.stat().st_size for e in os.scandir(self.folder) if e.name.endswith(".txt"))

    @staticmethod
    def _touch(path) -> None:
        try:
            os.utime(path)
        except OSError:
            pass

    @staticmethod
    def _unlink(path) -> None:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


class Breaker:
    """A circuit breaker in front of one Redis: after a failure it is not asked for ``break_s``
    (in this process; each worker decides alone). Shared by everything that asks the same Redis
    (the texts, the classes' counts), so one failure spares them all the wait."""

    def __init__(self, break_s: float = REDIS_BREAK_S, clock=time.monotonic):
        self.break_s = float(break_s)
        self._clock = clock
        self._open_until = 0.0

    @property
    def broken(self) -> bool:
        """True while the breaker is open (a recent failure): Redis is not asked."""
        return self._clock() < self._open_until

    def fail(self, what: str) -> None:
        log.warning("Redis %s failed; not asking it for %.0f s", what, self.break_s, exc_info=True)
        self._open_until = self._clock() + self.break_s


def redis_client(url: str, timeout_s: float = REDIS_TIMEOUT_S):
    """A Redis client whose every call waits at most ``timeout_s``, and the errors it raises."""
    import redis   # only needed when a Redis is configured
    client = redis.Redis.from_url(url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s)
    return client, (redis.RedisError, OSError)


class RedisStore:
    """Texts as Redis keys (``specdec:text:<sha256>``), each living ``ttl_s`` past its last read.

    Every call waits at most ``timeout_s``; a failure opens the breaker for ``break_s``, during
    which get answers None and put False at once, without asking Redis."""

    kind = "redis"

    def __init__(self, url: str, ttl_s: int = REDIS_TTL_S, *, timeout_s: float = REDIS_TIMEOUT_S,
                 break_s: float = REDIS_BREAK_S, clock=time.monotonic):
        self.url = url
        self.ttl_s = int(ttl_s)
        self.timeout_s = float(timeout_s)
        self.breaker = Breaker(break_s, clock)
        self._r, self._errors = redis_client(url, timeout_s)

    @property
    def broken(self) -> bool:
        """True while the breaker is open (a recent failure): Redis is not asked."""
        return self.breaker.broken

    def _fail(self, what: str) -> None:
        self.breaker.fail(f"text store {what}")

    def get(self, sha: str) -> bytes | None:
        key = REDIS_PREFIX + _check(sha)
        if self.broken:
            return None
        try:
            data = self._r.getex(key, ex=self.ttl_s)
        except self._errors:
            self._fail("get")
            return None
        return _intact(sha, data)

    def put(self, sha: str, data: bytes) -> bool:
        key = REDIS_PREFIX + _check(sha)
        if self.broken:
            return False
        try:
            self._r.set(key, data, ex=self.ttl_s)
        except self._errors:
            self._fail("set")
            return False
        return True


class NullStore:
    """No store at all (no folder could be made): every text reads as missing, nothing is kept."""

    kind = "none"

    def get(self, sha: str) -> bytes | None:
        _check(sha)
        return None

    def put(self, sha: str, data: bytes) -> bool:
        _check(sha)
        return False


def fallback_dirs() -> list[Path]:
    """Where texts go when the configured folder cannot be made, in order: the user's cache
    folder, then one in the system's temporary folder (per user)."""
    uid = os.getuid() if hasattr(os, "getuid") else "user"
    return [default_dir(), Path(tempfile.gettempdir()) / f"specdec-texts-{uid}"]


def dir_store(folder, max_bytes: int) -> DirStore | NullStore:
    """A DirStore in ``folder``, or in the first of ``fallback_dirs()`` that can be made (logged
    as a warning), or a NullStore (logged as an error): never an exception."""
    tried = []
    for candidate in [Path(folder), *fallback_dirs()]:
        if candidate in tried:
            continue
        tried.append(candidate)
        try:
            store = DirStore(candidate, max_bytes)
        except OSError as e:
            log.warning("text store: cannot make the folder %s (%s)", candidate, e.strerror or e)
            continue
        if candidate != Path(folder):
            log.warning("text store: readers' texts go to %s instead of %s", candidate, folder)
        return store
    log.error("text store: no folder could be made (%s); readers' texts are not kept",
              ", ".join(map(str, tried)))
    return NullStore()


def from_config(config) -> DirStore | RedisStore | NullStore:
    """The store a Flask config (or any mapping) asks for: Redis if ``TEXT_STORE_REDIS`` or
    ``SPECDEC_REDIS_URL`` is set, else the folder ``TEXT_STORE_DIR`` / ``SPECDEC_TEXT_DIR``
    (default ``default_dir()``) bounded by ``TEXT_STORE_BYTES`` / ``SPECDEC_TEXT_STORE_MB``."""
    url = config.get("TEXT_STORE_REDIS") or os.environ.get("SPECDEC_REDIS_URL")
    if url:
        return RedisStore(url)
    folder = config.get("TEXT_STORE_DIR") or os.environ.get("SPECDEC_TEXT_DIR") or default_dir()
    max_bytes = config.get("TEXT_STORE_BYTES")
    if max_bytes is None and os.environ.get("SPECDEC_TEXT_STORE_MB"):
        max_bytes = int(os.environ["SPECDEC_TEXT_STORE_MB"]) * 1024 * 1024
    return dir_store(folder, DEFAULT_DIR_BYTES if max_bytes is None else max_bytes)


def describe(store) -> str:
    """One line for the log: which store, and where."""
    if isinstance(store, DirStore):
        return f"folder {store.folder} (at most {store.max_bytes // (1024 * 1024)} MB)"
    if isinstance(store, RedisStore):
        from urllib.parse import urlsplit
        u = urlsplit(store.url)
        return f"Redis {u.scheme}://{u.hostname}:{u.port or 6379}{u.path}"   # no password
    return "none (texts are not kept)"


def current():
    """The store of the Flask app handling this request (made once per app); None outside one."""
    from flask import current_app, has_app_context
    if not has_app_context():
        return None
    store = current_app.extensions.get("text_store")
    if store is None:
        store = current_app.extensions["text_store"] = from_config(current_app.config)
    return store
