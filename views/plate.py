"""The plate blueprint: the page, the whole-plate embed and one-section embeds.

Views stay thin: validate the URL state, ask the two sections modules for their numbers, render.
A bad query value never fails a page: the default is used and a notice says which value was
ignored and what is allowed.
"""
from __future__ import annotations

from flask import Blueprint, abort, current_app, render_template, request, url_for
from flask_babel import lazy_gettext as _l

from sim.roofline import GPUS, MODELS
from views import sections_lab, sections_roofline, sections_speculative
from views.params import Param, parse_lenient

bp = Blueprint("plate", __name__)

LANGS = ("en", "zh")

# (number, anchor, title). The anchors are the public ids of the sections: embeds and links use
# them, so they never change. Titles appear in the table of contents and in iframe titles.
SECTIONS: tuple[tuple[int, str, object], ...] = (
    (1, "onebyone", _l("One token at a time")),
    (2, "batch", _l("One read, many streams")),
    (3, "draft", _l("Let a small model guess")),
    (4, "tape", _l("Until the first wrong guess")),
    (5, "rule", _l("The rule for passing")),
    (6, "exact", _l("The same distribution")),
    (7, "alpha", _l("The acceptance rate α")),
    (8, "speedup", _l("How much faster")),
    (9, "idle", _l("It spends the idle arithmetic")),
    (10, "selfdraft", _l("Without a second model")),
    (11, "reader", _l("Inside the reader")),
    (12, "parts", _l("Taken apart")),
    (13, "bench", _l("The bench")),
    (14, "lab", _l("Beyond the plate")),
)
ANCHORS = tuple(a for _, a, _t in SECTIONS)

# The URL state shared by every section (see the team's front-end contract).
STATE_SPEC = {
    "gpu": Param.choice(tuple(GPUS), default="h100-sxm"),
    "model": Param.choice(tuple(MODELS), default="llama-3.1-8b"),
    "batch": Param.int(1, 1024, default=64),
    "ctx": Param.int(0, 131072, default=4096),
    "lanes": Param.int(1, 512, default=9),
    "gamma": Param.int(1, 8, default=4),
    "draft": Param.choice(("bigram", "unigram", "trigram"), default="bigram"),
    "greedy": Param.bool(default=False),
    "rule": Param.choice(("exact", "resample-target", "keep-draft"), default="exact"),
    "seed": Param.int(0, 2147483647, default=1),
    "c": Param.float(0.0, 1.0, default=0.1),
    # Acceptance rate for section 9; absent from the URL, the α measured in section 7 is used.
    "alpha": Param.float(0.0, 1.0, default=0.6),
    # How deep each section explains (issue 7): a story, the picture with formulas, or the
    # picture plus a note on current research. templates/plate/depths/ holds the texts.
    "depth": Param.choice(("story", "picture", "frontier"), default="picture"),
    # Section 14 (the lab): its own controls, declared in views/sections_lab.py.
    **sections_lab.STATE_SPEC,
}


def _check_lang(lang: str) -> None:
    if lang not in LANGS:
        abort(404)


def page_state() -> tuple[dict, list]:
    """Validated URL state (defaults where absent or bad) and the list of bad values."""
    return parse_lenient(request.args, STATE_SPEC)


# What a one-section embed needs computed: the rest of the plate's numbers are not drawn there.
# Section 9 (idle) and 13 (bench) take α from the speculative run, hence both modules.
_ALL = (sections_speculative, sections_roofline, sections_lab)
NEEDS = {
    **{a: (sections_roofline,) for a in ("onebyone", "batch", "selfdraft", "reader")},
    **{a: (sections_speculative,) for a in ("draft", "tape", "rule", "exact", "alpha", "speedup")},
    "idle": (sections_speculative, sections_roofline),
    "bench": (sections_speculative, sections_roofline),
    "parts": (),
    "lab": (sections_lab,),
}


def section_data(lang: str, state: dict, explicit_alpha: bool = True, modules=_ALL) -> dict:
    """The numbers for server-side rendering, merged from the sections modules asked for.

    A failure in one module is logged and leaves its numbers out (the templates' filters print
    a dash for a missing number) rather than taking the whole page down.
    """
    d: dict = {}
    for module in modules:
        if module is sections_roofline and not explicit_alpha and "spec" in d:
            # Section 9 starts from the α the bench measures (section 7), to 3 decimals as
            # sections 7 and 8 print it, so all three give the same speed-up (0.65 gave 1.80,
            # section 8's 0.646 gives 1.79).
            state["alpha"] = round(d["spec"]["alpha"], 3)
        try:
            d.update(module.data(lang, dict(state)) or {})
        except Exception:  # noqa: BLE001 - deliberately broad, see docstring
            current_app.logger.exception("%s.data failed", module.__name__)
    return d


def state_query(state: dict) -> dict:
    """Only the values that differ from the defaults, in the form the URL uses (0/1 for bools)."""
    out = {}
    for name, param in STATE_SPEC.items():
        v = state[name]
        if v != param.default:
            out[name] = int(v) if isinstance(v, bool) else v
    return out


def _context(lang: str, embed: bool, anchor: str | None = None) -> dict:
    state, errors = page_state()
    query = state_query(state)  # before α is filled in from the run, so links don't pin it
    d = section_data(lang, state, "alpha" in request.args, NEEDS[anchor] if anchor else _ALL)
    other = "zh" if lang == "en" else "en"
    return {
        "lang": lang,
        "other_lang": other,
        "state": state,
        "state_json": {k: (int(v) if isinstance(v, bool) else v) for k, v in state.items()},
        "query": query,
        "notices": errors,
        "d": d,
        "sections": SECTIONS,
        "embed": embed,
        "anchor": anchor,
        "switch_href": url_for(request.endpoint, **{**(request.view_args or {}), "lang": other},
                               **query),
        "page_href": url_for("plate.page", lang=lang, **query),
    }


@bp.get("/<lang>/specdec/")
def page(lang: str):
    _check_lang(lang)
    return render_template("plate/page.html", **_context(lang, embed=False))


@bp.get("/embed/<lang>/specdec/")
def embed(lang: str):
    _check_lang(lang)
    return render_template("plate/embed.html", **_context(lang, embed=True))


@bp.get("/embed/<lang>/specdec/<anchor>/")
def embed_section(lang: str, anchor: str):
    _check_lang(lang)
    if anchor not in ANCHORS:
        abort(404)
    num, _a, title = SECTIONS[ANCHORS.index(anchor)]
    return render_template("plate/embed_section.html", num=num, title=title,
                           **_context(lang, embed=True, anchor=anchor))


def _widget_css() -> list[str]:
    """Every stylesheet in static/css/widgets/, so a widget's CSS is linked just by existing."""
    folder = current_app.static_folder + "/css/widgets"
    import os
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".css"))
    except FileNotFoundError:
        return []
    return [f"css/widgets/{n}" for n in names]


def page_i18n() -> dict:
    """Strings the shared scripts (loader, embed dialog, keyboard help) show to readers."""
    from flask_babel import gettext as _
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
        "plate_title": _("Speculative decoding"),
        "section": _("Section"),
    }


@bp.app_context_processor
def _frame_context() -> dict:
    return {"widget_css": _widget_css(), "page_i18n": page_i18n()}
