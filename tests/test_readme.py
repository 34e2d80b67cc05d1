"""README.md follows the code where it lists what the code declares: the plate's sections
(views/sections/__init__.py) and the page's URL parameters (sim/params.py PAGE: every one, with its range,
default and readers). bench/readme_tables.py prints both tables; paste its output into the README
when this fails."""
from __future__ import annotations

import re
from pathlib import Path

from bench.readme_tables import params_table, sections_table
from sim.params import PAGE
from views.choices import param_labels
from views.sections import SECTIONS

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
HOW = "python3 bench/readme_tables.py prints what README.md should hold; paste it over the table"


def test_readme_lists_every_section_in_order():
    assert sections_table() in README, HOW
    listed = re.findall(r"^\| (\d+) \| `(\w+)` \|", README, re.M)
    assert listed == [(str(s.num), s.anchor) for s in SECTIONS]


def test_readme_parameter_table_is_exactly_the_page_parameters():
    assert params_table() in README, HOW
    rows = re.findall(r"^\| `(\w+)` \| [^|]+\| [^|]+\| [^|]+\| [^|]+\|$", README, re.M)
    assert rows == list(PAGE), "the README lists a parameter the page does not have, or twice"


def test_every_page_parameter_has_a_name_for_the_embed_dialog(app):
    # The Embed dialog lists the settings a snippet carries by these names (issue 15).
    with app.test_request_context("/en/specdec/"):
        labels = param_labels()
    assert set(labels) == set(PAGE)
    assert all(v.strip() for v in labels.values())
