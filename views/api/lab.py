"""JSON routes for section 14, the lab: a reader's own text, runs on it, tubes, the break-even map.

  POST /api/lab/text?lang=en|zh   body: the text (UTF-8, ≤ 2 MB)  -> {"text": sha256, tokens, ...}
  GET  /api/lab/run               text, lang, draft, gamma, adapt, seed, c, tokens  (one run)
  GET  /api/lab/drafts            text, lang, gamma, seed, c, tokens  (every draft, four runs)
  GET  /api/lab/compare           text, lang, draft, gamma, adapt, seed, c, tokens  (nine runs)
  GET  /api/lab/tubes             text, lang, seed
  GET  /api/lab/breakeven         gamma, c

A ``text`` this process does not know (another worker, a restart, an evicted entry) answers 404
with an error naming ``text``; the browser then sends the text again and retries.
"""
from __future__ import annotations

from flask import jsonify, request
from flask_babel import gettext as _

from sim import params as P
from sim import usertext
from views import sections_lab as lab
from views.api import bp
from views.params import ParamError, cap_positions, parse


@bp.errorhandler(lab.UnknownText)
def _unknown(_e):
    # Any lab route given a text this process no longer has (another worker, a restart, an
    # evicted entry): 404 naming `text`, and the browser sends the text again.
    body = {"error": {"param": "text", "allowed": P.TEXT.allowed(_), "status": 404,
                      "message": _("This server no longer has the text; send it again.")}}
    return jsonify(body), 404


@bp.post("/lab/text")
def lab_text():
    v = parse(request.args, P.API_LAB_TEXT)
    too_big = usertext.TextError("too_big", size=request.content_length, max=usertext.MAX_BYTES)
    if request.content_length is not None and request.content_length > usertext.MAX_BYTES:
        raise ParamError("text", "UTF-8 text of at most 2 MB", lab.text_error_message(too_big))
    # Read at most one byte more than allowed, whatever the headers claim.
    raw = request.stream.read(usertext.MAX_BYTES + 1)
    try:
        ut = usertext.load(raw, v["lang"])
    except usertext.TextError as e:
        raise ParamError("text", "UTF-8 text of 50 tokens to 2 MB", lab.text_error_message(e)) from None
    resp = jsonify(lab.text_info(ut))
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/lab/run")
def lab_run():
    v = parse(request.args, P.API_LAB_RUN)
    return jsonify(lab.lab_json(v["lang"], v["text"], v["draft"], v["gamma"], v["adapt"],
                                v["seed"], v["c"], v["tokens"]))


@bp.get("/lab/drafts")
def lab_drafts():
    v = parse(request.args, P.API_LAB_DRAFTS)
    cap_positions(v, lab.DRAFTS_MAX_POSITIONS)   # per run; the table makes four
    return jsonify(lab.drafts_json(v["lang"], v["text"], v["gamma"], v["seed"], v["c"], v["tokens"]))


@bp.get("/lab/compare")
def lab_compare():
    v = parse(request.args, P.API_LAB_COMPARE)
    return jsonify(lab.compare_json(v["lang"], v["text"], v["draft"], v["gamma"], v["adapt"],
                                    v["seed"], v["c"], v["tokens"]))


@bp.get("/lab/tubes")
def lab_tubes():
    v = parse(request.args, P.API_LAB_TUBES)
    return jsonify(lab.tubes_json(v["lang"], v["text"], v["seed"]))


@bp.get("/lab/breakeven")
def lab_breakeven():
    v = parse(request.args, P.API_LAB_MAP)
    return jsonify(lab.breakeven_json(v["gamma"], v["c"]))
