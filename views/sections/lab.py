"""Server-side numbers for the `lab` section, "Beyond the plate" (the lab), shared with views/api/lab.py.

The lab runs the bench on a source: one of the books (the default) or the reader's own text (known
by its sha256; this process's cache holds its models, the shared store its text, see sim.usertext
and serving.textstore). On it: a run with the chosen
draft (a model, or "lookup": copy from the text so far), optionally with adaptive γ compared with
every fixed γ, all drafts side by side, the tubes from a context where draft and target disagree,
and the break-even map.

What is kept, per process, is bounded in bytes (``ANSWER_BYTES``, ``RUN_BYTES``) and holds no
reference to a text's models: answers and runs are kept pickled (runs without their
distributions), so a text the text cache lets go is freed at once, whatever was made from it.
"""
from __future__ import annotations

import dataclasses
import pickle
from functools import lru_cache

import numpy as np
from views.translation import gettext as _

from serving import labtexts, textstore
from serving.bytecache import ByteLRU
from sim import examples, pair, theory, usertext
from sim.adaptive import compare_runs, generate_adaptive, modelled_speedup
from sim.lookup import generate_lookup, lookup_stats
from sim.ngram import load_models
from sim.params import PAGE_GAMMA_MAX as GAMMA_MAX, LAB_DRAFTS as DRAFTS
from sim.params import LAB_COMPARE_TOKENS as COMPARE_TOKENS, LAB_RUN_TOKENS as RUN_TOKENS
from sim.speculative import generate, per_position_acceptance
from sim.tubes import run_tubes
from views import caching

# Caps on the work of one request (views/api/lab.py), in target positions, tokens × (γ+1), per
# run: the drafts' table makes four runs, the comparison one per fixed γ and the policy's. The
# drafts' cap lets the table's own tokens through at every γ of the page, as the page runs it.
DRAFTS_MAX_POSITIONS = RUN_TOKENS * (GAMMA_MAX + 1)   # 100 tokens at γ = 16: 1,700
HISTORY_TOKENS = 400   # how much of the reader's text the lookup may copy from (the run's prompt)
TUBES_TRIALS = 200     # first tokens drawn per tube
TUBES_SHOWN = 8        # tokens with their own bar
LOOKUP_C = 0.0         # a lookup in the text costs next to nothing next to a model run
# The break-even map's grid: γ = 1..16 across, c = 0, 0.05, …, 1 up.
MAP_GAMMAS = tuple(range(1, 17))
MAP_CS = tuple(round(i * 0.05, 2) for i in range(21))
# Per process. An answer is at most ~15 kB pickled (a 200-token tape of tokens cut to 32
# characters), a run without its distributions ~30 kB: a class's worth of states fits.
ANSWER_BYTES = 8 * 1024 * 1024
RUN_BYTES = 8 * 1024 * 1024

class UnknownText(LookupError):
    """Neither this process nor the shared store has the hash: the browser must send the text."""


def text_error_message(e: usertext.TextError) -> str:
    """A sentence for the reader saying what is wrong with the text."""
    d = e.detail
    if e.code == "empty":
        return _("The text is empty.")
    if e.code == "too_big":
        return _("The text is %(size)s bytes; at most %(max)s bytes (2 MB) are allowed.",
                 size=d.get("size"), max=d.get("max"))
    if e.code == "binary":
        return _("This looks like a binary file, not a text. Save it as plain UTF-8 text and try again.")
    if e.code == "undecodable":
        return _("The file could not be read as text in any encoding we know (as %(encoding)s, byte %(pos)s "
                 "is wrong). Save it as UTF-8 text and try again.", encoding=d.get("encoding"), pos=d.get("position"))
    if e.code == "too_short":
        return _("The text has only %(n)s tokens; at least %(min)s are needed to count a model.",
                 n=d.get("tokens"), min=d.get("min"))
    if e.code == "one_token":
        return _("The text repeats a single token; a model needs at least two different ones.")
    return _("The text cannot be used.")


# ---- the source: a book or the reader's text --------------------------------------------------

class Source:
    """Models, the prompt the run continues, and labels, for a book or a reader's text."""

    def __init__(self, lang: str, ut: usertext.UserText | None = None):
        self.lang = lang
        self.ut = ut
        if ut is None:
            self.models = load_models(lang)
            T = self.models["trigram"]
            self.history = T.encode(list(examples.tubes_context(lang)))
            self.tubes_ctx = tuple(self.history)
            self.key = f"book:{lang}"
        else:
            self.models = ut.models
            self.history = [int(i) for i in ut.ids[-HISTORY_TOKENS:]]
            self.tubes_ctx = usertext.disagreeing_context(ut)
            self.key = f"text:{ut.sha256}:{lang}"

    @property
    def vocab(self):
        return self.models["trigram"].vocab

    # One source per key (a book, or a text's hash and language): equal keys, equal models and
    # prompt, so runs can be kept by source (``_run``).
    def __eq__(self, other):
        return isinstance(other, Source) and other.key == self.key

    def __hash__(self):
        return hash(self.key)


def source(lang: str, text: str = "") -> Source:
    """The book of ``lang``, or the text of the hash ``text``: counted in this process, or counted
    again from the shared store's copy (UnknownText if neither has it; labtexts.Busy if this
    process is counting too much already)."""
    if not text:
        return Source(lang)
    ut = labtexts.lookup(text, lang, store=textstore.current())
    if ut is None:
        raise UnknownText(text)
    caching.private()   # everything made from here on is made from the reader's text
    return Source(lang, ut)


def text_info(ut: usertext.UserText) -> dict:
    return {"text": ut.sha256, "lang": ut.lang, "tokens": ut.n_tokens, "vocab_size": len(ut.vocab),
            "bytes": ut.n_bytes, "count_ms": round(ut.count_ms, 1), "cut_tokens": ut.cut_tokens}


# ---- runs -------------------------------------------------------------------------------------

def _run(src: Source, draft: str, gamma: int, adapt: str, seed: int, c: float, tokens: int):
    """One run on the source. Only the cost-model policy reads c, so the key leaves it out
    otherwise: the lab's run, its drafts' table and its comparison share the runs they have in
    common (the chosen draft at γ is in the table too), and a new c makes no new run."""
    adapt = "off" if draft == "lookup" else adapt   # the lookup has no γ to adapt
    c_key = c if adapt == "cost" else None
    key = (src.key, draft, gamma, adapt, seed, c_key, tokens)
    kept = _RUNS.get(key)
    if kept is not None:
        return pickle.loads(kept)
    run = _lean(_make_run(src, draft, gamma, adapt, seed, c_key, tokens))
    _RUNS.set(key, pickle.dumps(run, protocol=pickle.HIGHEST_PROTOCOL))
    return run


def _make_run(src: Source, draft: str, gamma: int, adapt: str, seed: int, c: float | None, tokens: int):
    T = src.models["trigram"]
    rng = np.random.default_rng(seed)
    if draft == "lookup":
        return generate_lookup(T, src.history, tokens, gamma, rng)
    if adapt != "off":
        return generate_adaptive(T, src.models[draft], src.history, tokens, gamma, rng, policy=adapt,
                                 c=c or 0.0, gamma_max=GAMMA_MAX)
    return generate(T, src.models[draft], src.history[-8:], tokens, gamma, rng)


def _lean(run):
    """The run without its distributions and models (what the lab reads of a run: tokens, each
    pass's γ, guesses kept, written tokens, overlaps), so keeping it keeps no text's models alive
    and costs a few tens of kB."""
    steps = [dataclasses.replace(
        s, target=None, q_dists=[], residual=None,
        proposals=[dataclasses.replace(p, q_dist=None, p_dist=None) for p in s.proposals])
        for s in run.steps]
    return dataclasses.replace(run, steps=steps)


def _kept_answer(name: str, make, *key) -> dict:
    """An answer from the byte-bounded cache (pickled: its exact size is known, and each caller
    gets its own copy), else made and kept."""
    k = (name, *key)
    kept = _ANSWERS.get(k)
    if kept is not None:
        return pickle.loads(kept)
    out = make()
    _ANSWERS.set(k, pickle.dumps(out, protocol=pickle.HIGHEST_PROTOCOL))
    return out


_RUNS = ByteLRU(RUN_BYTES)
_ANSWERS = ByteLRU(ANSWER_BYTES)


def _summary(run, c: float) -> dict:
    s = run.stats()
    return {"alpha": s["alpha"], "acceptance_rate": s["acceptance_rate"],
            "tokens_per_pass": s["tokens_per_pass"], "passes": s["passes"],
            "speedup": modelled_speedup(run, c),
            # Kept at guess 1, 2, … of the passes that guessed (vLLM's per-position acceptance).
            "per_position": per_position_acceptance(run)}


def _tape(run, vocab) -> list[dict]:
    return [{"token": vocab[t], "kind": kind, "pass": i, "gamma": step.gamma}
            for i, step in enumerate(run.steps) for t, kind in step.written]


def _lab_answer(src: Source, lang: str, text: str, draft: str, gamma: int, adapt: str, seed: int,
                c: float, tokens: int) -> dict:
    vocab = src.vocab
    c_draft = LOOKUP_C if draft == "lookup" else c
    run = _run(src, draft, gamma, adapt, seed, c, tokens)
    out = {
        "lang": lang, "text": text or None, "draft": draft, "gamma": gamma, "adapt": adapt,
        "seed": seed, "c": c, "c_draft": c_draft,
        "source": text_info(src.ut) if src.ut else {"book": lang},
        "context": [vocab[i] for i in src.history[-8:]],
        "tape": _tape(run, vocab),
        "gammas": [s.gamma for s in run.steps],
        **_summary(run, c_draft),
    }
    if draft == "lookup":
        out["lookup"] = lookup_stats(run)
    return out


def lab_json(lang: str, text: str, draft: str, gamma: int, adapt: str, seed: int, c: float,
             tokens: int = RUN_TOKENS) -> dict:
    """The lab's run with the chosen draft: its tape and its numbers (one run)."""
    src = source(lang, text)   # raises UnknownText before anything is cached
    return _kept_answer("run", lambda: _lab_answer(src, lang, text, draft, gamma, adapt, seed, c, tokens),
                        src.key, draft, gamma, adapt, seed, c, tokens)


def _drafts_answer(src: Source, gamma: int, seed: int, c: float, tokens: int) -> dict:
    return {"drafts": {d: _summary(_run(src, d, gamma, "off", seed, c, tokens), LOOKUP_C if d == "lookup" else c)
                       for d in DRAFTS}}


def drafts_json(lang: str, text: str, gamma: int, seed: int, c: float, tokens: int = RUN_TOKENS) -> dict:
    """Every draft on the same text and seed, γ fixed: where the lookup shines and where not
    (four runs)."""
    src = source(lang, text)
    return _kept_answer("drafts", lambda: _drafts_answer(src, gamma, seed, c, tokens),
                        src.key, gamma, seed, c, tokens)


def _compare_answer(src: Source, draft: str, gamma: int, adapt: str, seed: int, c: float,
                    tokens: int) -> dict:
    fixed = {g: _run(src, draft, g, "off", seed, c, tokens) for g in range(1, GAMMA_MAX + 1)}
    cmp = compare_runs(fixed, {adapt: _run(src, draft, gamma, adapt, seed, c, tokens)}, gamma, c)
    return {"best_fixed_gamma": cmp["best_fixed_gamma"], "best_fixed": cmp["best_fixed"],
            "start_fixed": cmp["start_fixed"],
            "fixed": {g: s["speedup"] for g, s in cmp["fixed"].items()},
            "adaptive": {k: v for k, v in cmp[adapt].items() if k != "gammas"}}


def compare_json(lang: str, text: str, draft: str, gamma: int, adapt: str, seed: int, c: float,
                 tokens: int = COMPARE_TOKENS) -> dict:
    """The adaptive policy ``adapt`` from γ against every fixed γ in 1..8, same seed (nine runs).
    Only for a model draft and a policy other than "off"."""
    if draft == "lookup" or adapt == "off":
        raise ValueError("the comparison needs a model draft and an adaptive policy")
    src = source(lang, text)
    cmp = _kept_answer("compare", lambda: _compare_answer(src, draft, gamma, adapt, seed, c, tokens),
                       src.key, draft, gamma, adapt, seed, c, tokens)
    return {**cmp, "tokens": tokens}


# ---- tubes and the break-even map -------------------------------------------------------------

def _tubes_answer(src: Source, seed: int, trials: int) -> dict:
    T, D = src.models["trigram"], src.models["bigram"]
    ctx = list(src.tubes_ctx)
    res = run_tubes(T, D, ctx, 1, trials, np.random.default_rng(seed), top=TUBES_SHOWN)
    p = T.dist(ctx)
    shown = [int(i) for i in np.argsort(-p, kind="stable")[:TUBES_SHOWN]]
    vocab = T.vocab
    plain, spec = res["plain"]["counts"], res["speculative"]["counts"]
    q = D.dist(ctx)
    bars = [{"token": vocab[i], "p": float(p[i]), "q": float(q[i]),
             "plain": plain.get(vocab[i], 0) / trials, "speculative": spec.get(vocab[i], 0) / trials}
            for i in shown]
    return {"context": [vocab[i] for i in ctx], "trials": trials, "bars": bars,
            "overlap": res["overlap"], "tv": 1.0 - res["overlap"],
            "pvalue_plain": res["plain"]["pvalue"], "pvalue_speculative": res["speculative"]["pvalue"],
            "kept": res["speculative"]["kept"], "put_in": res["speculative"]["put_in"]}


def tubes_json(lang: str, text: str, seed: int, trials: int = TUBES_TRIALS) -> dict:
    src = source(lang, text)
    return _kept_answer("tubes", lambda: _tubes_answer(src, seed, trials), src.key, seed, trials)


@lru_cache(maxsize=1)
def _map_grid() -> list[list[float | None]]:
    return theory.break_even_map(MAP_GAMMAS, MAP_CS)


def breakeven_json(gamma: int, c: float) -> dict:
    return {"gammas": list(MAP_GAMMAS), "cs": list(MAP_CS), "alpha": _map_grid(),
            "gamma": gamma, "c": c, "break_even_alpha": theory.break_even_alpha(gamma, c)}


def clear_caches() -> None:
    """Forget every kept run and answer (the benchmarks time the work, not the caches)."""
    _RUNS.clear()
    _ANSWERS.clear()


# ---- one answer per part of the section (the page, and /api/section/lab.<part>) -------------------

def _source_of(v: dict, lang: str) -> tuple[str, str, bool]:
    """(language of the source, text hash or "" for the book, whether a text was asked for that this
    process no longer has: then the book stands in and the page sends the text again)."""
    tlang = lang if v["tlang"] == "auto" else v["tlang"]
    text = v["text"] or ""
    if text:
        try:
            source(tlang, text)   # held here, or counted again from the shared store
        except (UnknownText, labtexts.Busy):
            # The text may arrive a moment later (the page's script sends it): what is made now
            # is not what the URL gives then, so nothing may keep it.
            caching.no_store()
            return lang, "", True
    return (tlang if text else lang), text, False


def run(lang: str, v: dict) -> dict:
    src_lang, text, missing = _source_of(v, lang)
    out = lab_json(src_lang, text, v["ldraft"], v["gamma"], v["adapt"], v["seed"], v["c"])
    g = out["gammas"]
    # On the book with a model draft, the pair's α (sim.pair, as the sections `alpha` to `bench` print it) beside
    # this run's own count; a reader's text is another pair, with only its run's count.
    pair_alpha = None
    if not text and v["ldraft"] != "lookup":
            pair_alpha = pair.alpha(src_lang, v["ldraft"])
    return {**out, "tlang": v["tlang"], "text_missing": missing, "pair_alpha": pair_alpha,
            "adapt_ignored": v["ldraft"] == "lookup" and v["adapt"] != "off",
            "gammas_text": " ".join(map(str, g[:40])) + (" …" if len(g) > 40 else "")}


def drafts(lang: str, v: dict) -> dict:
    src_lang, text, missing = _source_of(v, lang)
    d = drafts_json(src_lang, text, v["gamma"], v["seed"], v["c"])
    # The real draft with the largest speed-up on paper (the section's takeaway names it); the
    # trigram is the target itself, listed to show α = 1, not a draft anyone would run.
    best = max((k for k in d["drafts"] if k != "trigram"), key=lambda k: d["drafts"][k]["speedup"] or 0.0)
    return {**d, "best": best, "text_missing": missing}


def compare(lang: str, v: dict) -> dict:
    """The adaptive policy against every fixed γ; nothing to compare for a fixed γ or the lookup."""
    if v["adapt"] == "off" or v["ldraft"] == "lookup":
        return {"compare": None, "tokens": COMPARE_TOKENS}
    src_lang, text, missing = _source_of(v, lang)
    return {"compare": compare_json(src_lang, text, v["ldraft"], v["gamma"], v["adapt"], v["seed"], v["c"]),
            "tokens": COMPARE_TOKENS, "text_missing": missing}


def tubes(lang: str, v: dict) -> dict:
    src_lang, text, missing = _source_of(v, lang)
    tb = tubes_json(src_lang, text, v["seed"])
    # Words are joined by spaces, characters (a Chinese text) are not.
    joiner = " " if any(len(t) > 1 for t in tb["context"]) else ""
    return {**tb, "context_text": joiner.join(tb["context"]), "text_missing": missing}


def breakeven(lang: str, v: dict) -> dict:
    return breakeven_json(v["gamma"], v["c"])


ANSWERS = {"lab.run": run, "lab.drafts": drafts, "lab.compare": compare, "lab.tubes": tubes,
           "lab.map": breakeven}
