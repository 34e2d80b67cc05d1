"""Validation of query parameters for the API and the page's URL state.

One `Param` per name says what is allowed; `parse` turns a request's query into a dict of typed
values or raises `ParamError` naming the first bad parameter. The API turns that error into a
JSON 400; pages use `parse_lenient`, which keeps the defaults for bad values and reports them so
the page can show a notice instead of failing.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from flask_babel import gettext as _

# Query values longer than this are refused before any conversion (bounds the work per request).
_MAX_RAW_LEN = 1000
# Control characters (except tab/newline) have no place in a context string and break the tape.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


class ParamError(ValueError):
    """A query parameter is missing its rules, has the wrong type, or is out of range."""

    def __init__(self, param: str, allowed: str, message: str):
        super().__init__(f"{param}: {message} (allowed: {allowed})")
        self.param = param
        self.allowed = allowed
        self.message = message

    def to_json(self) -> dict:
        return {"error": {"param": self.param, "allowed": self.allowed, "message": self.message}}


@dataclass(frozen=True)
class Param:
    kind: str                      # "int" | "float" | "choice" | "bool" | "text"
    default: Any = None
    lo: float | None = None
    hi: float | None = None
    choices: tuple[str, ...] = ()
    max_len: int = 0

    # -- constructors named as in the team contract -------------------------------------------
    @classmethod
    def int(cls, lo: int, hi: int, default: int | None = None) -> "Param":
        return cls("int", default=default, lo=lo, hi=hi)

    @classmethod
    def float(cls, lo: float, hi: float, default: float | None = None) -> "Param":
        return cls("float", default=default, lo=lo, hi=hi)

    @classmethod
    def choice(cls, choices: Iterable[str], default: str | None = None) -> "Param":
        return cls("choice", default=default, choices=tuple(choices))

    @classmethod
    def bool(cls, default: bool = False) -> "Param":
        return cls("bool", default=default)

    @classmethod
    def text(cls, max_len: int = 200, default: str = "") -> "Param":
        return cls("text", default=default, max_len=max_len)

    # -- description and conversion -------------------------------------------------------------
    def allowed(self) -> str:
        """What is allowed, in a compact form (translated: the page notice and API errors show it)."""
        if self.kind == "int":
            return _("integer %(lo)s..%(hi)s", lo=self.lo, hi=self.hi)
        if self.kind == "float":
            return _("number %(lo)s..%(hi)s", lo=_fmt(self.lo), hi=_fmt(self.hi))
        if self.kind == "choice":
            return _("one of %(choices)s", choices=", ".join(self.choices))
        if self.kind == "bool":
            return _("0, 1, true or false")
        return _("text of at most %(n)s characters", n=self.max_len)

    def convert(self, name: str, raw: str) -> Any:
        """Return the typed value of `raw` or raise ParamError."""
        allowed = self.allowed()

        def fail(message: str) -> ParamError:
            return ParamError(name, allowed, message)

        if len(raw) > _MAX_RAW_LEN and self.kind != "text":
            raise fail(_("The value is too long."))
        s = raw.strip()
        if self.kind == "int":
            # Accept only plain decimal integers: "4", "-1"; not "4.0", "1e3", "0x10".
            if not re.fullmatch(r"[+-]?\d{1,12}", s):
                raise fail(_("Expected a whole number, got “%(value)s”.", value=_clip(raw)))
            v = int(s)
            if not (self.lo <= v <= self.hi):
                raise fail(_("%(value)s is out of range.", value=v))
            return v
        if self.kind == "float":
            try:
                v = float(s)
            except ValueError:
                raise fail(_("Expected a number, got “%(value)s”.", value=_clip(raw))) from None
            if not math.isfinite(v):
                raise fail(_("Expected a finite number, got “%(value)s”.", value=_clip(raw)))
            if not (self.lo <= v <= self.hi):
                raise fail(_("%(value)s is out of range.", value=_fmt(v)))
            return v
        if self.kind == "choice":
            if s not in self.choices:
                raise fail(_("“%(value)s” is not one of the choices.", value=_clip(raw)))
            return s
        if self.kind == "bool":
            low = s.lower()
            if low in ("1", "true"):
                return True
            if low in ("0", "false"):
                return False
            raise fail(_("Expected 0, 1, true or false, got “%(value)s”.", value=_clip(raw)))
        # text
        if len(raw) > self.max_len:
            raise fail(_("The text has %(n)s characters; at most %(max)s are allowed.",
                         n=len(raw), max=self.max_len))
        if _CONTROL.search(raw):
            raise fail(_("The text contains control characters."))
        return raw


def _fmt(x: float | None) -> str:
    return "" if x is None else f"{x:g}"


def _clip(raw: str, n: int = 40) -> str:
    """Quote at most n characters of a bad value back to the user."""
    return raw if len(raw) <= n else raw[:n] + "…"


def _values(args: Mapping, name: str) -> list[str]:
    # Werkzeug's MultiDict has getlist; a plain dict gives one value.
    if hasattr(args, "getlist"):
        return list(args.getlist(name))
    v = args[name]
    return list(v) if isinstance(v, (list, tuple)) else [v]


def parse(args: Mapping, spec: Mapping[str, Param]) -> dict:
    """Typed values for every name in `spec` (defaults where absent).

    Raises ParamError on a bad value, a repeated name, or a name not in `spec`.
    """
    for name in args:
        if name not in spec:
            raise ParamError(name, _("one of %(choices)s", choices=", ".join(spec)) if spec else _("no parameters"),
                             _("Unknown parameter “%(name)s”.", name=_clip(name)))
    out = {}
    for name, param in spec.items():
        if name not in args:
            out[name] = param.default
            continue
        vals = _values(args, name)
        if len(vals) != 1:
            raise ParamError(name, param.allowed(), _("Give this parameter once."))
        out[name] = param.convert(name, str(vals[0]))
    return out


def cap_positions(v: dict, positions: int, when: str = "") -> None:
    """The joint cap of a run: tokens × (γ+1) target positions at most (the target reads every
    position of every pass). Raises ParamError naming ``tokens`` and its range at this γ.
    (``tokens`` has passed its own range already, so the cap only ever lowers it.)"""
    most = positions // (v["gamma"] + 1)
    if v["tokens"] > most:
        raise ParamError("tokens", f"integer 1..{most} when gamma is {v['gamma']}{when}",
                         _("%(value)s is out of range.", value=v["tokens"]))


def parse_lenient(args: Mapping, spec: Mapping[str, Param]) -> tuple[dict, list[ParamError]]:
    """Like `parse`, but a bad value falls back to the default and is reported, not raised.

    Names not in `spec` are ignored: pages get links with tracking or anchor parameters we
    neither need nor want to complain about.
    """
    out, errors = {}, []
    for name, param in spec.items():
        out[name] = param.default
        if name not in args:
            continue
        vals = _values(args, name)
        try:
            if len(vals) != 1:
                raise ParamError(name, param.allowed(), _("Give this parameter once."))
            out[name] = param.convert(name, str(vals[0]))
        except ParamError as e:
            errors.append(e)
    return out, errors
