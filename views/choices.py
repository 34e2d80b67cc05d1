"""What each choice of a page parameter is called, in the reader's language (the declarations in
sim/params.py hold the values; these are only their names on the page's controls)."""
from __future__ import annotations

from views.translation import gettext as _

from corpus.text import LANGUAGES
from sim import roofline
from views.format import comma, num


def init_app(app) -> None:
    # A global, so macros imported without context (and rendered alone for /api/section) see it.
    app.jinja_env.globals.update(choice_labels=choice_labels, value_gloss=value_gloss)


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


def depth_labels() -> dict[str, str]:
    return {"story": _("Story"), "picture": _("Picture"), "frontier": _("Frontier")}


# The settings whose values a link writes as keys a reader cannot guess (depth=frontier,
# rule=keep-draft): where the settings are listed for a reader (the notice for a bad link, the
# teacher's page), each such value is given with its name on the page (issue 24, E3).
GLOSSED = ("depth", "draft", "tdraft", "ldraft", "rule", "adapt", "tlang", "shape", "sampling", "trule")


def value_gloss(name: str) -> str:
    """"Of these, story is “Story”, …" for a setting's values whose name on the page does not
    already contain them (so English, where most do, says nothing it need not); "" if none."""
    if name not in GLOSSED:
        return ""
    labels = {**choice_labels(), "depth": depth_labels()}.get(name, {})
    pairs = [_("%(value)s is “%(label)s”", value=v, label=lab) for v, lab in labels.items()
             if v.lower() not in lab.lower()]
    return _("Of these, %(list)s.", list=comma().join(pairs)) if pairs else ""
