"""/api/dist: one model's next-token distribution after a context, its most likely tokens first."""
from __future__ import annotations

import numpy as np
from flask import jsonify, request

from corpus.text import tokenize
from sim.ngram import MODEL_ORDERS, load_models
from views.api import bp
from views.params import Param, parse

MAX_TOP = 100  # tokens listed; the whole vocabulary (thousands) would only bloat the answer

DIST_SPEC = {
    "lang": Param.choice(("en", "zh"), default="en"),
    "model": Param.choice(tuple(MODEL_ORDERS), default="trigram"),
    "context": Param.text(max_len=200, default=""),
    "top": Param.int(1, MAX_TOP, default=10),
}


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
    v = parse(request.args, DIST_SPEC)
    return jsonify(dist_json(v["lang"], v["model"], v["context"], v["top"]))
