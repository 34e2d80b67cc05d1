"""`/api/roofline`: the numbers and curves of the roofline sections (1, 2, 9, 10, 11)."""
from __future__ import annotations

from flask import jsonify, request
from flask_babel import gettext as _

from sim import roofline
from views.api import bp
from views.params import Param, ParamError, parse
from views.sections_roofline import DEFAULTS, compute

SPEC = {
    "lang": Param.choice(("en", "zh"), default="en"),
    "gpu": Param.choice(tuple(roofline.GPUS), default=DEFAULTS["gpu"]),
    "model": Param.choice(tuple(roofline.MODELS), default=DEFAULTS["model"]),
    "batch": Param.int(1, 1024, default=DEFAULTS["batch"]),
    # The page's URL calls it ctx; the API also answers to the longer name.
    "context": Param.int(0, roofline.CONTEXT_MAX, default=None),
    "ctx": Param.int(0, roofline.CONTEXT_MAX, default=None),
    "gamma": Param.int(1, roofline.GAMMA_MAX, default=DEFAULTS["gamma"]),
    "alpha": Param.float(0.0, 1.0, default=DEFAULTS["alpha"]),
    "c": Param.float(0.0, 1.0, default=DEFAULTS["c"]),
    "lanes": Param.int(1, 512, default=DEFAULTS["lanes"]),
}


@bp.get("/roofline")
def roofline_numbers():
    v = parse(request.args, SPEC)
    context, ctx = v.pop("context"), v.pop("ctx")
    if context is not None and ctx is not None and context != ctx:
        raise ParamError("context", SPEC["context"].allowed(),
                         _("context and ctx name the same value; give one, or the same number."))
    v.pop("lang")
    v["ctx"] = next((x for x in (context, ctx) if x is not None), DEFAULTS["ctx"])
    return jsonify(compute(**v))
