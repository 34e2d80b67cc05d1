"""The teacher's page, /<lang>/specdec/teach/: a lesson set up in a link.

A teacher picks the sections, the depth, the language, a starting state for each section (by
driving its controls in a live preview: the one-section embed itself), whether the interactives
start paused and whether their settings are shown, locked or hidden; the page gives the link, the
embed snippets and a QR code of the link (segno, rendered here as SVG). How a page is shown is
declared in sim/params.py (SHOW) like every other parameter; `show_state` reads it for the plate
and its embeds too. The teacher notes are in views/teacher_notes.py.
"""
from __future__ import annotations

import segno
from flask import Blueprint, Response, abort, render_template, request, url_for
from views.translation import gettext as _

from corpus.text import switch_langs
from sim import param
from sim import params as P
from views.choices import param_labels
from views.format import typeset
from views.params import parse_lenient
from views.sections import ANCHORS, BY_ANCHOR, SECTIONS, reads
from views.teacher_notes import NOTES

bp = Blueprint("teach", __name__)

LINK_MAX = 2000          # characters of a link the QR endpoint draws (a QR code holds ~2,300)


def show_state(args=None) -> tuple[dict, list]:
    """How the page is shown (SHOW), with the bad values reported as the page's notices. An
    anchor not in the registry makes `sections` fall back to every section."""
    show, errors = parse_lenient(request.args if args is None else args, P.SHOW)
    if show["sections"]:
        names = show["sections"].split(",")
        unknown = [n for n in names if n not in ANCHORS]
        if unknown:
            errors.append(P.SECTIONS_SHOWN.error(
                _, param.N_("%(name)s names a section there is not (“%(value)s”); the sections are %(allowed)s."),
                value=param.clip(unknown[0]), allowed=param.join(ANCHORS, _)))
            show["sections"] = ""
        else:
            # In the plate's order, each once.
            show["sections"] = ",".join(a for a in ANCHORS if a in names)
    return show, errors


def chosen(show: dict) -> tuple:
    """The sections a page shows: those named, or every one."""
    if not show["sections"]:
        return SECTIONS
    names = set(show["sections"].split(","))
    return tuple(s for s in SECTIONS if s.anchor in names)


def show_query(show: dict, names=None) -> dict:
    return param.query(show, P.SHOW, names)


def qr_svg(link: str, title: str) -> str:
    """The link as a QR code, inline SVG: dark on white, a quiet zone of four modules (the
    standard's), error correction M (a projector's glare, a phone held at an angle)."""
    qr = segno.make(link, error="m")
    return qr.svg_inline(scale=1, border=4, dark="#000", light="#fff", title=title,
                         svgclass="qr", omitsize=True)


def show_labels() -> dict:
    """The names of the choices of how a page is shown, in the reader's language."""
    return {
        "controls": {"shown": _("shown"), "locked": _("locked: shown, not movable"), "hidden": _("hidden")},
        "depth": {"story": _("Story"), "picture": _("Picture"), "frontier": _("Frontier")},
    }


def teach_i18n() -> dict:
    return {
        "qr_title": _("QR code of the lesson’s link"),
        "copied": _("Copied"),
        "copy_failed": _("Select the text and copy it by hand."),
        "none_chosen": _("Choose at least one section."),
        "carries": _("This section starts with: %(list)s"),
        "carries_none": _("This section starts with the defaults."),
        "class_opened": _("Class %(code)s is open: its screen has opened in a new tab (keep that tab: it holds the teacher’s key)."),
        "class_failed": _("The class could not be opened just now."),
        "shared": _("%(name)s is read by several of the chosen sections; the page link takes the value set last (%(value)s), each embed its own."),
    }


@bp.get("/<lang>/specdec/teach/")
def page(lang: str):
    if lang not in P.LANGS:
        abort(404)
    args = request.args.to_dict(flat=True)
    if request.args.getlist("pick"):     # the form sent without scripts: one box per section
        args["sections"] = ",".join(request.args.getlist("pick"))
        args.pop("pick")
    show, notices = show_state(args)
    state, bad = parse_lenient(args, P.PAGE)
    notices += bad
    picked = chosen(show) if show["sections"] else SECTIONS[:1]
    show["sections"] = ",".join(s.anchor for s in picked)
    lesson, bad_for = parse_lenient(args, {"for": P.LESSON_LANG})
    notices += bad_for
    lesson_lang = lesson["for"] or lang
    query = {**param.query(state, P.PAGE), **show_query(show)}
    link = url_for("plate.page", lang=lesson_lang, _external=True, **query)
    labels = param_labels()
    sections = []
    for s in SECTIONS:
        names = [n for n in reads(s) if n != "depth"]
        sections.append({
            "sec": s, "note": NOTES[s.anchor],
            "reads": [{"name": n, "label": labels.get(n, n), "allowed": P.PAGE[n].allowed(_)} for n in names],
            "reads_json": list(reads(s)),
            "embed": url_for("plate.embed_section", lang=lesson_lang, anchor=s.anchor, _external=True,
                             **param.query(state, P.PAGE, reads(s)), **show_query(show, ("controls", "paused", "view"))),
        })
    html = render_template(
        "plate/teach.html", lang=lang, state=state, state_json=state,
        params_json={"params": {n: {**p.to_json(), "allowed": p.allowed(_)} for n, p in P.PAGE.items()},
                     "units": {}, "sections": {s.anchor: list(reads(s)) for s in SECTIONS}, "modules": ["teach"]},
        P=P, show=show, notices=notices, sections=sections, picked={s.anchor for s in picked},
        lesson_lang=lesson_lang, link=link, qr=qr_svg(link, _("QR code of the lesson’s link")),
        labels=show_labels(), teach_i18n=teach_i18n(), depth_allowed=P.DEPTH.allowed(_),
        show_names=_("; ").join(_("%(label)s (%(allowed)s)", label=n, allowed=p.allowed(_)) for n, p in P.SHOW.items()),
        switches=[{"lang": other, "href": url_for("teach.page", lang=other, **args)} for other in switch_langs(lang)],
        page_href=url_for("plate.page", lang=lang), query={}, embed=False)
    return typeset(html, lang)


@bp.get("/<lang>/specdec/teach/qr.svg")
def qr(lang: str):
    """The QR code of a link on this site (only this site's: the path and query are taken, the
    address is the server's own)."""
    if lang not in P.LANGS:
        abort(404)
    path = request.args.get("link", "")
    if not path.startswith("/") or path.startswith("//") or len(path) > LINK_MAX:
        abort(400)
    link = request.host_url.rstrip("/") + path
    svg = qr_svg(link, _("QR code of the lesson’s link"))
    svg = svg.replace("<svg ", '<svg xmlns="http://www.w3.org/2000/svg" ', 1)
    resp = Response(svg, mimetype="image/svg+xml")
    resp.headers["Cache-Control"] = "public, max-age=3600"
    return resp
