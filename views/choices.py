"""What each choice of a page parameter is called, in the reader's language (the declarations in
sim/params.py hold the values; these are only their names on the page's controls)."""
from __future__ import annotations

from flask_babel import gettext as _

from corpus.text import LANGUAGES
from sim import roofline
from views.format import num


def init_app(app) -> None:
    # A global, so macros imported without context (and rendered alone for /api/section) see it.
    app.jinja_env.globals.update(choice_labels=choice_labels)


def choice_labels() -> dict[str, dict[str, str]]:
    drafts = {"bigram": _("bigram: reads the token before"), "unigram": _("unigram: reads nothing"),
              "trigram": _("trigram: the target itself")}
    return {
        # Each GPU with its memory (as its datasheet prints it, GB of 10^9 bytes: sim.roofline).
        "gpu": {k: _("%(gpu)s · %(gb)s GB", gpu=g.label, gb=num(g.memory / 1e9, 0))
                for k, g in roofline.GPUS.items()},
        "model": {k: m.label for k, m in roofline.MODELS.items()},
        "draft": drafts,
        "tdraft": drafts,
        "rule": {"exact": _("exact: min(1, p/q), residual max(0, p − q)"),
                 "resample-target": _("wrong: on a miss, resample from p"),
                 "keep-draft": _("wrong: keep every guess")},
        "ldraft": {**drafts, "lookup": _("copy from the text so far")},
        "adapt": {"off": _("off: fixed"), "hf": _("+2 after all kept, −1 after a refusal"),
                  "cost": _("best for the recent acceptance rate (cost model)")},
        "tlang": {"auto": _("the page’s language"),
                  **{code: _(language.split_label) for code, language in LANGUAGES.items()}},
        "shape": {"chain": _("chain: one guess per level"), "kary": _("the same number of children at every node"),
                  "sequences": _("separate sequences"), "dynamic": _("dynamic tree (EAGLE-2)"),
                  "best": _("best shape for the budget (Sequoia)")},
        "sampling": {"top": _("the draft's likeliest tokens"), "iid": _("independent draws from the draft"),
                     "wor": _("draws without replacement")},
        "trule": {"naive": _("naive: draw from p, go down if a child has it"),
                  "pointmass": _("point mass: keep with chance R(x)"),
                  "specinfer": _("SpecInfer: min(1, R/q), residual after each refusal"),
                  "sequoia": _("Sequoia: as SpecInfer, refused tokens taken out of q"),
                  "stale": _("a mistake: residual not updated between siblings")},
    }


def param_labels() -> dict[str, str]:
    """Each page parameter's name as the page calls it, in the reader's language (the Embed dialog
    lists the settings a snippet carries by these). tests/test_embed_labels.py checks that every
    page parameter has one."""
    return {
        "gpu": _("GPU"),
        "model": _("Model"),
        "batch": _("Streams in the batch"),
        "ctx": _("Context per stream (tokens)"),
        "lanes": _("Lanes lit (positions per read)"),
        "eff": _("Engine efficiency (share of the ideal speed)"),
        "gamma": _("Guesses per pass, γ"),
        "draft": _("Draft model"),
        "greedy": _("Greedy (always the likeliest token)"),
        "rule": _("Rule for passing"),
        "tdraft": _("The tubes’ draft model"),
        "rounds": _("Rounds poured into the tubes"),
        "seed": _("Seed"),
        "c": _("Draft cost c"),
        "alpha": _("Acceptance rate α"),
        "depth": _("Read at depth"),
        "more": _("“Go further” folds open"),
        "text": _("The lab’s text (your own)"),
        "tlang": _("How the lab splits the text"),
        "ldraft": _("The lab’s draft"),
        "adapt": _("The lab’s adaptive γ"),
        "shape": _("Tree shape"),
        "n": _("Node budget n (guesses per pass)"),
        "k": _("Children per node k"),
        "d": _("Depth limit d (levels)"),
        "sampling": _("How the draft fills children"),
        "trule": _("The tree’s check"),
        "trounds": _("Rounds poured into the tree tubes"),
        "draw": _("The tubes’ refills"),
        "tpass": _("The tree pass’s new draws"),
        "tdraw": _("The tree tubes’ refills"),
    }
