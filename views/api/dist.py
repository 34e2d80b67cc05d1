"""/api/dist: one model's next-token distribution after a context, its most likely tokens first."""
from __future__ import annotations

import numpy as np
from flask import Blueprint, jsonify, request

from corpus.text import tokenize
from sim.ngram import load_models
from sim import params as P
from views.params import parse

bp = Blueprint("dist", __name__)   # under /api (views/api/__init__.py)


def dist_json(lang: str, model: str, context: str, top: int) -> dict:
    M = load_models(lang)[model]
    tokens = tokenize(lang, context)
    ids = M.encode(tokens)
    p = M.dist(ids)
    # Stable sort so equal probabilities keep vocabulary order: the same query, the same list.
    order = np.argsort(-p, kind="stable")[:top]
    return {
        "lang": lang,
        "model": model,
        "context": tokens,
        "unknown": [t for t, i in zip(tokens, ids) if i < 0],
        "vocab_size": M.V,
        "probs": [[M.vocab[i], float(p[i])] for i in order],
    }


@bp.get("/dist")
def dist():
    v = parse(request.args, P.API_DIST)
    return jsonify(dist_json(v["lang"], v["model"], v["context"], v["top"]))
