"""JSON routes for token trees (the `trees` section): a run with one pass traced, tubes for trees, and what a
node budget buys on the roofline.

  GET /api/tree         lang, draft, shape, sampling, rule, n, k, d, greedy, tokens, trace, seed, context
  GET /api/tree/tubes   lang, draft, sampling, rule, k, rounds, trials, seed, context
  GET /api/tree/budget  lang, draft, k, d, gpu, model, batch, ctx (or context), c

Thin on purpose: validate with the declarations (sim/params.py), check the joint caps, call the
helpers of views/sections/trees.py (the page's own), return JSON. The caps (FIXED_WORK,
EAGLE_WORK, TREE_TUBE_PASSES there and in sim/params.py) keep a request within the CPU of the
other routes (bench/cpu.py, README). A refusal names a parameter the request gave.
"""
from __future__ import annotations

from flask import Blueprint, jsonify, request
from views.translation import gettext

from sim import params as P
from sim.param import N_
from views.sections import trees as tr
from views.params import parse

CAPPED_FIXED = N_("%(name)s must be %(allowed)s for a tree of %(n)s guesses; %(value)s is out of range.")
CAPPED_EAGLE = N_("%(name)s must be %(allowed)s for EAGLE-2's tree with k = %(k)s and d = %(d)s; "
                    "%(value)s is out of range.")
TOP_ONLY = N_("%(name)s must be top for EAGLE-2's tree and for greedy decoding, which take the draft's "
                "likeliest tokens, not “%(value)s”.")
TOO_FEW = N_("%(name)s must be %(allowed)s for %(k)s separate sequences (at least one guess each); "
               "%(value)s is out of range.")
NO_PASS = N_("%(name)s must be %(allowed)s: the run made %(passes)s passes; %(value)s is out of range.")
CAPPED_PASSES = N_("%(name)s must be %(allowed)s when each round has %(trials)s trials (at most %(most)s "
                     "passes a request); %(value)s is out of range.")

bp = Blueprint("tree", __name__)   # under /api (views/api/__init__.py)


@bp.get("/tree")
def tree():
    v = parse(request.args, P.API_TREE)
    forced = v["shape"] == "dynamic" or v["greedy"]
    if forced and v["sampling"] not in (None, "top"):
        raise P.API_TREE["sampling"].but(choices=("top",)).error(gettext, TOP_ONLY, value=v["sampling"])
    if v["shape"] == "sequences" and v["n"] < v["k"]:
        raise P.TREE_N.but(lo=v["k"]).error(gettext, TOO_FEW, k=v["k"], value=v["n"])
    most = tr.tokens_cap(v["shape"], v["n"], v["k"], v["d"])
    if v["tokens"] is not None and v["tokens"] > most:
        # (tokens was given: absent, it is as many as the caps allow.)
        message, extra = (CAPPED_EAGLE, {"k": v["k"], "d": v["d"]}) if v["shape"] == "dynamic" else (CAPPED_FIXED, {"n": v["n"]})
        raise P.TOKENS.but(hi=most).error(gettext, message, value=v["tokens"], **extra)
    try:
        out = tr.run_json(v["lang"], v["draft"], v["shape"], v["n"], v["k"], v["d"], v["sampling"], v["rule"],
                          v["seed"], v["tokens"], v["context"], v["greedy"], v["trace"])
    except tr.NoSuchPass as e:
        raise P.TREE_TRACE.but(hi=e.passes - 1).error(gettext, NO_PASS, passes=e.passes, value=v["trace"]) from None
    return jsonify(out)


@bp.get("/tree/tubes")
def tree_tubes():
    v = parse(request.args, P.API_TREE_TUBES)
    most = P.TREE_TUBE_PASSES // v["trials"]
    if v["rounds"] > most:
        raise P.API_TREE_TUBES["rounds"].but(hi=most).error(gettext, CAPPED_PASSES, trials=v["trials"],
                                                           most=P.TREE_TUBE_PASSES, value=v["rounds"])
    return jsonify(tr.tubes_json(v["lang"], v["draft"], v["sampling"], v["rule"], v["k"], v["rounds"], v["trials"],
                                 v["seed"], v["context"]))


@bp.get("/tree/budget")
def tree_budget():
    v = parse(request.args, P.API_TREE_BUDGET)
    ctx = v["context"] if v["context"] is not None else v["ctx"]
    return jsonify(tr.budget_json(v["lang"], v["draft"], v["k"], v["d"], v["gpu"], v["model"], v["batch"], ctx, v["c"]))
