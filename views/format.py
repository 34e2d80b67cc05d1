"""Numbers as the page writes them, in the reader's language: one formatter for every number the
server renders (static/js/format.js writes the same forms for what scripts draw; a browser test
compares the two).

A format is "kind:digits":
  num:2   fixed decimals, grouped (13,350.42)        pct:1  a fraction as a percentage (99.7%)
  x:2     a factor (1.78×)                          big    a count: every digit in English, 万/亿 in Chinese
  prob    a probability: 0.091, 0.0043, 6.7 × 10⁻⁵  text   as it is
`field(a, path, fmt)` writes a number of an answer, marked with its path (data-field), so tests can
check every number on the page against the answer it came from.
"""
from __future__ import annotations

import decimal
import math
from decimal import ROUND_HALF_UP, Decimal

from babel.numbers import format_compact_decimal
from flask_babel import format_decimal, format_percent, get_locale
from jinja2 import Undefined
from markupsafe import Markup, escape

MISSING = "–"  # a number that is not there (the one glyph for it, here and in format.js)
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def missing(x) -> bool:
    return (x is None or isinstance(x, Undefined) or isinstance(x, bool)
            or (isinstance(x, float) and not math.isfinite(x)))


def _pattern(decimals: int) -> str:
    decimals = max(0, int(decimals))
    return "#,##0" + ("." + "0" * decimals if decimals else "")


# Half away from zero, as Intl.NumberFormat rounds in format.js (Decimal's default is half-even).
_HALF_UP = decimal.Context(rounding=ROUND_HALF_UP)


def num(x, decimals: int = 0) -> str:
    """Locale-aware number with a fixed number of decimals: 13350.4|num(0) -> "13,350"."""
    if missing(x):
        return MISSING
    with decimal.localcontext(_HALF_UP):
        return format_decimal(x, format=_pattern(decimals))


def pct(x, decimals: int = 0) -> str:
    """Locale-aware percentage of a fraction: 0.997|pct(1) -> "99.7%"."""
    if missing(x):
        return MISSING
    with decimal.localcontext(_HALF_UP):
        return format_percent(x, format=_pattern(decimals) + "%")


def compact(x) -> str:
    """A count as the page's language reads it: 8030261248 -> "8,030,261,248" in English,
    "80.3亿" in Chinese (CLDR's 万, 亿, 万亿 with three significant digits, as format.js writes it
    with Intl). English, and Chinese below 1万, keep every digit."""
    if missing(x):
        return MISSING
    locale = get_locale()
    if locale is None or locale.language != "zh" or abs(x) < 10_000:
        return num(x, 0)
    # Three significant digits first, half away from zero as Intl rounds, and only then the
    # unit: 99,960,000 is 1亿, where babel alone would pick 万 and write 9996万.
    d = Decimal(str(x))
    d = d.quantize(Decimal(1).scaleb(d.adjusted() - 2), rounding=ROUND_HALF_UP)
    return format_compact_decimal(d, locale=locale, fraction_digits=2)


def prob(x) -> str:
    """A probability a reader can compare: three decimals from 0.01 up, two significant digits
    below (0.0043), and a power of ten below 0.001 (6.7 × 10⁻⁵), never a bare 0.000."""
    if missing(x):
        return MISSING
    if x == 0:
        return num(0, 0)
    if abs(x) >= 0.01:
        return num(x, 3)
    if abs(x) >= 0.001:
        return num(x, 4)
    mantissa, exponent = f"{x:.1e}".split("e")
    return f"{num(float(mantissa), 1)} × 10{str(int(exponent)).translate(_SUPERSCRIPT)}"


def fmt(x, spec: str = "num:0") -> str:
    kind, _sep, digits = spec.partition(":")
    d = int(digits or 0)
    if kind == "text":
        return MISSING if x is None or isinstance(x, Undefined) else str(x)
    if kind == "pct":
        return pct(x, d)
    if kind == "x":
        return MISSING if missing(x) else num(x, d) + "×"
    if kind == "big":
        return compact(x * 10 ** d if not missing(x) else x)
    if kind == "prob":
        return prob(x)
    return num(x, d)


def lookup(a, path: str):
    """The value at a dotted path of an answer ("run.passes", "steps.0.token"), or None."""
    v = a
    for part in path.split("."):
        if v is None or isinstance(v, Undefined):
            return None
        if isinstance(v, (list, tuple)):
            try:
                v = v[int(part)]
            except (ValueError, IndexError):
                return None
        elif isinstance(v, dict):
            v = v.get(part)
        else:
            return None
    return v


def field(a, path: str, spec: str = "num:0", tag: str = "span") -> Markup:
    """A number of answer ``a`` as the page writes it, marked with where it came from."""
    return Markup(f'<{tag} class="num" data-field="{escape(path)}" data-fmt="{escape(spec)}">'
                  f'{escape(fmt(lookup(a, path), spec))}</{tag}>')


def init_app(app) -> None:
    from sim import params
    from views.choices import choice_labels
    app.jinja_env.filters.update(num=num, pct=pct, compact=compact, prob=prob, fmt=fmt)
    # Globals, so macros imported without context (and rendered alone for /api/section) see them.
    app.jinja_env.globals.update(field=field, lookup=lookup, MISSING=MISSING, P=params,
                                 choice_labels=choice_labels)
