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
from functools import lru_cache
from decimal import ROUND_HALF_UP, Decimal

from babel.numbers import format_compact_decimal
from flask_babel import format_decimal, format_percent, get_locale
from jinja2 import Undefined, pass_context
from markupsafe import Markup, escape

from corpus.text import DEFAULT_LANG, LANGUAGES, Language
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
    return LANGUAGES.get(locale.language if locale is not None else "", LANGUAGES[DEFAULT_LANG])


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
    locale = get_locale()
    # The sign is part of the key: -0.0 == 0.0, but babel writes them apart.
    return _num(str(locale) if locale is not None else "", x, math.copysign(1.0, x), int(decimals))


# babel parses the pattern and reads the locale on every call (about 0.1 ms); a page writes the
# same few figures many times over.
@lru_cache(maxsize=4096)
def _num(locale: str, x, _sign: float, decimals: int) -> str:
    with decimal.localcontext(_HALF_UP):
        return format_decimal(x, format=_pattern(decimals, _grouped(x, decimals)))


PCT_DECIMALS_MAX = 3   # a share is never rounded to 0 % or 100 % when it is not: up to 3 decimals


def share_decimals(x, decimals: int) -> int:
    """The decimals a share needs so that rounding hides neither a nonzero share (0.003 is 0.3 %,
    not 0 %) nor a gap to the whole (0.9996 is 99.96 %, not 100 %), up to PCT_DECIMALS_MAX."""
    d = decimals
    while d < PCT_DECIMALS_MAX and 0 < abs(x) < 1 and (round(abs(x) * 100, d) == 0 or round(abs(x) * 100, d) == 100):
        d += 1
    return d


def pct(x, decimals: int = 0) -> str:
    """Locale-aware percentage of a fraction: 0.997|pct(1) -> "99.7%"; more decimals where the
    rounding would show a nonzero share as 0 % or a share short of the whole as 100 %."""
    if missing(x):
        return MISSING
    decimals = share_decimals(x, decimals)
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
    return _language().times.format(x)   # zh: a no-break space, so a factor keeps its 倍


# In Chinese a count with 万/亿 runs on into the word after it ("80.3亿个参数", "每秒 1.33万个词元"),
# where a plain figure keeps its space ("4096 个词元"): the space a sentence or template put after
# the number goes when the number ends in 万 or 亿 and a Han character follows. Applied to every
# rendered Chinese page and live block (views/plate.py, views/sections/__init__.py); format.js's tidy()
# does the same to what scripts write.
_UNIT_SPACE = re.compile(r"([万亿])(</span>)?[ \t]+(?=[\u4e00-\u9fff])")
# A token that is itself a quote mark, quoted ("草稿模型的首选““”"), reads as a slip: it is shown
# in corner brackets instead (「“」). The token may sit in a field's <span>; " and ' come escaped.
_QUOTE_TOKEN = re.compile(r"“((?:<[^>]*>)*)(“|”|‘|’|&#34;|&#39;|&quot;|&#x27;)((?:</[^>]*>)*)”")
# A number and its unit stay on one line ("50.4 GB", "3.4 倍", "4.8 毫秒"): the space between
# them is a no-break space, also after the </span> (</tspan>) of a field. format.js's tidy() does the same.
_NUM_UNIT = re.compile(r"(\d)((?:</[a-z]+>)*)[ \t]+(?=(?:倍|GB|TB|MB|KB|GiB|TiB|ms|µs|毫秒|微秒)(?![A-Za-z]))")
NBSP = "\u00a0"
# A figure with 万/亿 written in the prose itself ("700亿参数"), not by a field (fields do not wrap,
# plate.css): a word joiner keeps the digits and their 万/亿 on one line. Fields and scripts' data
# are passed over unchanged.
_WAN_YI = re.compile(r"(\d)(?=[万亿])")
_FIELD = re.compile(r'(<span class="num"[^>]*>[^<]*</span>)')
WORD_JOINER = "\u2060"
# No space after a full-width mark, even where a template put one between a label ending in "："
# and its value ("每次前向的 γ： 4 7 7"), possibly across the end of an element.
_AFTER_MARK = re.compile(r"([，。；：！？、])((?:</[a-z]+>)*)[ \t]+(?=\S)")


# A range of figures ("2.7–3.5 倍", "85% 到 90%") stays on one line: a line may break after an en
# dash and at the spaces around 到, so a word joiner sits on each side of the dash and the spaces
# around 到 are no-break ones, also where a field's <span> closes before the mark or opens after it.
# Scripts' data are passed over unchanged. format.js's tidy() does the same.
_RANGE = re.compile(r'(\d%?)((?:</[a-z]+>)*)(?:(–)|[ \t]+(到)[ \t]+)((?:<[a-z][^>]*>)*)(?=\d)')
# Scripts' data (JSON for the widgets: a third of a plate's characters and most of its digits)
# and fields: the two rules above pass over them, so they are split off once, by patterns that
# start with a literal (which the regex engine finds fast), rather than matched by each rule.
_SCRIPT = re.compile(r"(<script\b.*?</script>)", re.S)


def _range(m: re.Match) -> str:
    mark = WORD_JOINER + "–" + WORD_JOINER if m.group(3) else NBSP + "到" + NBSP
    return m.group(1) + m.group(2) + mark + m.group(5)


def tidy_zh(html: str) -> str:
    html = _UNIT_SPACE.sub(r"\1\2", html)
    html = _QUOTE_TOKEN.sub(r"「\1\2\3」", html)
    html = _AFTER_MARK.sub(r"\1\2", html)
    html = _NUM_UNIT.sub(lambda m: m.group(1) + (m.group(2) or "") + NBSP, html)
    parts = _SCRIPT.split(html)         # text, script, text, ..., text
    parts[::2] = [_prose(_RANGE.sub(_range, text)) for text in parts[::2]]
    return "".join(parts)


def _prose(text: str) -> str:
    parts = _FIELD.split(text)          # prose, field, prose, ..., prose
    parts[::2] = [_WAN_YI.sub("\\1" + WORD_JOINER, prose) for prose in parts[::2]]
    return "".join(parts)


def typeset(html: str, lang: str | None) -> str:
    """Rendered text with its language's typography (tidy_zh for full-width Chinese text)."""
    return tidy_zh(html) if lang in LANGUAGES and LANGUAGES[lang].full_width else html


# Punctuation around a phrase, in the reader's language: English puts a space before a bracket,
# after a colon and between sentences; Chinese uses full-width marks and no spaces (GLOSSARY.md).
# Globals, so macros imported without the page's context use them too.
def paren(text) -> Markup:
    """" (text)" in English, "（text）" in Chinese."""
    return Markup(_language().paren).format(text)


def colon() -> str:
    """What joins a label to its value: ": " in English, "：" in Chinese."""
    return _language().colon


def comma() -> str:
    """What separates listed values inside a sentence: ", " in English, "，" in Chinese."""
    return _language().comma


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


PVALUE_FLOOR = 1e-6   # below it a p-value is written as a bound: "< 10⁻⁶", never "0" or "0.000"


def pvalue(x) -> str:
    """A test's p-value: as ``prob`` from 10⁻⁶ up, "< 10⁻⁶" below (an underflow to 0 included: a
    p-value is never 0)."""
    if missing(x):
        return MISSING
    if x < PVALUE_FLOOR:
        return "< 10" + str(int(math.log10(PVALUE_FLOOR))).translate(_SUPERSCRIPT)
    return prob(x)


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
    if kind == "pvalue":
        return pvalue(x)
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
                                 url_query=query, LANGUAGES=LANGUAGES, story=story,
                                 paren=paren, colon=colon, comma=comma, gap=gap)
