"""JSON routes for the speculative sections (3–8): /api/run, /api/tubes, /api/theory.

Thin on purpose: validate with views.params, call sim, return its JSON.
The caps keep any single request to a few tens of milliseconds of model work.
"""
from __future__ import annotations

from flask import jsonify, request

from views.api import bp

from views.params import Param, cap_positions, parse
from views import sections_speculative as sc

# Caps (see module docstring): the expensive knobs are bounded here, once.
MAX_TOKENS = 200   # tokens written by one /api/run
MAX_ROUNDS = 20    # rounds of the tubes experiment per request
MAX_TRIALS = 200   # trials per round
MAX_GAMMA = 16     # guesses per pass
# Target positions one run may cover, tokens × (γ+1): the target reads every position of every
# pass, so this bounds the work whatever γ is. Statistics alone (trace=0): 200 tokens at γ ≤ 8.
# With the trace of every pass (about 2.5 times the work, bench/cpu.py): 100 tokens at γ = 8,
# 200 at γ ≤ 3 (the widgets' traced runs are 40 and 60 tokens).
MAX_POSITIONS = MAX_TOKENS * 9
MAX_TRACED_POSITIONS = MAX_POSITIONS // 2

RUN_SPEC = {
    "lang": Param.choice(sc.LANGS, default="en"),
    "draft": Param.choice(sc.DRAFTS, default="bigram"),
    "gamma": Param.int(0, MAX_GAMMA, default=4),
    "greedy": Param.bool(default=False),
    "rule": Param.choice(sc.RULES, default="exact"),
    "tokens": Param.int(1, MAX_TOKENS, default=40),
    "seed": Param.int(0, 2147483647, default=1),
    "context": Param.text(max_len=200, default=""),
    "trace": Param.bool(default=True),
}

TUBES_SPEC = {
    "lang": Param.choice(sc.LANGS, default="en"),
    "draft": Param.choice(sc.DRAFTS, default="bigram"),
    "rule": Param.choice(sc.RULES, default="exact"),
    "rounds": Param.int(1, MAX_ROUNDS, default=1),
    "trials": Param.int(1, MAX_TRIALS, default=50),
    "seed": Param.int(0, 2147483647, default=1),
    "context": Param.text(max_len=200, default=""),
}

THEORY_SPEC = {
    "alpha": Param.float(0.0, 1.0, default=0.6),
    "gamma": Param.int(1, MAX_GAMMA, default=4),
    "c": Param.float(0.0, 1.0, default=0.1),
}


@bp.get("/run")
def run():
    v = parse(request.args, RUN_SPEC)
    if v["trace"]:
        cap_positions(v, MAX_TRACED_POSITIONS, " and trace is 1")
    else:
        cap_positions(v, MAX_POSITIONS)
    return jsonify(sc.run_json(v["lang"], v["draft"], v["gamma"], v["greedy"], v["rule"],
                               v["tokens"], v["seed"], v["context"], trace=v["trace"]))


@bp.get("/tubes")
def tubes():
    v = parse(request.args, TUBES_SPEC)
    return jsonify(sc.tubes_json(v["lang"], v["draft"], v["rule"], v["rounds"], v["trials"],
                                 v["seed"], v["context"]))


@bp.get("/theory")
def theory():
    v = parse(request.args, THEORY_SPEC)
    return jsonify(sc.theory_json(v["alpha"], v["gamma"], v["c"]))
