"""Language is decided in one place: the records of ``corpus.text.LANGUAGES`` (issue 19). No
module outside the record tests a language's code; Python, the templates, the scripts and the
deployment read a record (its typography, tokeniser, number words, fonts) or loop over the
records, so a third language is one more record and its catalog.

Python is read as syntax (every string constant that is a language's code, docstrings left
out); the templates, scripts and shell files as text (a quoted code, or a bare one in nginx's
template). What may still name a code, each for its reason:

- ``corpus/text.py``: the records themselves;
- an HTML ``lang="en"`` attribute: it marks a passage's own language (a paper's English title on
  the Chinese page), which is content, not a branch;
- CSS selectors on the document's language (``html[lang^="zh"]``, ``:lang(en)``): that is how CSS
  gives a script its typography (fonts, no italics for Han, line breaking); nothing else of the
  record is repeated in CSS (the label colon comes from the record, base.html's ``--colon``);
- ``bench/count.py``'s two 2 MB sample texts: a benchmark of the two books, named as its inputs.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from corpus.text import LANGUAGES

ROOT = Path(__file__).resolve().parent.parent
CODES = sorted(set(LANGUAGES) | {language.html_lang for language in LANGUAGES.values()}, key=len, reverse=True)
PY_DIRS = ("corpus", "sim", "views", "serving", "deploy", "bench")
PY_ALLOWED = {"corpus/text.py": None, "bench/count.py": 2}   # file -> constants allowed (None: any)


def _py_files() -> list[Path]:
    return sorted([p for d in PY_DIRS for p in (ROOT / d).rglob("*.py")]
                  + [ROOT / "app.py", ROOT / "gunicorn.conf.py"])


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def _code_constants(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    skip = _docstrings(tree)
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in CODES
            and id(node) not in skip]


def test_python_reads_the_record():
    found = {}
    for path in _py_files():
        rel = path.relative_to(ROOT).as_posix()
        hits = _code_constants(path)
        allowed = PY_ALLOWED.get(rel, 0)
        if allowed is not None and len(hits) > allowed:
            found[rel] = hits
    assert found == {}, f"a language's code outside corpus.text.LANGUAGES: {found}"


def test_the_allowed_python_still_needs_its_allowance():
    # An allowance nobody uses any more is removed, so the list stays short and true.
    assert _code_constants(ROOT / "bench/count.py"), "bench/count.py names no language: drop its allowance"


_ALT = "|".join(re.escape(c) for c in CODES)
# A quoted code not after an HTML lang= (an attribute marking a passage's language; hreflang counts).
_QUOTED = re.compile(rf"(?<! lang=)([\"'`])(?:{_ALT})\1")
# A code as a word, in nginx's template (its maps are unquoted).
_BARE = re.compile(rf"(?<![\w$./-])(?:{_ALT})(?![\w-])")
# In CSS, a code is only ever the document's language in a selector.
_CSS_CODE = re.compile(rf"(?<![\w-])(?:{_ALT})(?![\w-])")
_CSS_SELECTOR = re.compile(rf"\[lang\^?=\"(?:{_ALT})\"\]|:lang\((?:{_ALT})\)")


def _text_files() -> list[Path]:
    files = [*(ROOT / "templates").rglob("*.html"), *(ROOT / "static" / "js").rglob("*.js"),
             *ROOT.glob("*.sh"), *(ROOT / "bench").glob("*.sh"), *(ROOT / "deploy").glob("*.j2")]
    return sorted(p for p in files if "vendor" not in p.relative_to(ROOT).parts)


def _without_comments(path: Path, text: str) -> str:
    if path.suffix == ".js":
        return re.sub(r"^\s*//.*$", "", text, flags=re.M)
    if path.suffix in (".sh", ".j2"):
        text = re.sub(r"^\s*#.*$", "", text, flags=re.M)
    return re.sub(r"\{#.*?#\}", "", text, flags=re.S)


@pytest.mark.parametrize("path", _text_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_templates_scripts_and_deployment_read_the_record(path):
    text = _without_comments(path, path.read_text(encoding="utf-8"))
    pattern = _BARE if path.suffix == ".j2" else _QUOTED
    hits = [text[max(0, m.start() - 30):m.end() + 10] for m in pattern.finditer(text)]
    assert hits == [], f"{path.relative_to(ROOT)} names a language: {hits}"


@pytest.mark.parametrize("path", sorted((ROOT / "static" / "css").rglob("*.css")), ids=lambda p: p.name)
def test_css_names_a_language_only_in_a_selector(path):
    text = re.sub(r"/\*.*?\*/", "", path.read_text(encoding="utf-8"), flags=re.S)
    rest = _CSS_SELECTOR.sub("", text)
    hits = [rest[max(0, m.start() - 30):m.end() + 10] for m in _CSS_CODE.finditer(rest)]
    assert hits == [], f"{path.name} names a language outside a selector: {hits}"
    # The record's punctuation is not written again in CSS.
    colons = {language.colon.strip() for language in LANGUAGES.values()} - {":"}
    assert not any(f'"{c}"' in text for c in colons), f"{path.name} writes a record's colon: read var(--colon)"


# A third language, registered as one more record (French, reusing English's book, models and
# typography, with no catalog of its own: its pages read in English), in a process of its own,
# since the modules read the records when they are imported.
THIRD = r"""
import dataclasses, json, sys
import corpus, corpus.text as t
t.LANGUAGES["fr"] = dataclasses.replace(t.LANGUAGES["en"], code="fr", name="Français", html_lang="fr")
t.LANGS = tuple(t.LANGUAGES)
_load = corpus.load
corpus.load = lambda lang, *a, **k: _load("en" if lang == "fr" else lang, *a, **k)
from app import create_app
from deploy import nginx
c = create_app({"TESTING": True}).test_client()
out = {}
for path in ("/fr/specdec/", "/embed/fr/specdec/tape/", "/fr/specdec/teach/", "/en/specdec/",
             "/api/section/tape?lang=fr&seed=3", "/api/theory?alpha=2"):
    r = c.get(path, headers={"Accept-Language": "fr"})
    out[path] = [r.status_code, r.get_data(as_text=True)]
out["nginx"] = nginx.render("127.0.0.1:1", "unix:/x.sock", "/tmp", lua=None)
json.dump(out, sys.stdout)
"""


# A fresh interpreter that loads the models and renders five pages: about 5 s of CPU.
@pytest.mark.slow
def test_a_third_language_is_one_more_record():
    import json
    import subprocess
    import sys
    r = subprocess.run([sys.executable, "-c", THIRD], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    got = json.loads(r.stdout)
    for path in ("/fr/specdec/", "/embed/fr/specdec/tape/", "/fr/specdec/teach/"):
        status, body = got[path]
        assert status == 200 and '<html lang="fr"' in body, path
        assert 'href="/en/specdec/' in body or "/en/specdec/" in body, path   # the switch to the others
    # The page of another language offers the new one in its switch.
    assert "/fr/specdec/" in got["/en/specdec/"][1] and "Français" in got["/en/specdec/"][1]
    status, body = got["/api/section/tape?lang=fr&seed=3"]
    assert status == 200 and json.loads(body)["data"]["lang"] == "fr"
    status, body = got["/api/theory?alpha=2"]
    assert status == 400 and json.loads(body)["error"]["param"] == "alpha"
    # nginx's language maps carry it too (the URL's prefix, ?lang=, Accept-Language).
    assert "~^/(embed/)?fr/ fr;" in got["nginx"] and " fr fr;" in got["nginx"]
