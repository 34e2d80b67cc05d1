"""The suite's own shortcuts (tests/conftest.py) skip only what could not have run."""
from __future__ import annotations

import ast
from types import SimpleNamespace

import pytest

from tests import conftest


def test_every_browser_module_is_marked_browser_as_a_whole():
    # The fast loop does not import tests/browser/ at all (conftest.pytest_ignore_collect): a test
    # there without the mark would silently leave the fast loop.
    modules = sorted(conftest.BROWSER_DIR.glob("test_*.py"))
    assert modules
    for path in modules:
        marks = [node.value for node in ast.parse(path.read_text()).body
                 if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "pytestmark" for t in node.targets)]
        assert len(marks) == 1, (path.name, marks)
        # pytest.mark.browser, or a list of marks that holds it (an xdist group beside it).
        listed = marks[0].elts if isinstance(marks[0], ast.List) else [marks[0]]
        assert "pytest.mark.browser" in map(ast.unparse, listed), (path.name, ast.unparse(marks[0]))


@pytest.mark.parametrize("expr, skipped", [
    ("not browser and not slow", True),
    ("not browser", True),
    ("slow and not browser", True),
    ("", False),
    ("browser", False),
    ("not slow", False),
    ("browser or slow", False),
    ("not (browser and slow)", False),
])
def test_the_browser_folder_is_skipped_only_when_no_browser_test_can_match(expr, skipped):
    config = SimpleNamespace(getoption=lambda name: expr if name == "markexpr" else None)
    got = conftest.pytest_ignore_collect(conftest.BROWSER_DIR, config)
    assert bool(got) is skipped
    assert conftest.pytest_ignore_collect(conftest.BROWSER_DIR.parent, config) is None
