"""A class's predictions, live (the teacher's page): open a class, students answer the
predict-first questions with its code in their link, the teacher's screen shows how many chose
each option before revealing the answer. The counts are kept by serving/classes.py, where the
readers' texts are (every worker and machine sees them); nothing about a student but the answer
and a random id of the tab. No cookies: the class's code is in the students' link, the teacher's
key in the fragment of the teacher's (never sent to a server in a Referer).
"""
from __future__ import annotations

from flask import Blueprint, abort, jsonify, render_template, request, url_for
from views.translation import gettext as _

from corpus.text import switch_langs
from serving import classes as C
from sim import param
from sim import params as P
from sim.param import ParamError
from views.format import typeset
from views.params import parse, parse_lenient
from views.sections import SECTIONS
from views.teach import chosen, qr_svg, show_state

bp = Blueprint("classroom", __name__)

STATUS = {"closed": 410, "answered": 409, "full": 503, "busy": 429, "key": 403, "bad": 400, "down": 503,
          "code": 400}


def message(kind: str, code: str = "") -> str:
    return {
        "closed": _("The class %(code)s is not open: it was closed, or it opened more than 24 hours ago. Ask your teacher for the class’s new code.", code=code),
        "answered": _("This tab has already answered this question for the class."),
        "full": _("This class (or this server) holds as many answers as it can; the answer was not counted."),
        "busy": _("Too many answers at once; this one is sent again in a moment."),
        "key": _("This is not the teacher’s key for the class %(code)s.", code=code),
        "bad": _("An answer is a question’s name, an option from 1 to 9 and the tab’s id."),
        "down": _("The class’s answers cannot be reached just now; try again in a minute."),
        "code": _("“%(code)s” is not a class code: a code is 6 capital letters and digits, as the teacher’s screen shows it.", code=code),
    }[kind]


def allowed(part: str) -> str:
    return {"q": _("a predict-first question’s name, such as tape or tape-story"),
            "option": _("an option from 1 to 9"),
            "tab": _("the tab’s id: 16 to 32 hexadecimal digits"),
            "code": _("6 of the letters and digits %(alphabet)s", alphabet=C.CODE_ALPHABET)}[part]


def refuse(kind: str, code: str = "", part: str | None = None):
    resp = jsonify({"error": {"kind": kind, "param": part, "allowed": allowed(part) if part else None,
                              "message": message(kind, code), "status": STATUS[kind]}})
    resp.status_code = STATUS[kind]
    if kind == "busy":
        resp.headers["Retry-After"] = "1"
    return resp


@bp.before_request
def _known_query():
    # Like every route of the API: a parameter it does not take is refused by name.
    if request.path.startswith("/api/"):
        parse(request.args, P.API_CLASS)
        # A code that cannot be one is the request's fault (400, named), not a class that
        # closed. (The teacher's screen for such a code is a page: its 404.)
        code = (request.view_args or {}).get("code")
        if code is not None and not C.CODE.fullmatch(code):
            return refuse("code", param.clip(code, 8), part="code")


@bp.errorhandler(ParamError)
def _param_error(e: ParamError):
    return jsonify(e.to_json()), 400


@bp.after_request
def _never_kept(resp):
    # Counts change every second and a key must not sit in a shared cache.
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.errorhandler(C.ClassError)
def _class_error(e: C.ClassError):
    code = (request.view_args or {}).get("code", "")
    return refuse(e.kind, param.clip(code, 8))


@bp.post("/api/class")
def open_class():
    classes = C.current()
    if not classes.rate_ok("open"):
        return refuse("busy")
    code, key = classes.open()
    return jsonify({"code": code, "key": key, "lifetime_s": C.LIFETIME_S}), 201


@bp.get("/api/class/<code>")
def class_status(code: str):
    """Whether a code is open (a student's page asks once, to say so at once if not)."""
    if not C.current().is_open(code):
        return refuse("closed", param.clip(code, 8))
    return jsonify({"code": code, "open": True})


@bp.post("/api/class/<code>/answer")
def answer(code: str):
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        body = {}
    bad = C.bad_part(body.get("q"), body.get("option"), body.get("tab"))
    if bad:
        return refuse("bad", part=bad)
    parts = C.check_answer(body.get("q"), body.get("option"), body.get("tab"))
    classes = C.current()
    if not classes.rate_ok(code):
        return refuse("busy", param.clip(code, 8))
    classes.answer(code, *parts)
    return jsonify({"ok": True})


@bp.get("/api/class/<code>/counts")
def counts(code: str):
    return jsonify(C.current().counts(code, request.headers.get("X-Class-Key", "")))


@bp.post("/api/class/<code>/close")
def close(code: str):
    C.current().close(code, request.headers.get("X-Class-Key", ""))
    return jsonify({"ok": True, "closed": code})


@bp.get("/<lang>/specdec/class/<code>/")
def board(lang: str, code: str):
    """The teacher's screen: per question of the lesson's sections, how many chose each option."""
    if lang not in P.LANGS or not C.CODE.fullmatch(code):
        abort(404)
    show, _notices = show_state()
    state, _bad = parse_lenient(request.args, P.PAGE)
    show["class"] = code
    query = {**param.query(state, P.PAGE), **param.query(show, P.SHOW)}
    link = url_for("plate.page", lang=lang, _external=True, **query)
    picked = chosen(show)
    html = render_template(
        "plate/class.html", lang=lang, code=code, link=link, picked=picked,
        depth=state["depth"], qr=qr_svg(link, _("QR code of the class’s link")), state=state,
        state_json=state, params_json={"modules": ["classboard"], "params": {}, "units": {}, "sections": {}},
        i18n={"closed_done": _("The class is closed; its answers are gone."),
              "answers": _("Answers: %(n)s"), "reveal": _("Reveal the answer"),
              "hide": _("Hide the answer"), "closed": message("closed", code), "key": message("key", code)},
        query={}, embed=False, switches=[{"lang": other, "href": url_for("classroom.board", lang=other, code=code, **request.args)}
                                       for other in switch_langs(lang)],
        all_sections=SECTIONS)
    return typeset(html, lang)
