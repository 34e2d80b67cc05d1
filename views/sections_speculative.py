"""Server-side numbers for the speculative sections (3 draft … 8 speedup).

`data(lang, state)` fills the template context so the page reads without scripts;
the JSON helpers below are shared with views/api/speculative.py so the page and the
API always show the same numbers for the same seed.
"""
from __future__ import annotations

import numpy as np

from sim.ngram import load_models

LANGS = ("en", "zh")
# As sim.speculative.DRAFTS / RULES (docs/design.md); repeated so the API validates
# without importing the loop at start-up.
DRAFTS = ("bigram", "unigram", "trigram")
RULES = ("exact", "resample-target", "keep-draft")

# Tokens written by the pre-rendered run (tape, draft animation) and by the longer run
# that measures α; both within the API's cap of 200.
PAGE_RUN_TOKENS = 40
ALPHA_RUN_TOKENS = 200
TUBES_TRIALS = 50          # trials a round, as in the plate
GAMMA_CURVE = range(1, 17)  # γ on the speed-up chart

# Papers' reported results (section 8). Sources: Leviathan et al. 2023 (arXiv:2211.17192,
# Table 2: T5-XXL 11B + T5-small 77M, EnDe, TPU v4); Chen et al. 2023 (arXiv:2302.01318:
# Chinchilla 70B + 4B draft, γ = 4, 14.1 ms vs 1.8 ms per token).
PAPERS = [
    {"key": "t5", "target": "T5-XXL (11B)", "draft": "T5-small (77M)",
     "low": 2.6, "high": 3.4, "c_note": "c < 0.05"},
    {"key": "chinchilla", "target": "Chinchilla (70B)", "draft": "4B",
     "low": 1.92, "high": 2.46, "target_ms": 14.1, "draft_ms": 1.8},
]


def _examples():
    """sim.examples, or None while it is not there yet (the page still renders)."""
    try:
        from sim import examples
        return examples
    except ImportError:  # pragma: no cover - only before the lead's module lands
        return None


def tokenize(text: str, lang: str) -> list[str]:
    """Split a context exactly as the corpus was split (words and punctuation; characters)."""
    from corpus import tokenize as corpus_tokenize
    return list(corpus_tokenize(lang, text))


def default_context(lang: str) -> str:
    ex = _examples()
    if ex is not None and hasattr(ex, "tubes_context"):
        ctx = ex.tubes_context(lang)
        return ctx if isinstance(ctx, str) else ("" if lang == "zh" else " ").join(ctx)
    return ", when" if lang == "en" else "，"


def _context_ids(lang: str, context: str):
    M = load_models(lang)["trigram"]
    text = context or default_context(lang)
    tokens = tokenize(text, lang)
    return M, tokens, M.encode(tokens)


def run_json(lang, draft, gamma, greedy, rule, tokens, seed, context=""):
    from sim import theory
    from sim.speculative import generate
    models = load_models(lang)
    M, ctx_tokens, ids = _context_ids(lang, context)
    rng = np.random.default_rng(seed)
    run = generate(M, models[draft], ids, tokens, gamma, rng, greedy=greedy, rule=rule)
    out = run.to_json(M.vocab, top=8)
    out["context"] = ctx_tokens
    out["params"] = {"lang": lang, "draft": draft, "gamma": gamma, "greedy": greedy,
                     "rule": rule, "tokens": tokens, "seed": seed}
    if gamma >= 1:
        out["tokens_per_pass_formula"] = theory.expected_tokens(out["alpha"], gamma)
    return out


def tubes_json(lang, draft, rule, rounds, trials, seed, context=""):
    from sim.tubes import run_tubes
    models = load_models(lang)
    M, ctx_tokens, ids = _context_ids(lang, context)
    rng = np.random.default_rng(seed)
    out = run_tubes(M, models[draft], ids, rounds, trials, rng, rule=rule)
    out["context"] = ctx_tokens
    out["params"] = {"lang": lang, "draft": draft, "rule": rule, "rounds": rounds,
                     "trials": trials, "seed": seed}
    return out


def theory_json(alpha, gamma, c):
    from sim import theory
    best_g, best_s = theory.best_gamma(alpha, c, gamma_max=max(GAMMA_CURVE))
    return {
        "alpha": alpha, "gamma": gamma, "c": c,
        "expected_tokens": theory.expected_tokens(alpha, gamma),
        "speedup": theory.speedup(alpha, gamma, c),
        "best_gamma": best_g, "best_speedup": best_s,
        "break_even_alpha": theory.break_even_alpha(gamma, c),
        "extra_arithmetic": theory.extra_arithmetic(alpha, gamma),
        # One cycle in units of one target run: γ draft runs of c each, one verification.
        "cycle": {"draft": gamma * c, "verify": 1.0, "total": gamma * c + 1.0},
        "curve": {"gamma": list(GAMMA_CURVE),
                  "speedup": [theory.speedup(alpha, g, c) for g in GAMMA_CURVE],
                  "expected_tokens": [theory.expected_tokens(alpha, g) for g in GAMMA_CURVE]},
        "papers": PAPERS,
    }


def _tape(run: dict) -> list[dict]:
    """Flatten the steps into tape cells: token, kind, and which pass wrote it."""
    cells = []
    for i, step in enumerate(run["steps"]):
        for w in step["written"]:
            cells.append({"token": w["token"], "kind": w["kind"], "pass": i})
    return cells


def _example_json(lang):
    """Easy and hard positions chosen by sim.examples; empty if it has none yet."""
    ex = _examples()
    out = {}
    for name in ("easy_example", "hard_example"):
        fn = getattr(ex, name, None) if ex else None
        if fn is not None:
            try:
                out[name.split("_")[0]] = fn(lang)
            except Exception:  # noqa: BLE001 - an example is decoration; never break the page
                pass
    return out


def data(lang: str, state: dict) -> dict:
    lang = lang if lang in LANGS else "en"
    draft = state.get("draft", "bigram")
    gamma = int(state.get("gamma", 4))
    greedy = bool(state.get("greedy", False))
    rule = state.get("rule", "exact")
    seed = int(state.get("seed", 1))
    c = float(state.get("c", 0.1))

    run = run_json(lang, draft, gamma, greedy, rule, PAGE_RUN_TOKENS, seed)
    long_run = run_json(lang, draft, gamma, greedy, rule, ALPHA_RUN_TOKENS, seed)
    alpha = float(long_run["alpha"])
    tubes = tubes_json(lang, "bigram", rule, 1, TUBES_TRIALS, seed)
    th = theory_json(alpha, gamma, c)
    first = run["steps"][0]
    return {"spec": {
        "lang": lang, "draft": draft, "gamma": gamma, "greedy": greedy, "rule": rule,
        "seed": seed, "c": c,
        "context": run["context"],
        "run": run, "tape": _tape(run), "first": first,
        "first_rejected": next((p for p in first["proposals"] if not p["accepted"]), None),
        "alpha": alpha, "alpha_run": {k: long_run[k] for k in
                                       ("alpha", "acceptance_rate", "tokens_per_pass",
                                        "passes", "accepted_hist")},
        "overlap_strip": list(zip(_tape(long_run)[:60], long_run["overlap"][:60])),
        "tubes": tubes, "theory": th, "examples": _example_json(lang),
        "drafts": DRAFTS, "rules": RULES,
    }}
