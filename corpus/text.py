"""From the books to token streams.

English: Lewis Carroll, *Alice's Adventures in Wonderland* (Project Gutenberg eBook #11).
Chinese: five stories of Lu Xun's 《呐喊》 (故乡, 社戏, 孔乙己, 一件小事, 风波).
Provenance and hashes: ``../shared/corpus/SOURCES.md``.

Cleaning (English)
  * keep what lies between the ``*** START OF ...`` and ``*** END OF ...`` markers, and of that only
    the story: from the second ``CHAPTER I.`` line (the first is in the table of contents) to
    ``THE END``;
  * drop ``[Illustration]`` lines and the ``*   *   *`` separator lines;
  * drop the ``_`` italics markers; keep everything else, case and punctuation included.
  The text is split into one document per chapter, so no n-gram spans two chapters.

Tokens (English)
  A token is a word or a single punctuation mark, case kept ("Mock" and "mock" differ). A word is a
  run of letters or digits that may carry apostrophes or hyphens *inside* it (``Alice’s``,
  ``don’t``, ``Rabbit-Hole``): regular expression ``\\w+(?:[’'\\-]\\w+)*``. Every other
  non-space character is a token by itself (``,`` ``“`` ``—`` ``?`` ...). Whitespace is dropped.
  The pattern runs on the ``regex`` engine, the one NLTK's ``RegexpTokenizer`` uses (its ``\\w``
  covers more of Unicode than ``re``'s, combining marks included), so the tokens are NLTK's. We
  call the engine directly: NLTK 3.10 runs every match under a 5-second wall-clock timer (a guard
  against caller-supplied patterns), which a busy server exceeds on a long text for no fault of
  the text; this pattern is linear (each repetition starts at an apostrophe or hyphen), 0.15 s
  on 2 MB.

Cleaning and tokens (Chinese)
  Each story file is one document, title and closing date line included. A token is one Unicode
  character, punctuation included; whitespace (spaces, newlines, the BOM) is dropped.
"""
from __future__ import annotations

import hashlib
import re
from pathlib import Path

from dataclasses import dataclass
from typing import Callable

import regex

# The stories in the order of the book (《呐喊》, 1923).
NAHAN_FILES = ("kong_yiji.txt", "yijian_xiaoshi.txt", "fengbo.txt", "guxiang.txt", "shexi.txt")
ALICE_FILE = "alice.txt"

EN_PATTERN = r"\w+(?:[’'\-]\w+)*|[^\w\s]"
_en_pattern = regex.compile(EN_PATTERN)


class SourceMissing(FileNotFoundError):
    """The book texts are not where we looked for them."""


def default_source() -> Path:
    """``../shared/corpus`` seen from the project's root."""
    return Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"


def source_files(lang: str, source: Path | None = None) -> list[Path]:
    source = Path(source) if source else default_source()
    paths = [source / name for name in LANGUAGES[lang].sources]
    missing = [str(p) for p in paths if not p.is_file()]
    if missing:
        raise SourceMissing(f"book text not found: {', '.join(missing)}")
    return paths


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def clean_alice(raw: str) -> list[str]:
    """The story of Alice, one string per chapter (see the module docstring for the rules)."""
    text = raw.lstrip("\ufeff")
    start = text.index("\n", text.index("*** START OF")) + 1
    text = text[start:text.index("*** END OF")]
    lines = text.split("\n")
    chapter_lines = [i for i, line in enumerate(lines) if re.fullmatch(r"CHAPTER [IVXL]+\.", line.strip())]
    if len(chapter_lines) != 12:
        raise ValueError(f"expected 12 chapter headings, found {len(chapter_lines)}")
    end = next(i for i, line in enumerate(lines) if line.strip() == "THE END")
    keep = []
    for line in lines[chapter_lines[0]:end + 1]:
        stripped = line.strip()
        if stripped == "[Illustration]" or re.fullmatch(r"\*(\s+\*)+", stripped):
            continue
        keep.append(line.replace("_", ""))
    chapters, current = [], []
    for line in keep:
        if re.fullmatch(r"CHAPTER [IVXL]+\.", line.strip()) and current:
            chapters.append("\n".join(current))
            current = []
        current.append(line)
    chapters.append("\n".join(current))
    return chapters


def tokenize_en(text: str) -> list[str]:
    return _en_pattern.findall(text)


def tokenize_zh(text: str) -> list[str]:
    return [ch for ch in text if not ch.isspace() and ch != "\ufeff"]


def _chapters(paths: list[Path]) -> list[str]:
    return clean_alice(paths[0].read_text(encoding="utf-8"))


def _stories(paths: list[Path]) -> list[str]:
    return [p.read_text(encoding="utf-8") for p in paths]


def N_(msgid: str) -> str:
    """Marks an English message for the catalog (pybabel extracts ``N_`` by default) where no
    request is there to translate it; the views translate it when they show it."""
    return msgid


@dataclass(frozen=True)
class Language:
    """Everything that differs between the languages, in one place: a third language is one more
    record here (and its catalog), not a branch in every module that writes text."""
    code: str                               # the URL's and the catalog's ("en", "zh")
    name: str                               # in the language itself, for the language switch
    html_lang: str                          # the pages' <html lang> (BCP 47)
    tokenize: Callable[[str], list[str]]    # text -> tokens, as the book was split
    tokenizer: str                          # the tokens' rule in words (the snapshot records it)
    sources: tuple[str, ...]                # the book's files under ../shared/corpus
    documents: Callable[[list[Path]], list[str]]   # the book's files -> its documents' texts
    # How text is written (views/format.py reads these; GLOSSARY.md gives the Chinese rules):
    joiner: str                             # between two tokens written out: a space, or none
    gap: str                                # between two sentences, or after a label
    colon: str                              # what joins a label to its value
    comma: str                              # between two items of a list or a citation
    full_stop: str                          # at the end of a sentence
    paren: str                              # a phrase in brackets after a word
    times: str                              # a factor already written as digits
    myriads: bool                           # counts in 万/亿 (CLDR), digits grouped from five on
    full_width: bool                        # full-width punctuation: views.format.tidy_zh's rules
    # How its tokens are drawn and described:
    split_label: str                        # the lab's split of a reader's text, a catalog msgid
    glyph_em: float                         # a character's width in ems, to size a token's label box
    canvas_font: str                        # a canvas's token labels (the bench's machine): size, family
    # The tubes' starting context, when the seed plate fixed one (else sim.examples finds one):
    tubes_context: tuple[str, ...] | None = None

    def for_scripts(self) -> dict:
        """What the page's scripts read of the record (static/js/language.js)."""
        return {"code": self.code, "html_lang": self.html_lang, "joiner": self.joiner, "gap": self.gap,
                "colon": self.colon, "comma": self.comma, "full_stop": self.full_stop,
                "paren": self.paren, "times": self.times, "myriads": self.myriads,
                "full_width": self.full_width, "glyph_em": self.glyph_em,
                "canvas_font": self.canvas_font}


LANGUAGES: dict[str, Language] = {
    "en": Language("en", "English", "en", tokenize_en, EN_PATTERN, (ALICE_FILE,), _chapters,
                   joiner=" ", gap=" ", colon=": ", comma=", ", full_stop=".", paren=" ({})", times="{}×",
                   myriads=False, full_width=False, split_label=N_("words and punctuation (English)"),
                   glyph_em=0.6, canvas_font="38px Georgia, serif", tubes_context=(",", "when")),
    "zh": Language("zh", "中文", "zh-CN", tokenize_zh, "one Unicode character, whitespace dropped",
                   tuple(f"nahan/{name}" for name in NAHAN_FILES), _stories,
                   joiner="", gap="", colon="：", comma="，", full_stop="。", paren="（{}）", times="{}\u00a0倍",
                   myriads=True, full_width=True, split_label=N_("characters (Chinese)"),
                   glyph_em=1.0, canvas_font='46px "Noto Sans CJK SC", "Noto Sans SC", sans-serif'),
}
LANGS = tuple(LANGUAGES)
DEFAULT_LANG = LANGS[0]     # a request that names no language of ours, and text outside a request


def switch_langs(lang: str) -> tuple[str, ...]:
    """The languages a page's switch offers: every other one, in the records' order from the
    page's own (with two, the other one)."""
    i = LANGS.index(lang)
    return LANGS[i + 1:] + LANGS[:i]


def tokenize(lang: str, text: str) -> list[str]:
    return LANGUAGES[lang].tokenize(text)


def read_documents(lang: str, source: Path | None = None) -> list[list[str]]:
    """The token streams of one language, one list per document (chapter or story)."""
    if lang not in LANGS:
        raise ValueError(f"lang must be one of {LANGS}, not {lang!r}")
    language = LANGUAGES[lang]
    return [language.tokenize(doc) for doc in language.documents(source_files(lang, source))]
