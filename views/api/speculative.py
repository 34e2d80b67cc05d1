"""JSON routes for the speculative sections (3–8): /api/run, /api/tubes, /api/theory.

Thin on purpose: validate with the declarations (sim/params.py), call sim, return its JSON.
The caps keep any single request to a few tens of milliseconds of model work.
"""
from __future__ import annotations

from flask import Blueprint, jsonify, request

from sim import params as P
from views.sections import speculative as sc
from views.params import CAPPED_TRACED, cap_positions, parse

# Target positions one run may cover, tokens × (γ+1): the target reads every position of every
# pass, so this bounds the work whatever γ is. Statistics alone (trace=0): 200 tokens at γ ≤ 8.
# With the trace of every pass (about 2.5 times the work, bench/cpu.py): 100 tokens at γ = 8,
# 200 at γ ≤ 3 (the widgets' traced runs are 40 and 60 tokens).
MAX_POSITIONS = P.TOKENS_MAX * 9
MAX_TRACED_POSITIONS = MAX_POSITIONS // 2

bp = Blueprint("speculative", __name__)   # under /api (views/api/__init__.py)


@bp.get("/run")
def run():
    v = parse(request.args, P.API_RUN)
    if v["trace"]:
        cap_positions(v, MAX_TRACED_POSITIONS, CAPPED_TRACED)
    else:
        cap_positions(v, MAX_POSITIONS)
    return jsonify(sc.run_json(v["lang"], v["draft"], v["gamma"], v["greedy"], v["rule"],
                               v["tokens"], v["seed"], v["context"], trace=v["trace"]))


@bp.get("/tubes")
def tubes():
    v = parse(request.args, P.API_TUBES)
    return jsonify(sc.tubes_json(v["lang"], v["draft"], v["rule"], v["rounds"], v["trials"],
                                 v["seed"], v["context"]))


@bp.get("/theory")
def theory():
    v = parse(request.args, P.API_THEORY)
    return jsonify(sc.theory_json(v["alpha"], v["gamma"], v["c"]))
