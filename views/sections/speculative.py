"""The numbers of the speculative sections (3 draft … 8 speedup, and 13 the bench).

One answer per section, from the parameters that section reads (sim/params.py): the page renders
from it, the section's live text and widget redraw from it when a control changes
(`/api/section/<anchor>`). The JSON helpers are shared with views/api/speculative.py, so the page
and the API show the same numbers for the same seed. Every section but 6 runs the exact rule.
"""
from __future__ import annotations

import threading
from functools import lru_cache

import numpy as np
from cachetools import LRUCache

from corpus.text import LANGUAGES
from sim import examples, pair, roofline, theory
from sim.ngram import load_models
from sim.params import ROUNDS_MAX, drawn_seed
from sim.speculative import generate, plain_decode
from sim.theory import GAMMA_MAX
from sim.tubes import DEFAULT_TRIALS, run_tubes
from views.sections.roofline import capacity
from views.sections.shared import context_ids, draft_name, measured_alpha, pair_info, plain, weight_gpus

# Tokens written by the pre-rendered run (tape, draft animation) and by the longer run
# that measures α; both within the API's cap of 200.
PAGE_RUN_TOKENS = 40
ALPHA_RUN_TOKENS = 200
BENCH_RUN_TOKENS = 60  # the bench's run (as static/js/widgets/bench.js), for its no-script readouts
TUBES_TRIALS = DEFAULT_TRIALS  # trials a round of the `exact` section (sim/tubes.py says why 200)
# The `exact` section's "identical under greedy" row: plain greedy decoding against speculative greedy
# decoding from the tubes' context, token for token. Greedy verification keeps a guess only if it is
# the target's arg-max and otherwise writes that arg-max, so the text is the target's own greedy
# text, not only drawn from the same distribution (tests/test_speculative.py checks it in sim).
GREEDY_SAME_TOKENS = 24
GREEDY_SAME_GAMMA = 4
GAMMA_CURVE = range(1, GAMMA_MAX + 1)  # γ on the speed-up chart

# Papers' reported results (the `speedup` section). Sources: Leviathan et al. 2023 (arXiv:2211.17192,
# Table 2: T5-XXL 11B + T5-small 77M, EnDe, TPU v4); Chen et al. 2023 (arXiv:2302.01318:
# Chinchilla 70B + 4B draft, γ = 4, 14.1 ms vs 1.8 ms per token).
PAPERS = [
    {"key": "t5", "target": "T5-XXL (11B)", "draft": "T5-small (77M)",
     "low": 2.6, "high": 3.4, "c_note": "c < 0.05"},
    {"key": "chinchilla", "target": "Chinchilla (70B)", "draft": "4B",
     "low": 1.92, "high": 2.46, "target_ms": 14.1, "draft_ms": 1.8},
]


def _residual_rows(step, vocab, top=6) -> list[dict] | None:
    """p, q and the normalised residual for the tokens the replacement is most likely drawn from,
    plus the refused guess (residual 0) so the reader sees why it cannot come back."""
    if step.residual is None or not step.proposals:
        return None
    pr = step.proposals[-1]
    p, q, res = pr.p_dist, pr.q_dist, step.residual
    idx = [i for i, _ in res.top(top)]
    for extra in (pr.token, step.replacement):
        if extra is not None and extra not in idx:
            idx.append(int(extra))
    at = np.asarray(idx)
    return [{"token": vocab[i], "p": pi, "q": qi, "residual": ri,
             "refused": i == pr.token, "drawn": i == step.replacement}
            for i, pi, qi, ri in zip(idx, p[at].tolist(), q[at].tolist(), res[at].tolist())]


def generate_run(lang, draft, gamma, greedy, rule, tokens, seed, context=""):
    """(Run, context tokens, target model) for the API's and the page's parameters."""
    models = load_models(lang)
    M, ctx_tokens, ids = context_ids(lang, context)
    run = generate(M, models[draft], ids, tokens, gamma, np.random.default_rng(seed),
                   greedy=greedy, rule=rule)
    return run, ctx_tokens, M


def run_json(lang, draft, gamma, greedy, rule, tokens, seed, context="", run=None, trace=True):
    """The API's answer for /api/run; ``run`` (from ``generate_run``, possibly cut with
    ``Run.head``) spares generating it again. ``trace=False`` leaves out the passes ("steps"):
    the statistics, tokens and overlaps alone, for readers that only count."""
    if run is None:
        run, ctx_tokens, M = generate_run(lang, draft, gamma, greedy, rule, tokens, seed, context)
    else:
        M, ctx_tokens, _ids = context_ids(lang, context)
    if trace:
        out = run.to_json(M.vocab, top=0)  # the widgets draw no top lists; residual rows below
        for step, sj in zip(run.steps, out["steps"]):
            sj["residual_rows"] = _residual_rows(step, M.vocab)
    else:
        out = {"tokens": M.decode(run.tokens), **run.stats(), "overlap": run.overlaps[:len(run.tokens)],
               # Greedy runs: whether the arg-maxes agree at each position (what α counts there).
               "agreement": (run.agreements[:len(run.tokens)] if run.agreements is not None
                             else None)}
    out["context"] = ctx_tokens
    out["params"] = {"lang": lang, "draft": draft, "gamma": gamma, "greedy": greedy,
                     "rule": rule, "tokens": tokens, "seed": seed, "trace": trace}
    out["tokens_per_pass_formula"] = (theory.expected_tokens(out["alpha"], gamma)
                                      if out["alpha"] is not None else None)
    return out


def tubes_json(lang, draft, rule, rounds, trials, seed, context=""):
    models = load_models(lang)
    M, ctx_tokens, ids = context_ids(lang, context)
    rng = np.random.default_rng(seed)
    out = plain(run_tubes(M, models[draft], ids, rounds, trials, rng, rule=rule))
    out["context"] = ctx_tokens
    out["params"] = {"lang": lang, "draft": draft, "rule": rule, "rounds": rounds,
                     "trials": trials, "seed": seed}
    return out


def theory_json(alpha, gamma, c):
    return {
        **theory.summary(alpha, gamma, c, gamma_max=max(GAMMA_CURVE)),
        # One cycle in units of one target run: γ draft runs of c each, one verification.
        "cycle": {"draft": gamma * c, "verify": 1.0, "total": gamma * c + 1.0,
                  "share": 100 * gamma * c / (gamma * c + 1.0)},
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
    """An easy and a hard position chosen from the data by sim.examples, each with its context
    as the language writes it."""
    sep = LANGUAGES[lang].joiner
    return {k: {**e, "text": sep.join(e["tokens"])} for k, e in examples.easy_and_hard(lang).items()}


STRIP = 80      # positions on the `alpha` section's strip (as in static/js/widgets/alpha.js)
TUBE_SHOWN = 7  # tokens with their own column in a tube (as in static/js/widgets/exact.js)


def tube_view(tubes: dict) -> list[dict]:
    """Columns for the server-drawn tubes: p and the counts per token, the rest pooled."""
    shown = sorted(tubes["p"], key=lambda tok: -tubes["p"][tok])[:TUBE_SHOWN]
    cols = [{"token": tok, "other": False, "p": tubes["p"][tok], "plain": 0, "kept": 0, "put_in": 0}
            for tok in shown]
    cols.append({"token": None, "other": True, "p": 1.0 - sum(tubes["p"][t] for t in shown),
                 "plain": 0, "kept": 0, "put_in": 0})
    where = {tok: i for i, tok in enumerate(shown)}
    for rnd in tubes["samples"]:
        for tok in rnd["plain"]:
            cols[where.get(tok, -1)]["plain"] += 1
        for tok, kept in rnd["speculative"]:
            cols[where.get(tok, -1)]["kept" if kept else "put_in"] += 1
    n = tubes["rounds"] * tubes["trials"]
    top = max(max(c["p"] for c in cols), *(max(c["plain"], c["kept"] + c["put_in"]) / n for c in cols))
    for c in cols:  # heights as fractions of the tube, for the SVG
        c["h_plain"] = c["plain"] / n / top
        c["h_kept"] = c["kept"] / n / top
        c["h_put_in"] = c["put_in"] / n / top
        c["h_p"] = c["p"] / top
    return cols




# ---- one answer per section ----------------------------------------------------------------------

# The exact-rule run every speculative section shows part of, per state: the sections `draft` to
# `rule` step through its first 40 tokens, the bench its first 60, the `alpha` section measures α
# over all 200. ``Run.head`` gives what running a shorter length from the same seed would, so one
# run serves every length up to its own, and a section asked alone (a control moved, a fresh seed)
# runs only as far as it shows: a fifth of the long run's CPU for the tape. A few states' worth,
# each at most 200 tokens of γ ≤ 16 (about 1 MB).
_RUNS: LRUCache = LRUCache(maxsize=8)
_RUNS_LOCK = threading.Lock()


def _held_run(lang: str, v: dict, tokens: int):
    key = (lang, v["draft"], v["gamma"], v["greedy"], v["seed"])
    with _RUNS_LOCK:
        have = _RUNS.get(key)
    if have is None or len(have.tokens) < tokens:
        have = generate_run(lang, v["draft"], v["gamma"], v["greedy"], "exact", tokens, v["seed"])[0]
        with _RUNS_LOCK:
            old = _RUNS.get(key)
            if old is None or len(old.tokens) < len(have.tokens):
                _RUNS[key] = have
    return have if len(have.tokens) == tokens else have.head(tokens)


def _run(lang: str, v: dict, tokens: int, trace: bool = True) -> dict:
    return run_json(lang, v["draft"], v["gamma"], v["greedy"], "exact", tokens, v["seed"],
                    run=_held_run(lang, v, tokens), trace=trace)


OPENINGS = ("sure", "mixed", "refusal", "first")   # why the `draft` section opens where it does


def opening_pass(steps: list[dict]) -> tuple[int, str]:
    """(pass, why) the `draft` section opens on, chosen from the run. "sure": the first that
    keeps a guess and refuses one, every kept guess kept for certain (the target gives it at least
    the draft's q, p ≥ q), so the first picture of checking shows both outcomes and no guess the
    target finds unlikely passing on a lucky draw (Witten–Bell's p/q of 0.5 keeps "shall" at
    p = 6.7 × 10⁻⁵ half the time); failing that "mixed", the first that keeps one and refuses
    one; then "refusal", the first with a refusal; then "first" (a copy of the target refuses
    nothing)."""
    def kept(st):
        return [pr for pr in st["proposals"] if pr["accepted"]]

    def refused(st):
        return any(not pr["accepted"] for pr in st["proposals"])

    tests = {"sure": lambda st: refused(st) and kept(st) and all(pr["accept_prob"] >= 1.0 for pr in kept(st)),
             "mixed": lambda st: refused(st) and bool(kept(st)),
             "refusal": refused}
    for why, test in tests.items():
        at = next((i for i, st in enumerate(steps) if test(st)), None)
        if at is not None:
            return at, why
    return 0, "first"


def draft(lang: str, v: dict) -> dict:
    run = _run(lang, v, PAGE_RUN_TOKENS)
    at, why = opening_pass(run["steps"])
    if v["greedy"] and why == "sure":
        why = "mixed"   # a greedy check keeps a guess for certain or not at all: p ≥ q says nothing
    step = run["steps"][at]
    before = list(run["context"]) + [w["token"] for st in run["steps"][:at] for w in st["written"]]
    refused = next((pr for pr in step["proposals"] if not pr["accepted"]), None)
    return {"run": run, "open": at, "open_num": at + 1, "open_why": why, "opening": step,
            "positions": v["gamma"] + 1,
            "open_context": before[-8:],
            "open_written": len(step["written"]),
            # The refused guess and what the target wrote there, named in the prose.
            "open_refused": refused and refused["token"], "open_replacement": step["replacement"],
            "open_guesses": LANGUAGES[lang].joiner.join(g["token"] for g in step["guesses"])}


def tape(lang: str, v: dict) -> dict:
    run = _run(lang, v, PAGE_RUN_TOKENS)
    cells = _tape(run)
    return {"run": run, "tape": cells, "written": len(cells), "most": v["gamma"] + 1,
            "kept": sum(c["kind"] == "kept" for c in cells)}


def rule(lang: str, v: dict) -> dict:
    run = _run(lang, v, PAGE_RUN_TOKENS)
    # The section opens on the first pass with a refusal, so the residual (or, under greedy, the
    # target's own top token) shows without scripts; its Reset button says it goes back there.
    at = next((i for i, st in enumerate(run["steps"]) if st["replacement"] is not None), None)
    step = run["steps"][at or 0]
    refused = step["proposals"][-1] if at is not None and step["proposals"] else None
    first = next((p for st in run["steps"] for p in st["proposals"]
                  if not p["accepted"] and p["r"] is not None), None)
    return {"run": run, "rule_pass": at or 0, "rule_step": step, "greedy": v["greedy"],
            "has_refusal": at is not None,
            # Guesses the run checked and kept (the takeaway's count).
            "checked": sum(len(st["proposals"]) for st in run["steps"]),
            "kept": sum(p["accepted"] for st in run["steps"] for p in st["proposals"]),
            # The prose's worked example: a refusal and its replacement, when the run has one (a
            # copy of the target as draft never refuses). Under greedy the two arg-maxes.
            "refusal": {"shown": refused is not None, "pass": (at or 0) + 1,
                        "token": refused and refused["token"], "q": refused and refused["q"],
                        "p": refused and refused["p"], "replacement": step["replacement"],
                        "check": refused and refused.get("greedy_check")},
            "first_rejected": {"shown": first is not None, **(first or {})}}


def exact(lang: str, v: dict) -> dict:
    # The seed with the section's own draw counter: refilling the tubes changes nothing else.
    tubes = tubes_json(lang, v["tdraft"], v["rule"], v["rounds"], TUBES_TRIALS, drawn_seed(v["seed"], v["draw"]))
    top = sorted(tubes["p"], key=lambda tok: -tubes["p"][tok])[:2]
    cols = tube_view(tubes)
    # The page draws the tubes from the columns' counts; every single draw (tubes_json's
    # "samples", up to 8,000 tokens at the cap) stays with /api/tubes.
    tubes = {k: val for k, val in tubes.items() if k != "samples"}
    power = tubes["power"]
    return {"tubes": tubes, "tube_cols": cols,
            "context_text": LANGUAGES[lang].joiner.join(tubes["context"]),
            "draft_name": draft_name(v["tdraft"]),
            "draws": tubes["rounds"] * tubes["trials"], "rounds_max": ROUNDS_MAX,
            "draws_max": ROUNDS_MAX * TUBES_TRIALS, "trials": TUBES_TRIALS,
            # Whether any wrong rule could show here at all (not when the draft is the target).
            "detectable": any(r["detectable"] for r in power["rules"].values()),
            "top": [{"token": t, "p": tubes["p"][t], "q": tubes["q"][t]} for t in top],
            "greedy_same": greedy_same(lang, v["tdraft"])}


@lru_cache(maxsize=8)  # two languages × three drafts
def greedy_same(lang: str, draft: str) -> dict:
    """Plain greedy decoding and speculative greedy decoding from the tubes' context, token for
    token: the same text, in fewer passes of the target."""
    models = load_models(lang)
    M, ctx_tokens, ids = context_ids(lang, "")
    n = GREEDY_SAME_TOKENS
    plain = plain_decode(M, ids, n, np.random.default_rng(0), greedy=True)
    spec = generate(M, models[draft], ids, n, GREEDY_SAME_GAMMA, np.random.default_rng(0), greedy=True)
    rows = [{"plain": M.vocab[a], "spec": M.vocab[b], "same": bool(a == b)} for a, b in zip(plain, spec.tokens)]
    return {"context": ctx_tokens, "gamma": GREEDY_SAME_GAMMA, "tokens": n, "rows": rows,
            "same": sum(r["same"] for r in rows), "plain_passes": n, "spec_passes": len(spec.steps),
            "draft_name": draft_name(draft)}


def alpha(lang: str, v: dict) -> dict:
    long_run = _run(lang, v, ALPHA_RUN_TOKENS, trace=False)
    greedy = long_run["alpha_measure"] == "agreement"
    agreement = long_run["agreement"] or []
    # The run's own α averages the 200 positions it returns (sim.speculative.Run.stats).
    every = agreement[:ALPHA_RUN_TOKENS]
    pair = pair_info(lang, v, v["gamma"])
    # Eq. 1 with the pair's α against this run's count: within the run's own scatter, or not.
    check = theory.formula_check(pair["alpha"], v["gamma"], long_run["accepted_hist"])
    # No scatter at all (a copy of the target: every pass writes γ + 1) is said in words, not "± 0.00".
    check["exact"] = check["margin"] == 0 and bool(check["agree"])
    check["within"] = bool(check["agree"]) and not check["exact"]
    examples = _example_json(lang)
    return {
        # The pair's α (every section's figure); this run's own average is run.alpha.
        "alpha": pair["alpha"], "pair": pair, "draft_name": draft_name(v["draft"]),
        # The question's number (the reader guesses it first): the pair's α with the draft that
        # reads nothing.
        "unigram_alpha": measured_alpha(lang, {**v, "draft": "unigram"}),
        # What α averages: Σ min(p, q) when sampling, agreement of the arg-maxes under greedy.
        "measure": long_run["alpha_measure"], "greedy": greedy,
        "positions": len(every), "agree": sum(every),
        "run": {k: long_run[k] for k in ("alpha", "acceptance_rate", "tokens_per_pass", "passes",
                                         "accepted_hist", "tokens", "overlap")},
        "formula": pair["tokens_per_pass"],
        # The formula against the count: within the run's own scatter (two standard errors), or not.
        "check": check,
        # Colour step 0..4 of Σ min(p, q) at each written position; under greedy, 4 where the two
        # arg-maxes agree (the guess passes) and 0 where they do not.
        "strip": [{"token": tok, "overlap": ov,
                   "agree": agreement[i] if greedy else None,
                   "bucket": (4 if agreement[i] else 0) if greedy else min(4, int(ov * 5))}
                  for i, (tok, ov) in enumerate(zip(long_run["tokens"][:STRIP], long_run["overlap"][:STRIP]))],
        "examples": examples,
        # The predict-first answer compares the two drafts its question names, whatever is chosen.
        "compare": {d: measured_alpha(lang, {"draft": d, "greedy": v["greedy"]}) for d in ("bigram", "unigram")},
        # Under greedy a guess at a position passes exactly when the two favourites agree.
        "easy_agree": examples["easy"]["p_argmax"] == examples["easy"]["q_argmax"],
    }


def _ceiling(gpu: str, model: str, th: dict) -> dict:
    """The `onebyone` section's single-stream ceiling for the page's GPU and model (on the GPUs the weights
    need), and what the section's speed-ups make of it: one stream past the ceiling that memory
    bandwidth sets on plain decoding, as Chen et al. measured."""
    g, m = roofline.GPUS[gpu], roofline.MODELS[model]
    n = weight_gpus(g, m)
    tps = roofline.decode_step(g, m, 1, 0, gpus=n)["tokens_per_s"]
    chen = next(p for p in PAPERS if p["key"] == "chinchilla")
    return {"gpu": g.label, "model": m.label, "gpus": n, "tokens_per_s": tps,
            "spec_tokens_per_s": tps * th["speedup"], "beats": th["speedup"] > 1.0,
            "best_tokens_per_s": tps * th["best"]["speedup"],
            # Chen et al.'s target alone: 14.1 ms a token, 70.9 tokens/s; at their best 2.46×.
            "chen_plain_tokens_per_s": 1e3 / chen["target_ms"],
            "chen_spec_tokens_per_s": 1e3 / chen["target_ms"] * chen["high"]}


def speedup(lang: str, v: dict) -> dict:
    measured = measured_alpha(lang, v)
    used = measured if v["alpha"] is None else v["alpha"]
    th = theory_json(used, v["gamma"], v["c"])
    return {"measured": measured, "pinned": v["alpha"] is not None, "theory": th,
            "pair": pair_info(lang, v, v["gamma"]),
            "ceiling": _ceiling(v["gpu"], v["model"], th)}


def bench(lang: str, v: dict) -> dict:
    run = _run(lang, v, BENCH_RUN_TOKENS)
    # The pair's α (as the sections `alpha` to `idle`), not this 60-token run's own average (shown beside it).
    pair = pair_info(lang, v, v["gamma"])
    a = pair["alpha"]
    # At the page's engine efficiency (1.0, the ideal, unless `eff` is set): speeds scale, the
    # speed-up does not.
    # On the GPUs the weights need, as the `onebyone`, `batch` and `idle` sections (the 70B on two
    # 80 GB GPUs).
    n = weight_gpus(roofline.GPUS[v["gpu"]], roofline.MODELS[v["model"]])
    paper = roofline.speculative(v["gpu"], v["model"], v["batch"], v["ctx"], v["gamma"], a, v["c"],
                                 efficiency=v["eff"], gpus=n)
    return {"run": run, "tape": _tape(run), "most": v["gamma"] + 1, "draft_name": draft_name(v["draft"]),
            # The gauges of the last pass, for the first view without scripts.
            "last_pass": len(run["steps"]), "last_step": run["steps"][-1],
            "pair": pair, "run_tokens": BENCH_RUN_TOKENS,
            "speedup": paper["speedup"], "plain": paper["tokens_per_s_plain"],
            "spec": paper["tokens_per_s_spec"], "fits": paper["fits"],
            "capacity": bench_capacity(v), "machine": _machine(paper, v)}


def bench_capacity(v: dict) -> dict:
    """Whether the bench's streams fit, in the `batch` section's terms (on the GPUs the weights need)."""
    return capacity(v["gpu"], v["model"], v["batch"], v["ctx"])


def _machine(paper: dict, v: dict) -> dict:
    """What the bench's moving machine needs beyond the run: how busy the mill (the arithmetic)
    is while the target checks the guesses, and whether the cabinet holds every stream's cache."""
    return {"busy": paper["arithmetic_busy_verify"], "busy_plain": paper["arithmetic_busy_plain"],
            "fits": paper["fits"], "batch": v["batch"],
            "max_batch": roofline.max_batch(v["gpu"], v["model"], v["ctx"])}


ANSWERS = {"draft": draft, "tape": tape, "rule": rule, "exact": exact, "alpha": alpha,
           "speedup": speedup, "bench": bench}
