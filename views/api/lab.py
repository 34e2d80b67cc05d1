"""JSON routes for the `lab` section, the lab: a reader's own text, runs on it, tubes, the break-even map.

  POST /api/lab/text?lang=en|zh   body: the text (≤ 2 MB, any of sim.usertext's encodings)
                                  -> {"text": sha256, tokens, ..., "encoding": what it was read as}
  GET  /api/lab/run               text, lang, draft, gamma, adapt, seed, c, tokens  (one run)
  GET  /api/lab/drafts            text, lang, gamma, seed, c, tokens  (every draft, four runs)
  GET  /api/lab/compare           text, lang, draft, gamma, adapt, seed, c, tokens  (nine runs)
  GET  /api/lab/tubes             text, lang, seed
  GET  /api/lab/breakeven         gamma, c

A ``text`` this process does not hold is counted again from the shared store (serving.textstore);
one the store does not have either answers 404 with an error naming ``text``, and the browser
then sends the text again and retries. A process already counting as many texts as it may
answers 503 with Retry-After (serving.labtexts.COUNTING).
"""
from __future__ import annotations

from flask import Blueprint, jsonify, request
from views.translation import gettext as _

from serving import labtexts, textstore
from sim import params as P
from sim import usertext
from views.sections import lab
from sim.param import ParamError
from views.params import cap_positions, parse

bp = Blueprint("lab", __name__)   # under /api (views/api/__init__.py)


def upload_allowed() -> str:
    return _("text of 50 tokens to 2 MB in UTF-8, UTF-16, GB18030 (GBK), Big5 or windows-1252")


def _unknown(_e):
    # Any lab route given a text this process no longer has (another worker, a restart, an
    # evicted entry): 404 naming `text`, and the browser sends the text again.
    body = {"error": {"param": "text", "allowed": P.TEXT.allowed(_), "status": 404,
                      "message": _("This server no longer has the text; send it again.")}}
    return jsonify(body), 404


def _busy(e: labtexts.Busy):
    # This worker is counting as many texts as it may: a moment later it (or another) will not be.
    body = {"error": {"param": "text", "allowed": upload_allowed(), "status": 503,
                      "message": _("The server is counting other texts; it will try yours again in a moment.")}}
    resp = jsonify(body)
    resp.status_code = 503
    resp.headers["Retry-After"] = str(e.retry_after)
    return resp


def _timed_out(_e: TimeoutError):
    # Nothing here runs under a timer any more (the tokenizer did: NLTK 3.10's 5 s wall clock),
    # but whatever times out, on any API route, is the server's load, not the request: 503.
    body = {"error": {"param": None, "allowed": None, "status": 503,
                      "message": _("The server is busy; try again in a moment.")}}
    resp = jsonify(body)
    resp.status_code = 503
    resp.headers["Retry-After"] = "2"
    return resp


@bp.post("/lab/text")
def lab_text():
    v = parse(request.args, P.API_LAB_TEXT)
    too_big = usertext.TextError("too_big", size=request.content_length, max=usertext.MAX_BYTES)
    if request.content_length is not None and request.content_length > usertext.MAX_BYTES:
        raise ParamError("text", upload_allowed(), lab.text_error_message(too_big))
    # Read at most one byte more than allowed, whatever the headers claim.
    raw = request.stream.read(usertext.MAX_BYTES + 1)
    try:
        dec = usertext.decode(raw)
        ut = labtexts.load_text(dec, v["lang"], store=textstore.current())
    except usertext.TextError as e:
        raise ParamError("text", upload_allowed(), lab.text_error_message(e)) from None
    resp = jsonify({**lab.text_info(ut), "encoding": dec.encoding})
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


# Errors any API route may meet (a text named in the URL, the counting gate, a timer): the API's
# blueprint answers them for all its routes.
ERRORS = {lab.UnknownText: _unknown, labtexts.Busy: _busy, TimeoutError: _timed_out}
