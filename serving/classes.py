"""A class's predictions, counted where the readers' texts are kept (serving.textstore), so every
worker and every app server sees the same counts: a folder beside the texts by default, the same
Redis when one is configured. Anonymous: a class is a short code and a teacher's key; an answer
is a question, an option and a random id of the browser tab (one answer per question per tab).
Nothing else is kept, and nothing after the class closes or 24 hours after it opened.

Bounded: at most MAX_CLASSES open classes, MAX_ANSWERS answers per class (so a class holds at
most a few hundred kB), and answers rate-limited per class: RATE_PER_S with a burst of
RATE_BURST, a token bucket kept in Redis when one is configured (every worker and server draws
from the same bucket), else in each worker process (a class answered through N workers may then
get up to N times the rate; the log says so when the classes are first asked for).

The folder store makes every write an exclusive create (O_EXCL: atomic on every OS and across
processes): an answer is an empty file named by its question, option and tab, next to a marker
for the question and tab that a second answer from the same tab cannot create again. Counting is
listing the class's folder. Redis: a hash of counts (HINCRBY) and a set of who answered (SADD),
each key living 24 hours; every call waits at most a short time-out and goes through the
breaker the texts' store uses (serving.textstore.Breaker): a Redis that hangs costs one request
that wait, and the class routes then answer at once that the class cannot be reached.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import re
import secrets
import shutil
import threading
import time
from pathlib import Path

from serving import textstore

log = logging.getLogger(__name__)

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"   # no 0/O, 1/I: read off a projector
CODE_LEN = 6
CODE = re.compile(f"[{CODE_ALPHABET}]{{{CODE_LEN}}}")
QUESTION = re.compile(r"[a-z]{1,16}(-story)?")          # a predict-first question's key
TAB = re.compile(r"[0-9a-f]{16,32}")                   # a tab's random id (sessionStorage)
OPTION_MAX = 9
LIFETIME_S = 24 * 3600
MAX_CLASSES = 500
MAX_ANSWERS = 4000          # 200 students × 20 questions
RATE_PER_S = 60             # answers per class per second, with a burst of RATE_BURST
RATE_BURST = 240
REDIS_PREFIX = "specdec:class:"
RATE_PREFIX = "specdec:classrate:"   # not under REDIS_PREFIX: the classes are counted by that


class ClassError(Exception):
    """Why an answer or a look was refused: ``kind`` is one of closed, answered, full, busy, key,
    down (the store cannot be reached)."""

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


class _Classes:
    """What both stores do alike: the code and the key, the 24 hours, the teacher's key checked,
    the result's form. A store says how it keeps a class (``_create``, ``_read_meta``, ``_record``,
    ``_tally``, ``_delete``, ``_count_open``)."""

    kind = ""

    def __init__(self, clock=time.time):
        self.clock = clock

    def open(self) -> tuple[str, str]:
        if self._count_open() >= MAX_CLASSES:
            raise ClassError("full")
        key = secrets.token_hex(16)
        meta = {"opened": self.clock(), "key": _key_hash(key)}
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LEN))
            if self._create(code, meta):
                return code, key
        raise ClassError("full")

    def _meta(self, code: str) -> dict | None:
        """The class's meta, or None when it is not open (never opened, closed, too old)."""
        if not CODE.fullmatch(code or ""):
            raise ClassError("closed")
        meta = self._read_meta(code)
        if meta is not None and self.clock() - meta.get("opened", 0) > LIFETIME_S:
            self._delete(code)
            return None
        return meta

    def _teachers(self, code: str, key: str | None) -> dict | None:
        """The meta of an open class when ``key`` is its teacher's (None: not asked)."""
        meta = self._meta(code)
        if meta is None:
            raise ClassError("closed")
        if key is not None and not hmac.compare_digest(meta["key"], _key_hash(key)):
            raise ClassError("key")
        return meta

    def is_open(self, code: str) -> bool:
        try:
            return self._meta(code) is not None
        except ClassError as e:
            if e.kind == "down":
                raise
            return False

    def answer(self, code: str, question: str, option: int, tab: str) -> None:
        meta = self._meta(code)
        if meta is None:
            raise ClassError("closed")
        self._record(code, meta, question, option, tab)

    def counts(self, code: str, key: str) -> dict:
        meta = self._teachers(code, key or "")
        out: dict[str, dict[str, int]] = {}
        for (q, opt), n in self._tally(code).items():
            out.setdefault(q, {})[opt] = out.get(q, {}).get(opt, 0) + n
        return {"opened": meta["opened"], "expires": meta["opened"] + LIFETIME_S, "counts": out}

    def close(self, code: str, key: str | None = None) -> None:
        try:
            self._teachers(code, key)
        except ClassError as e:
            if e.kind == "closed" and key is None:
                return       # closed already: nothing to do
            raise
        self._delete(code)

    def rate_ok(self, code: str) -> bool:
        """One answer more for this class within its rate (in this process; RedisClasses: in all)."""
        return _bucket.take(code, time.monotonic())


class DirClasses(_Classes):
    """Classes as folders: ``<root>/<CODE>/meta.json`` and one empty file per answer. The rate is
    limited in each worker process (a folder has no cheap shared counter)."""

    kind = "dir"

    def __init__(self, root: str | os.PathLike, clock=time.time):
        super().__init__(clock)
        self.root = Path(root)
        self.root.mkdir(parents=True, exist_ok=True)

    def _dir(self, code: str) -> Path:
        if not CODE.fullmatch(code or ""):
            raise ClassError("closed")
        return self.root / code

    def _read_meta(self, code: str) -> dict | None:
        try:
            return json.loads((self._dir(code) / "meta.json").read_text())
        except (OSError, ValueError):
            return None

    def prune(self) -> None:
        for d in list(self.root.iterdir()):
            if d.is_dir() and CODE.fullmatch(d.name):
                self._meta(d.name)   # closes it when too old

    def _count_open(self) -> int:
        self.prune()
        return sum(1 for d in self.root.iterdir() if d.is_dir() and CODE.fullmatch(d.name))

    def _create(self, code: str, meta: dict) -> bool:
        d = self._dir(code)
        try:
            d.mkdir()
        except FileExistsError:
            return False
        tmp = d / ".meta.tmp"
        tmp.write_text(json.dumps(meta))
        os.replace(tmp, d / "meta.json")
        return True

    def _record(self, code: str, meta: dict, question: str, option: int, tab: str) -> None:
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

    def _tally(self, code: str) -> dict[tuple[str, str], int]:
        try:
            names = [e.name for e in os.scandir(self._dir(code))]
        except FileNotFoundError:
            raise ClassError("closed") from None
        out: dict[tuple[str, str], int] = {}
        for name in names:
            if name.startswith("a."):
                _a, q, opt, _tab = name.split(".")
                out[q, opt] = out.get((q, opt), 0) + 1
        return out

    def _delete(self, code: str) -> None:
        # Renamed away first, so no answer lands in a class being deleted.
        gone = self.root / f".gone-{code}-{secrets.token_hex(4)}"
        try:
            os.replace(self._dir(code), gone)
        except FileNotFoundError:
            return
        shutil.rmtree(gone, ignore_errors=True)


# A token bucket per class in Redis, taken atomically (one script, Redis's own clock): every worker
# and every app server draws from the same bucket. Returns 1 when an answer may go through.
_TAKE = """
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local v = redis.call('HMGET', KEYS[1], 'tokens', 't')
local tokens = tonumber(v[1]) or burst
local last = tonumber(v[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - last) * rate)
local ok = 0
if tokens >= 1 then tokens = tokens - 1; ok = 1 end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 't', tostring(now))
redis.call('EXPIRE', KEYS[1], math.ceil(burst / rate) + 1)
return ok
"""


class RedisClasses(_Classes):
    """Classes in the Redis the texts use: ``specdec:class:<CODE>`` (meta), ``…:n`` (counts),
    ``…:who`` (question and tab of each answer), all expiring 24 hours after the class opened;
    ``specdec:classrate:<CODE>`` its rate's bucket. Every call through ``breaker``: while it is
    open (a recent failure) nothing is asked and the class "cannot be reached" at once."""

    kind = "redis"

    def __init__(self, url: str, clock=time.time, *, breaker: textstore.Breaker | None = None,
                 timeout_s: float = textstore.REDIS_TIMEOUT_S):
        super().__init__(clock)
        self.breaker = breaker or textstore.Breaker()
        self._r, self._errors = textstore.redis_client(url, timeout_s)
        self._take = self._r.register_script(_TAKE)

    def _ask(self, what: str, fn):
        """fn(redis client) through the breaker; a failure (or an open breaker) is ClassError("down")."""
        if self.breaker.broken:
            raise ClassError("down")
        try:
            return fn(self._r)
        except self._errors:
            self.breaker.fail(f"classes {what}")
            raise ClassError("down") from None

    def _k(self, code: str, part: str = "") -> str:
        if not CODE.fullmatch(code or ""):
            raise ClassError("closed")
        return f"{REDIS_PREFIX}{code}{part}"

    def _count_open(self) -> int:
        return self._ask("scan", lambda r: sum(1 for _ in r.scan_iter(f"{REDIS_PREFIX}*", count=1000))) // 3   # 3 keys a class

    def _create(self, code: str, meta: dict) -> bool:
        return bool(self._ask("set", lambda r: r.set(self._k(code), json.dumps(meta), nx=True, ex=LIFETIME_S)))

    def _read_meta(self, code: str) -> dict | None:
        raw = self._ask("get", lambda r: r.get(self._k(code)))
        return json.loads(raw) if raw else None

    def _record(self, code: str, meta: dict, question: str, option: int, tab: str) -> None:
        ttl = max(1, int(meta["opened"] + LIFETIME_S - self.clock()))
        who = self._k(code, ":who")
        if self._ask("scard", lambda r: r.scard(who)) >= MAX_ANSWERS:
            raise ClassError("full")

        def mark(r):
            pipe = r.pipeline()
            pipe.sadd(who, f"{question}.{tab}")
            pipe.expire(who, ttl)
            return pipe.execute()[0]
        if not self._ask("sadd", mark):
            raise ClassError("answered")

        def count(r):
            pipe = r.pipeline()
            pipe.hincrby(self._k(code, ":n"), f"{question}.{option}", 1)
            pipe.expire(self._k(code, ":n"), ttl)
            pipe.execute()
        self._ask("hincrby", count)

    def _tally(self, code: str) -> dict[tuple[str, str], int]:
        raw = self._ask("hgetall", lambda r: r.hgetall(self._k(code, ":n")))
        return {tuple(field.decode().split(".")): int(n) for field, n in raw.items()}

    def _delete(self, code: str) -> None:
        self._ask("delete", lambda r: r.delete(self._k(code), self._k(code, ":n"), self._k(code, ":who"),
                                               f"{RATE_PREFIX}{code}"))

    def rate_ok(self, code: str) -> bool:
        """Shared by every worker and server; while Redis cannot be reached, this process's bucket."""
        try:
            return bool(self._ask("rate", lambda r: self._take(keys=[f"{RATE_PREFIX}{code}"],
                                                               args=[RATE_PER_S, RATE_BURST], client=r)))
        except ClassError:
            return super().rate_ok(code)


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


def for_store(store) -> DirClasses | RedisClasses:
    """The classes kept where ``store`` (serving.textstore) keeps the texts; with Redis, behind the
    same breaker (a Redis the texts found hung is not asked for the classes either)."""
    if store.kind == "redis":
        return RedisClasses(store.url, breaker=store.breaker, timeout_s=store.timeout_s)
    log.info("classes: answers are rate-limited in each worker process (no Redis configured)")
    return DirClasses(Path(getattr(store, "folder", None) or textstore.fallback_dirs()[-1]).parent / "classes")


def current():
    """The classes of the Flask app handling this request (made once per app)."""
    from flask import current_app
    classes = current_app.extensions.get("classes")
    if classes is None:
        classes = current_app.extensions["classes"] = for_store(textstore.current())
    return classes
