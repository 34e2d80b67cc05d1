"""Numbers as the page writes them, in the reader's language: one formatter for every number the
server renders (static/js/format.js writes the same forms for what scripts draw; a browser test
compares the two).

A format is "kind:digits":
  num:2   fixed decimals, grouped (13,350.42)        pct:1  a fraction as a percentage (99.7%)
  x:2     a factor: 1.78× in English, 1.78 倍 in Chinese
  big     a count: every digit in English, 万/亿 in Chinese
  prob    a probability: 0.091, 0.0043, 6.7 × 10⁻⁵  text   as it is
Chinese groups digits by 万, not by thousands: below 1万 a number has no separator (4096), from
1万 up the thousands separator stays for exact figures (32,768) and counts take 万/亿 (80.3亿).
The conventions are written down in translations/zh/GLOSSARY.md.
`field(a, path, fmt)` writes a number of an answer, marked with its path (data-field), so tests can
check every number on the page against the answer it came from.
"""
from __future__ import annotations

import decimal
import math
import re
from decimal import ROUND_HALF_UP, Decimal

from babel.numbers import format_compact_decimal
from flask_babel import format_decimal, format_percent, get_locale
from jinja2 import Undefined, pass_context
from markupsafe import Markup, escape

from corpus.text import LANGUAGES, Language
from sim import params
from sim.param import query

MISSING = "–"  # a number that is not there (the one glyph for it, here and in format.js)
_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def missing(x) -> bool:
    return (x is None or isinstance(x, Undefined) or isinstance(x, bool)
            or (isinstance(x, float) and not math.isfinite(x)))


def _pattern(decimals: int, grouped: bool = True) -> str:
    decimals = max(0, int(decimals))
    return ("#,##0" if grouped else "0") + ("." + "0" * decimals if decimals else "")


def _language() -> Language:
    """The reader's language (the request's locale; English outside a request)."""
    locale = get_locale()
    return LANGUAGES.get(locale.language if locale is not None else "", LANGUAGES["en"])


def _grouped(x, decimals: int) -> bool:
    """Whether the rounded |x| has five digits or more before the point: Chinese leaves 4096
    ungrouped, as Intl's useGrouping "min2" does in format.js (CLDR's minimum grouping digits)."""
    if not _language().myriads:
        return True
    with decimal.localcontext(_HALF_UP):
        rounded = Decimal(str(abs(x))).quantize(Decimal(1).scaleb(-max(0, int(decimals))))
    return rounded >= 10_000


# Half away from zero, as Intl.NumberFormat rounds in format.js (Decimal's default is half-even).
_HALF_UP = decimal.Context(rounding=ROUND_HALF_UP)


def num(x, decimals: int = 0) -> str:
    """Locale-aware number with a fixed number of decimals: 13350.4|num(0) -> "13,350"."""
    if missing(x):
        return MISSING
    with decimal.localcontext(_HALF_UP):
        return format_decimal(x, format=_pattern(decimals, _grouped(x, decimals)))


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
    if not _language().myriads or abs(x) < 10_000:
        return num(x, 0)
    # Three significant digits first, half away from zero as Intl rounds, and only then the
    # unit: 99,960,000 is 1亿, where babel alone would pick 万 and write 9996万.
    d = Decimal(str(x))
    d = d.quantize(Decimal(1).scaleb(d.adjusted() - 2), rounding=ROUND_HALF_UP)
    return format_compact_decimal(d, locale=get_locale(), fraction_digits=2)


def times(x: str) -> str:
    """A factor already written as digits ("1.74", "2.6–3.4"): "1.74×" in English, "1.74 倍" in
    Chinese (one convention for prose, readouts and charts; GLOSSARY.md)."""
    return _language().times.format(x)


# In Chinese a count with 万/亿 runs on into the word after it ("80.3亿个参数", "每秒 1.33万个词元"),
# where a plain figure keeps its space ("4096 个词元"): the space a sentence or template put after
# the number goes when the number ends in 万 or 亿 and a Han character follows. Applied to every
# rendered Chinese page and live block (views/plate.py, views/sections/__init__.py); format.js's tidy()
# does the same to what scripts write.
_UNIT_SPACE = re.compile(r"(?<=[万亿])(</span>)?[ \t]+(?=[\u4e00-\u9fff])")


def tidy_zh(html: str) -> str:
    return _UNIT_SPACE.sub(r"\1", html)


def typeset(html: str, lang: str | None) -> str:
    """Rendered text with its language's spacing rules (tidy_zh where counts run in 万/亿)."""
    return tidy_zh(html) if lang in LANGUAGES and LANGUAGES[lang].myriads else html


# Punctuation around a phrase, in the reader's language: English puts a space before a bracket,
# after a colon and between sentences; Chinese uses full-width marks and no spaces (GLOSSARY.md).
# Globals, so macros imported without the page's context use them too.
def paren(text) -> Markup:
    """" (text)" in English, "（text）" in Chinese."""
    return Markup(_language().paren).format(text)


def colon() -> str:
    """What joins a label to its value: ": " in English, "：" in Chinese."""
    return _language().colon


def section_ref(num: int) -> str:
    """A section's number where a sentence points to it: "01" in English (as the contents list
    prints it), "1" in Chinese (第 1 节)."""
    return _language().section_ref.format(num)


def gap() -> str:
    """The space between two sentences, or after a label: " " in English, none in Chinese."""
    return _language().gap


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
        return MISSING if missing(x) else times(num(x, d))
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


# A control's symbol standing alone in its label ("Guesses per pass, γ", "Node budget n (…)",
# "每个节点的子节点数 k"): the Story depth promises no formulas, so it hides them there
# (static/css/widgets/depth.css hides .depth-formula at that depth).
_SYMBOL = re.compile(r"(,?\s)([γαnkdc])(?=$|\s|[(（,，])")


def symbols(label) -> Markup:
    """The label with its stand-alone symbols marked as formula, escaped."""
    return Markup(_SYMBOL.sub(r'<span class="depth-formula">\1\2</span>', str(escape(label))))


def story(formula, words) -> Markup:
    """A readout written two ways: as a formula (Picture, Frontier) and in words (Story);
    static/css/widgets/depth.css shows the one the depth asks for."""
    return Markup('<span class="depth-formula">{}</span><span class="depth-words">{}</span>').format(
        formula, words)


@pass_context
def _times_filter(context, x: str) -> str:
    # Jinja folds a filter on a constant ("2.6–3.4"|times) when it compiles the template, so the
    # language of the first page rendered would stick; a filter that takes the context is not folded.
    return times(x)


def init_app(app) -> None:
    app.jinja_env.filters.update(num=num, pct=pct, compact=compact, prob=prob, fmt=fmt, times=_times_filter,
                                 symbols=symbols)
    # Globals, so macros imported without context (and rendered alone for /api/section) see them.
    app.jinja_env.globals.update(field=field, lookup=lookup, MISSING=MISSING, P=params,
                                 url_query=query, section_ref=section_ref, LANGUAGES=LANGUAGES, story=story, paren=paren, colon=colon, gap=gap)
