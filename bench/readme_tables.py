"""The README's tables that follow the code: the plate's sections (views/sections/__init__.py SECTIONS) and
the page's URL parameters (sim/params.py PAGE, with their ranges, defaults and readers).

    python3 bench/readme_tables.py      prints both, as README.md "The page" has them

tests/test_readme.py checks that README.md holds exactly this output, so a section or parameter
added, renamed or given another range fails the tests until the README is regenerated (paste the
output over the two tables).
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sim import params as P  # noqa: E402
from sim.param import Param  # noqa: E402
from views.sections import SECTIONS  # noqa: E402


def _code(values) -> str:
    return ", ".join(f"`{v}`" for v in values)


def _number(x) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)   # as the URL writes it: 1024, not 1,024


def allowed(p: Param) -> str:
    """What the URL may give, as compactly as the declaration says it."""
    if p.kind in ("int", "float"):
        kind = "integer" if p.kind == "int" else "number"
        out = f"{kind} {_number(p.lo)}..{_number(p.hi)}"
        if p.unit:
            out += f" ({p.unit})"
        if p.stops:
            out += f"; the slider's {len(p.stops)} stops run {_number(p.stops[0])}, {_number(p.stops[1])}, " \
                   f"{_number(p.stops[2])} … {_number(p.stops[-1])}"
        return out
    if p.kind == "choice":
        return _code(p.choices)
    if p.kind == "bool":
        return "`0`, `1` (or `true`, `false`)"
    return p.allowed()   # text: its own words


def default(p: Param) -> str:
    if p.default is None:
        return "absent"
    if p.kind == "bool":
        return f"`{P.PAGE[p.name].to_url(p.default)}`"
    if p.kind == "text" and p.default == "":
        return "empty"
    return f"`{p.to_url(p.default)}`"


def readers(p: Param) -> str:
    """The sections reading the parameter, by number (a part of one: its section)."""
    if not p.sections:
        return "every section"
    num = {s.anchor: s.num for s in SECTIONS}
    nums = sorted({num[u.partition(".")[0]] for u in p.sections})
    parts = sorted({u.partition(".")[2] for u in p.sections if "." in u} - {""})
    out = ", ".join(str(n) for n in nums)
    if parts and len(nums) == 1:
        out += f" ({', '.join(parts)})"
    return out


def sections_table() -> str:
    rows = ["| # | anchor | section |", "|---|---|---|"]
    rows += [f"| {s.num} | `{s.anchor}` | {s.title} |" for s in SECTIONS]
    return "\n".join(rows)


def params_table() -> str:
    rows = ["| parameter | what it sets | allowed | default | read by sections |", "|---|---|---|---|---|"]
    for name, p in P.PAGE.items():
        rows.append(f"| `{name}` | {p.help} | {allowed(p)} | {default(p)} | {readers(p)} |")
    return "\n".join(rows)


def main() -> None:
    print(sections_table())
    print()
    print(params_table())


if __name__ == "__main__":
    main()
