"""A section's number is its place in the registry (views/sections/__init__.py), so it is never
written by hand: not in the code's comments and docstrings, the scripts, the styles, the
templates' comments, nor in a message (a message takes the number from ``section_nums``). Papers'
sections (``§3.2``, ``section 3.5``) are not ours and are left alone."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NUMBER = re.compile(r"\b[Ss]ections? \d+(?!\d)(?!\.\d)")
FILES = sorted(p for d in ("sim", "views", "serving", "deploy", "corpus", "bench", "static/js", "static/css")
               for p in (ROOT / d).rglob("*") if p.suffix in (".py", ".js", ".css")) + \
    [ROOT / "app.py", ROOT / "gunicorn.conf.py"]
TEMPLATES = sorted((ROOT / "templates").rglob("*.html"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_section_number_in_code(path):
    hits = [f"{i}: {line.strip()}" for i, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1)
            if NUMBER.search(line)]
    assert not hits, "name the section by its anchor:\n" + "\n".join(hits)


@pytest.mark.parametrize("path", TEMPLATES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_section_number_in_templates(path):
    # Comments and messages alike: a message says "section %(sn)s" with sn=section_nums[anchor].
    text = path.read_text(encoding="utf-8")
    hits = [m.group(0) for m in NUMBER.finditer(text)]
    assert not hits, hits
