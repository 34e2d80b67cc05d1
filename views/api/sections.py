"""`/api/section/<unit>`: a section's answer and its live text, for the page's scripts.

The page asks for it when a control changes: the answer is what the section's widget draws, and
`html` is the section's live text (prose, depth notes, readouts) rendered from that answer by the
same templates that rendered the page, so no number is formatted twice.
"""
from __future__ import annotations

from flask import Blueprint, abort, jsonify, request

from sim import params as P
from views.params import parse
from views.sections import UNITS, answer, live_html

bp = Blueprint("sections", __name__)   # under /api (views/api/__init__.py)


@bp.get("/section/<unit>")
def section(unit: str):
    if unit not in UNITS:
        abort(404)
    v = parse(request.args, P.section_spec(unit))
    lang = v.pop("lang")
    a = answer(unit, lang, {**{n: p.default for n, p in P.PAGE.items()}, **v})
    return jsonify({"unit": unit, "data": a, "html": live_html(unit, a)})
