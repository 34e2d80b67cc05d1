"""The plate's sections: their order and anchors, the answers they draw from, their live text.

Data flow (docs/design.md): a section's parameters are declared in sim/params.py (which sections
read each one); `answer(unit, lang, state)` computes a section's numbers from those parameters alone,
with `sim`; the page renders every section from its answer, and when a control changes, the page
asks `/api/section/<unit>` for the new answer and the section's live text rendered from it by the
same templates (`live_html`), so every number on the page, prose included, comes from one answer
and one renderer.

A unit is a section's anchor, or "lab.run"-style for a section made of parts (the lab's run, its
drafts' table, … are asked for separately, each within the CPU cap of one request).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

from flask import current_app
from views.translation import lazy_gettext as _l

from sim import params as P
from views.format import typeset
from views.sections import lab as sections_lab, roofline as sections_roofline
from views.sections import speculative as sections_speculative, trees as sections_trees


@dataclass(frozen=True)
class Section:
    anchor: str       # the public id: embeds and links use it, so it never changes
    title: object     # lazy: the table of contents and iframe titles show it
    units: tuple[str, ...]  # the answers it draws from: (anchor,), parts, or none (static)
    num: int = 0      # its place on the plate, from 1: given by the order below, never written


def _one(anchor, title, static=False):
    return Section(anchor, title, () if static else (anchor,))


def _parts(anchor, title, answers):
    return Section(anchor, title, tuple(answers))


# The plate's order; each section's number is its place here.
SECTIONS: tuple[Section, ...] = tuple(replace(s, num=i) for i, s in enumerate((
    _one("onebyone", _l("One token at a time")),
    _one("batch", _l("One read, many streams")),
    # Inside the reader follows the batch (issue 22): both lean on the lanes of one read.
    _one("reader", _l("Inside the reader")),
    _one("draft", _l("Let a small model guess")),
    _one("tape", _l("Until the first wrong guess")),
    _one("rule", _l("The rule for passing")),
    _one("exact", _l("The same distribution")),
    _one("alpha", _l("The acceptance rate α")),
    _one("speedup", _l("How much faster")),
    _one("idle", _l("It spends the idle arithmetic")),
    _one("selfdraft", _l("Without a second model")),
    _parts("trees", _l("Many guesses at once"), sections_trees.ANSWERS),
    _one("parts", _l("Taken apart"), static=True),
    _one("bench", _l("The bench")),
    _parts("lab", _l("Beyond the plate"), sections_lab.ANSWERS),
), start=1))
BY_ANCHOR = {s.anchor: s for s in SECTIONS}
ANCHORS = tuple(BY_ANCHOR)
ANSWERS = {**sections_roofline.ANSWERS, **sections_speculative.ANSWERS, **sections_lab.ANSWERS,
           **sections_trees.ANSWERS}
UNITS = tuple(u for s in SECTIONS for u in s.units)


def section_of(unit: str) -> Section:
    return BY_ANCHOR[unit.partition(".")[0]]


def reads(section: Section) -> tuple[str, ...]:
    """Every page parameter the section's numbers depend on (its Embed snippet carries these),
    plus the depth, which changes what it shows."""
    names = {n for u in section.units for n in P.reads(u)} | {"depth"}
    return tuple(n for n in P.PAGE if n in names)


def answer(unit: str, lang: str, state: dict) -> dict:
    """The unit's numbers, computed from the parameters it reads and nothing else."""
    v = {n: state[n] for n in P.reads(unit)}
    return {"unit": unit, "lang": lang, "params": v, **ANSWERS[unit](lang, v)}


def answers(section: Section, lang: str, state: dict) -> dict[str, dict | None]:
    """Every answer of a section; one that fails is logged and left out (None), so the section
    says its numbers are unavailable while the rest of the page stands."""
    out: dict[str, dict | None] = {}
    for unit in section.units:
        try:
            out[unit] = answer(unit, lang, state)
        except Exception:  # noqa: BLE001 - a failing section fails alone (issue 11)
            current_app.logger.exception("section %s failed for %s", unit, lang)
            out[unit] = None
    return out


# ---- live text -----------------------------------------------------------------------------------
# The parts of a section that depend on its answer are macros named live_* in its three templates
# (prose: sections/, depth notes and the predict-first answer: depths/, readouts: widgets/). The
# page wraps each in <div data-live="name">; the API renders the same macros for a new answer.
# In a section of parts, a macro live_<part>_<name> belongs to that part.

TEMPLATES = ("plate/sections/{}.html", "plate/depths/{}.html", "plate/widgets/{}.html")


def live_macros(unit: str) -> dict[str, object]:
    anchor, _dot, part = unit.partition(".")
    prefix = f"live_{part}_" if part else "live_"
    out = {}
    env = current_app.jinja_env
    for name in TEMPLATES:
        module = env.get_template(name.format(anchor)).module
        for attr in dir(module):
            if attr.startswith(prefix):
                out[attr[len("live_"):]] = getattr(module, attr)
    return out


def live_html(unit: str, a: dict) -> dict[str, str]:
    """Each live block of the unit rendered from answer ``a``, by name (as data-live names it)."""
    def tidy(html):
        return typeset(html, a.get("lang"))
    return {name: tidy(str(macro(a)).strip()) for name, macro in live_macros(unit).items()}
