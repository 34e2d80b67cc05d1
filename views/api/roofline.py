"""`/api/roofline`: the numbers and curves of the roofline sections (1, 2, 9, 10, 11)."""
from __future__ import annotations

from flask import Blueprint, jsonify, request
from views.translation import gettext as _

from sim import params as P
from sim.param import N_
from views.params import parse
from views.sections.roofline import compute

bp = Blueprint("roofline", __name__)   # under /api (views/api/__init__.py)


@bp.get("/roofline")
def roofline_numbers():
    v = parse(request.args, P.API_ROOFLINE)
    context = v.pop("context")
    if context is not None and "ctx" in request.args and context != v["ctx"]:
        raise P.API_ROOFLINE["context"].error(_, N_("context and ctx name the same value; give one, or the same number."))
    v.pop("lang")
    v["efficiency"] = v.pop("eff")   # the page's name for sim.roofline's efficiency
    if context is not None:
        v["ctx"] = context
    return jsonify(compute(**v))
