"""One parameter: its declaration (name, type, range or choices, default, unit), its checks, and
how it is read from text (a URL, a command line) with messages in the reader's language.

The declarations themselves live with what they describe: each module of the engine declares the
checks of its own arguments next to its code (``sim.theory.CHECKS``, ``sim.roofline.CHECKS``, …);
``sim.params`` declares the page's, the API's and the command line's parameters, narrowing those
with ``Param.but``. The design follows TensorFlow Playground's src/state.ts: one list of
parameters drives parsing, defaults and the URL.

Messages are English templates marked with ``N_`` for the catalog; whoever shows one passes its
``gettext`` (Flask-Babel's for the API and the page, none for the command line and the library).
This module imports nothing of the project.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Mapping

Gettext = Callable[[str], str]


def N_(message: str) -> str:
    """Mark a message for extraction into the catalog (pybabel's default N_ keyword)."""
    return message


def join(items, gettext: "Gettext" = None) -> str:
    """Values listed in the reader's language: "a, b, c" in English, "a、b、c" in Chinese (the
    separator is a catalog entry of its own)."""
    sep = gettext(N_(", ")) if gettext else ", "
    return sep.join(items)


def _english(message: str) -> str:
    return message


_RAW_MAX = 1000          # characters of any non-text value: refused before conversion


# ---- errors ------------------------------------------------------------------------------------

class ParamError(ValueError):
    """A parameter has the wrong type, is out of range, unknown or repeated.

    ``param`` names it, ``allowed`` says what it may be, ``message`` what is wrong; the last two are
    in the language of the ``gettext`` the error was made with."""

    def __init__(self, param: str, allowed: str, message: str):
        super().__init__(message)   # the message names the parameter
        self.param = param
        self.allowed = allowed
        self.message = message

    def to_json(self) -> dict:
        return {"error": {"param": self.param, "allowed": self.allowed, "message": self.message}}


def _fmt(x: float, grouped: bool = False) -> str:
    """A bound as people write it: 0..1, 0..131072, not 0.0..1.0; for a reader (``grouped``) the
    digits of a bound from 10,000 up are grouped, as the page writes figures (131,072)."""
    if isinstance(x, float):
        return f"{x:g}"
    return f"{x:,}" if grouped and abs(x) >= 10_000 else str(x)


def clip(raw: str, n: int = 40) -> str:
    """At most n characters of a bad value, to quote it back."""
    return raw if len(raw) <= n else raw[:n] + "…"


_INT = re.compile(r"[+-]?\d{1,19}")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # no place in a context string; breaks the tape


# ---- the declaration ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Param:
    name: str
    kind: str                          # "int" | "float" | "choice" | "bool" | "text"
    default: Any = None                # None: absent means "not given" (e.g. α measured, not set)
    lo: float | None = None
    hi: float | None = None
    choices: tuple[str, ...] = ()
    max_len: int = 0                   # text: characters
    unit: str = ""                     # English, for --help, the README and the shipped state
    help: str = ""                     # one English line, for --help and the README
    sections: tuple[str, ...] = ()     # the page's sections (anchors; "lab.run" for a part) reading it
    stops: tuple = ()                  # a slider's stops on the page
    pattern: str = ""                  # text: a regular expression the whole value must match
    shape: str = ""                    # text with a pattern: what it allows, in words (N_-marked)
    step: float = 0                    # a slider's step where there are no stops (floats)

    def but(self, **changes) -> "Param":
        """The same parameter with another range, default or set of readers."""
        return replace(self, **changes)

    # -- what is allowed, in words ---------------------------------------------------------------
    def allowed(self, gettext: Gettext = _english) -> str:
        # Words for a reader (a page's or the API's catalog) group long bounds; the plain default,
        # for the command line and the library, keeps them as they are typed.
        g = gettext is not _english
        if self.kind in ("int", "float") and self.hi is None:
            # The library's checks: any size the arithmetic takes.
            form = N_("an integer of at least %(lo)s") if self.kind == "int" else N_("a number of at least %(lo)s")
            return gettext(form) % {"lo": _fmt(self.lo, g)}
        if self.kind == "int":
            return gettext(N_("an integer from %(lo)s to %(hi)s")) % {"lo": _fmt(self.lo, g), "hi": _fmt(self.hi, g)}
        if self.kind == "float":
            return gettext(N_("a number from %(lo)s to %(hi)s")) % {"lo": _fmt(self.lo), "hi": _fmt(self.hi)}
        if self.kind == "choice":
            return gettext(N_("one of %(choices)s")) % {"choices": join(self.choices, gettext)}
        if self.kind == "bool":
            return gettext(N_("0, 1, true or false"))
        if self.pattern:
            return gettext(self.shape or N_("a text’s sha256 (64 hex digits), or empty"))
        return gettext(N_("text of at most %(n)s characters")) % {"n": self.max_len}

    def error(self, gettext: Gettext, message: str, **values) -> ParamError:
        """A ParamError naming this parameter and its range; ``message`` is an N_ template."""
        allowed = self.allowed(gettext)
        text = gettext(message) % {"name": self.name, "allowed": allowed, **values}
        return ParamError(self.name, allowed, text)

    # -- from text (the URL, the command line) ----------------------------------------------------
    def parse(self, raw: str, gettext: Gettext = _english) -> Any:
        """The typed value of ``raw``, or ParamError naming this parameter and its range."""
        if len(raw) > _RAW_MAX and self.kind != "text":
            raise self.error(gettext, N_("%(name)s: the value is too long; allowed: %(allowed)s."))
        s = raw.strip()
        if self.kind == "int":
            # Plain decimal integers only: "4", "-1"; not "4.0", "1e3", "0x10".
            if not _INT.fullmatch(s):
                raise self.error(gettext, N_("%(name)s must be %(allowed)s, not “%(value)s”."),
                                 value=clip(raw))
            return self.check(int(s), gettext)
        if self.kind == "float":
            try:
                v = float(s)
            except ValueError:
                raise self.error(gettext, N_("%(name)s must be %(allowed)s, not “%(value)s”."),
                                 value=clip(raw)) from None
            return self.check(v, gettext)
        if self.kind == "choice":
            return self.check(s, gettext)
        if self.kind == "bool":
            low = s.lower()
            if low in ("1", "true"):
                return True
            if low in ("0", "false"):
                return False
            raise self.error(gettext, N_("%(name)s must be %(allowed)s, not “%(value)s”."), value=clip(raw))
        return self.check(raw, gettext)

    # -- typed values (the library's own checks) --------------------------------------------------
    def check(self, value: Any, gettext: Gettext = _english) -> Any:
        """``value`` if it is allowed (ints as int, floats as float), else ParamError."""
        if self.kind == "int":
            if type(value) is int and self._within(value):
                return value    # the usual case first: the roofline's curves check ~10^5 values a page
            # Python and numpy integers, and floats that are whole (64.0); never bools.
            ok = isinstance(value, (int, float)) or hasattr(value, "__index__")
            if isinstance(value, bool) or not ok or (isinstance(value, float) and not value.is_integer()):
                raise self.error(gettext, N_("%(name)s must be %(allowed)s, not “%(value)s”."),
                                 value=clip(str(value)))
            v = int(value)
            if not self._within(v):
                raise self.error(gettext, N_("%(name)s must be %(allowed)s; %(value)s is out of range."),
                                 value=v)
            return v
        if self.kind == "float":
            if type(value) is float and math.isfinite(value) and self._within(value):
                return value
            try:
                v = float(value)
            except (TypeError, ValueError):
                raise self.error(gettext, N_("%(name)s must be %(allowed)s, not “%(value)s”."),
                                 value=clip(str(value))) from None
            if isinstance(value, bool) or not math.isfinite(v):
                raise self.error(gettext, N_("%(name)s must be %(allowed)s, not “%(value)s”."),
                                 value=clip(str(value)))
            if not self._within(v):
                raise self.error(gettext, N_("%(name)s must be %(allowed)s; %(value)s is out of range."),
                                 value=_fmt(v))
            return v
        if self.kind == "choice":
            if value not in self.choices:
                raise self.error(gettext, N_("%(name)s must be %(allowed)s, not “%(value)s”."),
                                 value=clip(str(value)))
            return value
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise self.error(gettext, N_("%(name)s must be %(allowed)s, not “%(value)s”."),
                                 value=clip(str(value)))
            return value
        if not isinstance(value, str):
            raise self.error(gettext, N_("%(name)s must be %(allowed)s."))
        if len(value) > self.max_len:
            raise self.error(gettext, N_("%(name)s has %(n)s characters; at most %(max)s are allowed."),
                             n=len(value), max=self.max_len)
        if _CONTROL.search(value):
            raise self.error(gettext, N_("%(name)s contains control characters."))
        if self.pattern and value and not re.fullmatch(self.pattern, value):
            raise self.error(gettext, N_("%(name)s must be %(allowed)s, not “%(value)s”."), value=clip(value, 16))
        return value

    def _within(self, v) -> bool:
        return self.lo <= v and (self.hi is None or v <= self.hi)

    # -- for the page's scripts and the README ----------------------------------------------------
    def to_json(self) -> dict:
        out = {"kind": self.kind, "default": self.default}
        if self.kind in ("int", "float"):
            out.update(lo=self.lo, hi=self.hi)
        if self.choices:
            out["choices"] = list(self.choices)
        if self.max_len:
            out["max_len"] = self.max_len
        if self.stops:
            out["stops"] = list(self.stops)
        if self.step:
            out["step"] = self.step
        if self.unit:
            out["unit"] = self.unit
        out["sections"] = list(self.sections)
        return out

    def to_url(self, value: Any) -> str:
        """The value as the URL writes it: bools as 0/1, floats without a trailing .0."""
        if isinstance(value, bool):
            return "1" if value else "0"
        if isinstance(value, float):
            return _fmt(value) if value.is_integer() else repr(value)
        return str(value)


def int_(name, lo, hi, default, **kw) -> Param:
    return Param(name, "int", default, lo=lo, hi=hi, **kw)


def float_(name, lo, hi, default, **kw) -> Param:
    """A number from lo to hi (hi None: any size from lo)."""
    return Param(name, "float", default, lo=float(lo), hi=None if hi is None else float(hi), **kw)


def choice(name, choices: Iterable[str], default, **kw) -> Param:
    return Param(name, "choice", default, choices=tuple(choices), **kw)


def bool_(name, default=False, **kw) -> Param:
    return Param(name, "bool", default, **kw)


def text(name, max_len, default="", **kw) -> Param:
    return Param(name, "text", default, max_len=max_len, **kw)


def spec(*params: Param) -> dict[str, Param]:
    """A route's (or the page's) parameters by name."""
    out = {p.name: p for p in params}
    assert len(out) == len(params), "a name given twice"
    return out


# ---- parsing a whole query ---------------------------------------------------------------------

def _values(args: Mapping, name: str) -> list[str]:
    if hasattr(args, "getlist"):       # Werkzeug's MultiDict
        return list(args.getlist(name))
    v = args[name]
    return list(v) if isinstance(v, (list, tuple)) else [v]


def parse(args: Mapping, params: Mapping[str, Param], gettext: Gettext = _english) -> dict:
    """Typed values for every parameter (defaults where absent). ParamError on a bad value, a
    repeated name, or a name the route does not take."""
    for name in args:
        if name not in params:
            allowed = (gettext(N_("one of %(choices)s")) % {"choices": join(params, gettext)} if params
                       else gettext(N_("no parameters")))
            raise ParamError(clip(name), allowed,
                             gettext(N_("Unknown parameter “%(name)s”.")) % {"name": clip(name)})
    out = {}
    for name, p in params.items():
        if name not in args:
            out[name] = p.default
            continue
        vals = _values(args, name)
        if len(vals) != 1:
            raise p.error(gettext, N_("%(name)s is given %(n)s times; give it once."), n=len(vals))
        out[name] = p.parse(str(vals[0]), gettext)
    return out


def parse_lenient(args: Mapping, params: Mapping[str, Param], gettext: Gettext = _english) -> tuple[dict, list[ParamError]]:
    """Like ``parse``, but a bad value falls back to the default and is reported, not raised;
    names the route does not take are ignored (links carry tracking parameters)."""
    out, errors = {}, []
    for name, p in params.items():
        out[name] = p.default
        if name not in args:
            continue
        vals = _values(args, name)
        try:
            if len(vals) != 1:
                raise p.error(gettext, N_("%(name)s is given %(n)s times; give it once."), n=len(vals))
            out[name] = p.parse(str(vals[0]), gettext)
        except ParamError as e:
            errors.append(e)
    return out, errors


def query(values: Mapping[str, Any], params: Mapping[str, Param], names: Iterable[str] | None = None) -> dict:
    """The values that differ from their defaults, as the URL writes them (only ``names`` if given)."""
    names = params if names is None else names
    return {n: params[n].to_url(values[n]) for n in names
            if values.get(n) is not None and values[n] != params[n].default}


# ---- the command line --------------------------------------------------------------------------

def add_argument(parser, p: Param, *, required: bool = False, flag: str | None = None, **kw) -> None:
    """``--name`` on an argparse parser, typed and checked by the declaration (one line of error
    on a bad value, as the API's message says it), with the declaration's default and help."""
    import argparse

    def typed(raw: str):
        try:
            return p.parse(raw)
        except ParamError as e:
            raise argparse.ArgumentTypeError(e.message) from None

    opt = flag or f"--{p.name}"
    if p.kind == "bool":
        parser.add_argument(opt, action="store_true", help=kw.pop("help", p.help))
        return
    help_ = kw.pop("help", p.help)
    bits = [help_, p.allowed()] + ([p.unit] if p.unit and p.kind in ("int", "float") else [])
    parser.add_argument(opt, type=typed, required=required,
                        default=None if required else kw.pop("default", p.default),
                        help="; ".join(b for b in bits if b), **kw)
