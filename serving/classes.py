"""A class's predictions, counted where the readers' texts are kept (serving.textstore), so every
worker and every app server sees the same counts: a folder beside the texts by default, the same
Redis when one is configured. Anonymous: a class is a short code and a teacher's key; an answer
is a question, an option and a random id of the browser tab (one answer per question per tab).
Nothing else is kept, and nothing after the class closes or 24 hours after it opened.

Bounded: at most MAX_CLASSES open classes, MAX_ANSWERS answers per class (so a class holds at
most a few hundred kB), and answers rate-limited per class (RATE_PER_S in each worker process).

The folder store makes every write an exclusive create (O_EXCL: atomic on every OS and across
processes): an answer is an empty file named by its question, option and tab, next to a marker
for the question and tab that a second answer from the same tab cannot create again. Counting is
listing the class's folder. Redis: a hash of counts (HINCRBY) and a set of who answered (SADD),
each key living 24 hours.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
import shutil
import threading
import time
from pathlib import Path

from serving import textstore

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"   # no 0/O, 1/I: read off a projector
CODE_LEN = 6
CODE = re.compile(f"[{CODE_ALPHABET}]{{{CODE_LEN}}}")
QUESTION = re.compile(r"[a-z]{1,16}(-story)?")          # a predict-first question's key
TAB = re.compile(r"[0-9a-f]{16,32}")                   # a tab's random id (sessionStorage)
OPTION_MAX = 9
LIFETIME_S = 24 * 3600
MAX_CLASSES = 500
MAX_ANSWERS = 4000          # 200 students × 20 questions
RATE_PER_S = 60             # answers per class per second, per worker, with a burst of RATE_BURST
RATE_BURST = 240
REDIS_PREFIX = "specdec:class:"


class ClassError(Exception):
    """Why an answer or a look was refused: ``kind`` is one of closed, answered, full, busy, key."""

    def __init__(self, kind: str):
        super().__init__(kind)
        self.kind = kind


def _key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class _Bucket:
    """A token bucket per class in this process: a burst of RATE_BURST, refilled at RATE_PER_S."""

    def __init__(self):
        self._lock = threading.Lock()
        self._b: dict[str, tuple[float, float]] = {}

    def take(self, code: str, now: float) -> bool:
        with self._lock:
            tokens, t = self._b.get(code, (RATE_BURST, now))
            tokens = min(RATE_BURST, tokens + (now - t) * RATE_PER_S)
            if tokens < 1:
                self._b[code] = (tokens, now)
                return False
            self._b[code] = (tokens - 1, now)
            if len(self._b) > 4 * MAX_CLASSES:   # bounded: forget the oldest
                for k in sorted(self._b, key=lambda k: self._b[k][1])[:MAX_CLASSES]:
                    self._b.pop(k, None)
            return True


_bucket = _Bucket()


class DirClasses:
    """Classes as folders: ``<root>/<CODE>/meta.json`` and one empty file per answer."""

    kind = "dir"

    def __init__(self, root: str | os.PathLike, clock=time.time):
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)
        self.clock = clock

    def _dir(self, code: str) -> Path:
        if not CODE.fullmatch(code or ""):
            raise ClassError("closed")
        return self.root / code

    def _meta(self, code: str) -> dict | None:
        try:
            meta = json.loads((self._dir(code) / "meta.json").read_text())
        except (OSError, ValueError):
            return None
        if self.clock() - meta.get("opened", 0) > LIFETIME_S:
            self.close(code)
            return None
        return meta

    def prune(self) -> None:
        for d in list(self.root.iterdir()):
            if d.is_dir() and CODE.fullmatch(d.name):
                self._meta(d.name)   # closes it when too old

    def count_open(self) -> int:
        return sum(1 for d in self.root.iterdir() if d.is_dir() and CODE.fullmatch(d.name))

    def open(self) -> tuple[str, str]:
        self.prune()
        if self.count_open() >= MAX_CLASSES:
            raise ClassError("full")
        key = secrets.token_hex(16)
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LEN))
            d = self._dir(code)
            try:
                d.mkdir()
            except FileExistsError:
                continue
            tmp = d / ".meta.tmp"
            tmp.write_text(json.dumps({"opened": self.clock(), "key": _key_hash(key)}))
            os.replace(tmp, d / "meta.json")
            return code, key
        raise ClassError("full")

    def is_open(self, code: str) -> bool:
        try:
            return self._meta(code) is not None
        except ClassError:
            return False

    def answer(self, code: str, question: str, option: int, tab: str) -> None:
        if self._meta(code) is None:
            raise ClassError("closed")
        d = self._dir(code)
        try:
            n = sum(1 for _ in os.scandir(d)) - 1
        except FileNotFoundError:
            raise ClassError("closed") from None
        if n >= 2 * MAX_ANSWERS:
            raise ClassError("full")
        try:
            # The marker first: a tab's second answer to the same question stops here.
            fd = os.open(d / f"t.{question}.{tab}", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            os.close(fd)
        except FileExistsError:
            raise ClassError("answered") from None
        except FileNotFoundError:   # closed meanwhile
            raise ClassError("closed") from None
        try:
            fd = os.open(d / f"a.{question}.{option}.{tab}", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            os.close(fd)
        except FileNotFoundError:
            raise ClassError("closed") from None

    def counts(self, code: str, key: str) -> dict:
        meta = self._meta(code)
        if meta is None:
            raise ClassError("closed")
        if not hmac.compare_digest(meta["key"], _key_hash(key or "")):
            raise ClassError("key")
        out: dict[str, dict[str, int]] = {}
        try:
            names = [e.name for e in os.scandir(self._dir(code))]
        except FileNotFoundError:
            raise ClassError("closed") from None
        for name in names:
            if name.startswith("a."):
                _a, q, opt, _tab = name.split(".")
                out.setdefault(q, {}).setdefault(opt, 0)
                out[q][opt] += 1
        return {"opened": meta["opened"], "expires": meta["opened"] + LIFETIME_S, "counts": out}

    def close(self, code: str, key: str | None = None) -> None:
        d = self._dir(code)
        if key is not None:
            try:
                meta = json.loads((d / "meta.json").read_text())
            except (OSError, ValueError):
                raise ClassError("closed") from None
            if not hmac.compare_digest(meta["key"], _key_hash(key)):
                raise ClassError("key")
        # Renamed away first, so no answer lands in a class being deleted.
        gone = self.root / f".gone-{code}-{secrets.token_hex(4)}"
        try:
            os.replace(d, gone)
        except FileNotFoundError:
            return
        shutil.rmtree(gone, ignore_errors=True)


class RedisClasses:
    """Classes in the Redis the texts use: ``specdec:class:<CODE>`` (meta), ``…:n`` (counts),
    ``…:who`` (question and tab of each answer), all expiring 24 hours after the class opened."""

    kind = "redis"

    def __init__(self, url: str, clock=time.time):
        import redis
        self._r = redis.Redis.from_url(url, socket_timeout=textstore.REDIS_TIMEOUT_S,
                                       socket_connect_timeout=textstore.REDIS_TIMEOUT_S)
        self.clock = clock

    def _k(self, code: str, part: str = "") -> str:
        if not CODE.fullmatch(code or ""):
            raise ClassError("closed")
        return f"{REDIS_PREFIX}{code}{part}"

    def open(self) -> tuple[str, str]:
        if sum(1 for _ in self._r.scan_iter(f"{REDIS_PREFIX}*", count=1000)) >= 3 * MAX_CLASSES:
            raise ClassError("full")
        key = secrets.token_hex(16)
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LEN))
            meta = json.dumps({"opened": self.clock(), "key": _key_hash(key)})
            if self._r.set(self._k(code), meta, nx=True, ex=LIFETIME_S):
                return code, key
        raise ClassError("full")

    def _meta(self, code: str) -> dict | None:
        raw = self._r.get(self._k(code))
        return json.loads(raw) if raw else None

    def is_open(self, code: str) -> bool:
        try:
            return self._meta(code) is not None
        except ClassError:
            return False

    def answer(self, code: str, question: str, option: int, tab: str) -> None:
        meta = self._meta(code)
        if meta is None:
            raise ClassError("closed")
        ttl = max(1, int(meta["opened"] + LIFETIME_S - self.clock()))
        who = self._k(code, ":who")
        if self._r.scard(who) >= MAX_ANSWERS:
            raise ClassError("full")
        pipe = self._r.pipeline()
        pipe.sadd(who, f"{question}.{tab}")
        pipe.expire(who, ttl)
        added, _ = pipe.execute()
        if not added:
            raise ClassError("answered")
        pipe = self._r.pipeline()
        pipe.hincrby(self._k(code, ":n"), f"{question}.{option}", 1)
        pipe.expire(self._k(code, ":n"), ttl)
        pipe.execute()

    def counts(self, code: str, key: str) -> dict:
        meta = self._meta(code)
        if meta is None:
            raise ClassError("closed")
        if not hmac.compare_digest(meta["key"], _key_hash(key or "")):
            raise ClassError("key")
        out: dict[str, dict[str, int]] = {}
        for field, n in self._r.hgetall(self._k(code, ":n")).items():
            q, opt = field.decode().split(".")
            out.setdefault(q, {})[opt] = int(n)
        return {"opened": meta["opened"], "expires": meta["opened"] + LIFETIME_S, "counts": out}

    def close(self, code: str, key: str | None = None) -> None:
        meta = self._meta(code)
        if meta is None:
            return
        if key is not None and not hmac.compare_digest(meta["key"], _key_hash(key)):
            raise ClassError("key")
        self._r.delete(self._k(code), self._k(code, ":n"), self._k(code, ":who"))


def bad_part(question, option, tab) -> str | None:
    """The first part of an answer that is not well formed ("q", "option", "tab"), or None."""
    if not (isinstance(question, str) and QUESTION.fullmatch(question)):
        return "q"
    if isinstance(option, bool) or not isinstance(option, (int, str)) or not str(option).isdigit() \
            or not 1 <= int(option) <= OPTION_MAX:
        return "option"
    if not (isinstance(tab, str) and TAB.fullmatch(tab)):
        return "tab"
    return None


def check_answer(question, option, tab) -> tuple[str, int, str] | None:
    """The answer's parts if well formed (a question key, an option 1..9, a tab id), else None."""
    if bad_part(question, option, tab):
        return None
    return question, int(option), tab


def rate_ok(code: str) -> bool:
    return _bucket.take(code, time.monotonic())


def for_store(store) -> DirClasses | RedisClasses:
    """The classes kept where ``store`` (serving.textstore) keeps the texts."""
    if store.kind == "redis":
        return RedisClasses(store.url)
    return DirClasses(Path(store.folder).parent / "classes")


def current():
    """The classes of the Flask app handling this request (made once per app)."""
    from flask import current_app
    classes = current_app.extensions.get("classes")
    if classes is None:
        classes = current_app.extensions["classes"] = for_store(textstore.current())
    return classes
