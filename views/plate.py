"""The plate blueprint: the page, the whole-plate embed and one-section embeds.

Views stay thin: validate the URL state against the declarations (sim/params.py), ask
views/sections/__init__.py for each shown section's answers, render. A bad query value never fails a page:
the default is used and a notice says which value was ignored and what is allowed. A section whose
numbers cannot be computed says so; the rest of the page stands.
"""
from __future__ import annotations

import os

from flask import Blueprint, abort, current_app, has_request_context, render_template, request, url_for
from views.translation import gettext as _

from corpus.text import LANGS, LANGUAGES, switch_langs
from sim import param
from sim import params as P
from views.choices import choice_labels, param_labels
from views.format import typeset
from views.params import parse_lenient
from views.sections import ANCHORS, BY_ANCHOR, SECTIONS, answers, reads
from views.teach import chosen, show_labels, show_query, show_state

bp = Blueprint("plate", __name__)


def _check_lang(lang: str) -> None:
    if lang not in LANGS:
        abort(404)


def page_state() -> tuple[dict, list]:
    """Validated URL state (defaults where absent or bad) and the list of bad values."""
    return parse_lenient(request.args, P.PAGE)


def shipped_params() -> dict:
    """What the page's scripts know of the parameters (static/js/state.js): every declaration,
    what each unit and each section reads. tests/test_state.py compares it with sim/params.py."""
    return {
        # The widgets that have a script of their own (the others are drawn by the server alone).
        "modules": _widget_modules(),
        "params": {n: {**p.to_json(), "allowed": p.allowed(_)} for n, p in P.PAGE.items()},
        "units": {u: list(P.reads(u)) for s in SECTIONS for u in s.units},
        "sections": {s.anchor: list(reads(s)) for s in SECTIONS},
    }


def _context(lang: str, embed: bool, anchor: str | None = None) -> dict:
    state, errors = page_state()
    show, show_errors = show_state()
    if anchor:
        show["sections"] = ""   # a one-section embed shows its section whatever the link says
    query = param.query(state, P.PAGE)
    # Links to this page in the other language, and from an embed to the page, keep how a
    # teacher has it shown (the sections, locked or hidden controls, paused, the projector).
    keep = show_query(show)
    shown = (BY_ANCHOR[anchor],) if anchor else chosen(show)
    flip = {k: v for k, v in keep.items() if k != "view"}
    if show["view"] != "projector":
        flip["view"] = "projector"
    return {
        "view_href": url_for(request.endpoint, **(request.view_args or {}), **query, **flip),
        "show": show,
        "show_query": keep,
        # The whole plate's snippet carries how the page is shown, not a class's code.
        "embed_query": {**query, **{k: v for k, v in keep.items() if k != "class"}},
        "lang": lang,
        "state": state,
        "state_json": state,
        "params_json": shipped_params(),
        "P": P,
        "query": query,
        "notices": errors + ([] if anchor else show_errors),
        # A notice names the setting as the page does, beside its key in the link (issue 24).
        "notice_labels": param_labels() if errors else {},
        "answers": {s.anchor: answers(s, lang, state) for s in shown},
        "sections": shown if not anchor else SECTIONS,
        "shown": shown,
        "embed": embed,
        "anchor": anchor,
        "switches": [{"lang": other, "href": url_for(request.endpoint, **{**(request.view_args or {}), "lang": other},
                                                       **query, **keep)} for other in switch_langs(lang)],
        "page_href": url_for("plate.page", lang=lang, **query, **keep),
    }


def _render(template: str, **context) -> str:
    """The page in the reader's language; Chinese text gets its spacing rules (views/format.py)."""
    html = render_template(template, **context)
    return typeset(html, context["lang"])


@bp.get("/<lang>/specdec/")
def page(lang: str):
    _check_lang(lang)
    return _render("plate/page.html", embed_dialog=embed_dialog_i18n(), **_context(lang, embed=False))


@bp.get("/embed/<lang>/specdec/")
def embed(lang: str):
    _check_lang(lang)
    return _render("plate/embed.html", **_context(lang, embed=True))


@bp.get("/embed/<lang>/specdec/<anchor>/")
def embed_section(lang: str, anchor: str):
    _check_lang(lang)
    if anchor not in ANCHORS:
        abort(404)
    sec = BY_ANCHOR[anchor]
    ctx = _context(lang, embed=True, anchor=anchor)
    # The snippet and the links of a one-section embed carry only what the section reads.
    ctx["query"] = param.query(ctx["state"], P.PAGE, reads(sec))
    ctx["page_href"] = url_for("plate.page", lang=lang, **ctx["query"], **ctx["show_query"]) + f"#{anchor}"
    return _render("plate/embed_section.html", section=sec, **ctx)


def _widget_css() -> list[str]:
    """Every stylesheet in static/css/widgets/, so a widget's CSS is linked just by existing."""
    folder = os.path.join(current_app.static_folder, "css", "widgets")
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".css"))
    except FileNotFoundError:
        return []
    return [f"css/widgets/{n}" for n in names]


def _widget_modules() -> list[str]:
    folder = os.path.join(current_app.static_folder, "js", "widgets")
    try:
        return sorted(n[:-3] for n in os.listdir(folder) if n.endswith(".js"))
    except FileNotFoundError:
        return []


def page_i18n() -> dict:
    """Strings the shared scripts (loader, embed dialog, keyboard help, errors) show to readers."""
    return {
        "embed": _("Embed"),
        "embed_title": _("Embed this in your page"),
        "embed_help": _("Paste this HTML into your course page. The optional script resizes the frame to fit its content."),
        "embed_code": _("HTML to paste"),
        "copy": _("Copy"),
        "copied": _("Copied"),
        "copy_failed": _("Select the text and copy it by hand."),
        "close": _("Close"),
        "widget_failed": _("This interactive could not be loaded; the numbers above are from the server."),
        "api_failed": _("The server could not be reached."),
        "unavailable": _("The numbers of this section could not be computed just now; the rest of the page is unaffected."),
        "invalid": _("%(name)s must be %(allowed)s."),
        "plate_title": _("Speculative decoding"),
        "section": _("Section"),
        # Committed predictions (static/js/predict.js): the reader's choice beside the answer.
        "predict_right": _("Your prediction: “%(choice)s”, which is the answer."),
        "predict_wrong": _("Your prediction: “%(choice)s”; the answer is marked above."),
        "predict_unsure": _("You were not sure; the answer is marked above."),
        "predict_guess": _("Your guess: %(guess)s, off by %(gap)s."),
        "fullscreen": _("Full screen"),
        "exit_fullscreen": _("Exit full screen"),
    }


def embed_dialog_i18n() -> dict:
    """What the Embed dialog (static/js/widgets/embed.js) says, and the names it gives the settings a
    snippet carries: each parameter's label and its choices' names, in the reader's language.
    Only the full page has the dialog, so only it ships these."""
    choices = choice_labels()
    choices["depth"] = {"story": _("Story"), "picture": _("Picture"), "frontier": _("Frontier")}
    # How a teacher has the page shown, which a whole-plate snippet carries (views/teach.py).
    choices["controls"] = show_labels()["controls"]
    choices["view"] = {"projector": _("on")}
    choices["paused"] = {"1": _("on")}
    labels = {**param_labels(), "sections": _("Sections shown"), "controls": _("The interactives’ settings"),
              "paused": _("Starts paused"), "view": _("Projector view")}
    return {
        "labels": labels,
        "choices": choices,
        "sections": {s.anchor: s.num for s in SECTIONS},
        "strings": {
            "list_sep": _(", "),
            "width": _("Width of the frame on your page"),
            "width_phone": _("%(px)s px (a phone)"),
            "width_px": _("%(px)s px"),
            "defaults": _("Start from the defaults (leave out the settings changed on this page)"),
            "carries": _("Settings this snippet carries:"),
            "carries_none": _("No settings: the frame opens with the defaults."),
            "setting": _("%(name)s: %(value)s"),
            "on": _("on"),
            "off": _("off"),
            "preview": _("Preview"),
            "measuring": _("Measuring its height at %(px)s px wide…"),
            "no_prose": _("A one-section embed shows the section's title, its depth note, its predict-first question and its interactive, not the section's prose: explain it on your own page, or link to the section on the full page."),
            "fixed_label": _("Without scripts: a frame of fixed size"),
            "fixed_help": _("For a course site that strips scripts (the frame then cannot grow): %(px)s px wide and %(h)s px high, measured here. Pick the width of your page above; in a narrower column than that the frame scrolls inside."),
            "measured": _("Height at %(px)s px wide: %(h)s px, written into the snippet. A narrower frame (a phone) needs more: the script grows it; without the script the frame scrolls."),
        },
    }


@bp.app_context_processor
def _frame_context() -> dict:
    return {"widget_css": _widget_css(), "page_i18n": page_i18n(), "languages_json": languages_json()}


def languages_json() -> dict:
    """Every language's record as the page's scripts read it (static/js/language.js; base.html
    adds which is the page's)."""
    return {code: language.for_scripts() for code, language in LANGUAGES.items()}


def fold_open(fold_id: str) -> bool:
    """Whether a "Go further" fold is rendered open (issue 22): every fold at the Frontier depth,
    and the folds the URL's `more` names. A global, as the widgets' macros that draw the folds are
    imported without the page's context."""
    if not has_request_context():
        return False
    state, _errors = page_state()
    return state["depth"] == "frontier" or fold_id in (state["more"] or "").split(",")


def in_embed() -> bool:
    """A one-section or whole-plate embed (which shows no section prose in a fold)."""
    return has_request_context() and (request.endpoint or "").startswith("plate.embed")


@bp.record_once
def _section_numbers(setup) -> None:
    setup.app.jinja_env.globals["fold_open"] = fold_open
    setup.app.jinja_env.globals["in_embed"] = in_embed
    # A global, so macros rendered without the page's context (the parts diagram) number links.
    setup.app.jinja_env.globals["section_nums"] = {s.anchor: s.num for s in SECTIONS}
    setup.app.jinja_env.globals["section_titles"] = {s.anchor: s.title for s in SECTIONS}
