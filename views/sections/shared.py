"""Helpers more than one section's answers use: contexts and their tokens, JSON-ready values,
the draft's name in a sentence, the GPUs a model's weights are split over, the pair's α."""
from __future__ import annotations

import numpy as np
from views.translation import gettext as _

from corpus import tokenize as corpus_tokenize
from corpus.text import LANGUAGES
from sim import examples, pair, roofline, theory
from sim.ngram import load_models


def tokenize(text: str, lang: str) -> list[str]:
    """Split a context exactly as the corpus was split (words and punctuation; characters)."""
    return list(corpus_tokenize(lang, text))


def default_context(lang: str) -> str:
    """The tubes' context (", when" in English; chosen from the data in Chinese)."""
    return LANGUAGES[lang].joiner.join(examples.tubes_context(lang))


def context_ids(lang: str, context: str):
    """(target model, context tokens, their ids): the language's example context if none."""
    M = load_models(lang)["trigram"]
    text = context or default_context(lang)
    tokens = tokenize(text, lang)
    return M, tokens, M.encode(tokens)


def plain(o):
    """numpy scalars -> Python (sim's traces hold numpy bools, which JSON cannot encode)."""
    if isinstance(o, dict):
        return {k: plain(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [plain(v) for v in o]
    if isinstance(o, np.generic):
        return o.item()
    return o


def draft_name(draft: str) -> str:
    """The draft's name as a sentence reads it (zh: 二元模型 …)."""
    return {"bigram": _("bigram"), "unigram": _("unigram"), "trigram": _("trigram")}[draft]


def weight_gpus(g, m) -> int:
    """The GPUs the page splits a model over: the fewest that hold its weights, as tensor
    parallelism splits them (1 when one GPU holds them)."""
    return roofline.tp_degree(g, m, 1, 0) or roofline.gpus_needed(g, m, 1, 0)


def measured_alpha(lang: str, v: dict) -> float:
    """The pair's α (sim.pair: the draft's α over a long run of the target's own text, the same for
    every γ, seed and section), to 3 decimals as the page prints it, so every section that starts
    from it rounds to the same tokens per pass, best γ and speed-up."""
    return pair.alpha(lang, v["draft"], v.get("greedy", False))


def pair_info(lang: str, v: dict, gamma: int) -> dict:
    """The pair's α and what Eq. 1 makes of it at γ: the figures every section shares."""
    a = measured_alpha(lang, v)
    return {"alpha": a, "positions": pair.pair_alpha(lang, v["draft"], bool(v.get("greedy", False)))["positions"],
            "tokens_per_pass": theory.expected_tokens(a, gamma)}
