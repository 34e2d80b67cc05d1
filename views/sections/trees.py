"""The `trees` section, "Many guesses at once": token trees on the counted models (issue 13), in three parts,
each one answer from the parameters it reads (sim/params.py) and each within the CPU budget of one
request, like the lab's (but for a budget table this process has not made yet: README):

* ``trees.pass``: a short run with a tree every pass (``sim.tree.rules.generate_tree``), one pass of
  it traced for stepping through (the tree with q and p at every node, the walk with every check and
  its uniform, the residual after each refused sibling, the tokens written, the attention mask), and
  the metrics a serving engine prints for the run (vLLM's SpecDecodingLogging line);
* ``trees.tubes``: plain sampling against the first token of a tree pass, the rule a choice
  (``sim.tree.tubes``), with a chi-square test of each tube;
* ``trees.budget``: tokens per pass and speed-up against the node budget for chains and trees on the
  chosen GPU, model, batch and context (``sim.tree.budget``, ``sim.tree.cost``: Sequoia §4.1 on the
  roofline, memory capacity included), and the batch from which trees stop paying.

The JSON helpers are shared with views/api/tree.py, so the page and the API give the same numbers
for the same seed. The caps on a request's work are here, measured with bench/cpu.py (README).
"""
from __future__ import annotations

import numpy as np
from views.translation import gettext as _

from corpus.text import LANGUAGES
from sim import params as P
from sim import roofline, theory
from sim import tree as trees
from sim.ngram import load_models
from sim.tree import METHODS, NATURAL, WRONG, Plan, budget_table, generate_tree, is_exact
from sim.tree import acceptance as fitted
from sim.tree import run_tree_tubes, star, tree_tubes_context
from views.sections import shared
from views.sections.roofline import capacity, section9_best

# Caps, in the work a request may do (bench/cpu.py, README: 8 to 18 ms of CPU at the caps, where
# /api/run's traced runs take 10 to 20 ms in the same run).
# A tree of n guesses fixed in shape: the target reads n + 1 positions a pass and the draft fills
# n nodes, plus the trace; about tokens × (n + 8) distribution reads in all.
FIXED_WORK = 2000
# EAGLE-2's tree makes k + (d − 1)k² candidates a pass (each level's k best expanded k ways),
# whatever n keeps: tokens × (k + (d − 1)k²).
EAGLE_WORK = 2400
PAGE_TOKENS = 40          # tokens the page's run writes (fewer where the caps say)
TOP = 6                   # tokens listed for p, the residual and the draws
STAR = 8                  # guesses for the first token in the page's tubes (sim.tree.tubes.STAR)
TUBE_SHOWN = 7            # tokens with their own column in a tube (as the `exact` section)
TABLE_NS = (1, 2, 4, 8, 16, 32, 64)   # budgets the chart's fallback table lists (and the reader's n)
CHART_METHODS = ("chain", "topk", "dynamic", "best", "sequoia")   # drawn (not the greedy chain)
# The SVG of a tree: columns by depth, rows by leaf (views and static/js/widgets/trees.js draw
# the same coordinates, from the answer).
COL_W, BOX_W = 112, 98
ROW_H, BOX_H = 46, 38          # a node shows its token, q and p
ROW_H_SMALL, BOX_H_SMALL = 24, 20   # more than DETAIL_LEAVES leaves: the token only
DETAIL_LEAVES = 12
PAD = 6


# ---- what a request runs -------------------------------------------------------------------------

class NoSuchPass(ValueError):
    """The pass asked to be traced is past the run's last (``passes`` were made)."""

    def __init__(self, passes: int):
        super().__init__(f"the run made {passes} passes")
        self.passes = passes


def tokens_cap(shape: str, n: int, k: int, d: int) -> int:
    """The most tokens one run may write with this tree (the caps above)."""
    if shape == "dynamic":
        return EAGLE_WORK // (k + (d - 1) * k * k)
    return FIXED_WORK // (n + 8)


def resolve(shape: str, n: int, k: int, sampling: str | None, rule: str | None, greedy: bool = False) -> dict:
    """What runs: EAGLE-2's tree and greedy mode take the draft's likeliest tokens (sampling top);
    k separate sequences need k ≤ n; the rule defaults to the sampling's own exact one."""
    forced = shape == "dynamic" or greedy
    used = "top" if forced else (sampling or "wor")
    k_used = min(k, n) if shape == "sequences" else k
    # The exact check of the chosen filling goes with it when the filling is forced to the likeliest
    # tokens (EAGLE-2's tree, greedy): the pass stays exact, as the tubes of that filling say; a
    # wrong rule chosen on purpose stays wrong.
    if forced and rule is not None and rule == NATURAL[sampling or "wor"]:
        rule = None
    return {"shape": shape, "sampling": used, "sampling_forced": forced and sampling not in (None, "top"),
            "rule": rule or NATURAL[used], "natural": NATURAL[used], "k": k_used, "k_cut": k_used != k,
            "greedy": greedy}


def acceptance(lang: str, draft: str) -> dict:
    return fitted(lang, draft)


def make_plan(lang: str, draft: str, shape: str, n: int, k: int, d: int, sampling: str):
    """The plan of each pass (``sim.tree.plan``); Sequoia's best shape is fitted to the acceptance
    its own sampling gets (the top-k vector for ``top``, Sequoia's for the sampled ones)."""
    P_ = None
    if shape == "best":
        fit = acceptance(lang, draft)
        P_ = fit["acceptance" if sampling == "top" else "sequoia_acceptance"]
    return trees.plan(shape, n, k, d, sampling, P_)


def _is_chain(plan) -> bool:
    return plan.shape is not None and all(len(c) <= 1 for c in plan.shape.children)


def exactness(sampling: str, rule: str, chain: bool) -> dict:
    """Whether the rule keeps p's distribution on children filled by ``sampling``, and why not."""
    exact = is_exact(sampling, rule, chain)
    why = None if exact else ("-".join((sampling, rule)) if (sampling, rule) in WRONG else "other")
    return {"exact": exact, "why": why, "chain": chain}


# ---- one pass, stepped through --------------------------------------------------------------------

def layout(nodes: list[dict]) -> dict:
    """Where each node sits in the drawing: a column per depth, a row per leaf (depth first, the
    first child on top), a parent halfway between its first and last child."""
    kids = {nd["id"]: nd["children"] for nd in nodes}
    leaves = sum(1 for nd in nodes if not nd["children"])
    small = leaves > DETAIL_LEAVES
    row_h, box_h = (ROW_H_SMALL, BOX_H_SMALL) if small else (ROW_H, BOX_H)
    rows: dict[int, float] = {}
    nxt = [0]

    def place(v: int) -> float:
        if not kids[v]:
            rows[v] = nxt[0]
            nxt[0] += 1
        else:
            ys = [place(c) for c in kids[v]]
            rows[v] = (ys[0] + ys[-1]) / 2
        return rows[v]

    place(0)
    for nd in nodes:
        nd["px"] = PAD + nd["depth"] * COL_W
        nd["py"] = round(PAD + rows[nd["id"]] * row_h, 1)
    depth = max(nd["depth"] for nd in nodes)
    return {"width": 2 * PAD + depth * COL_W + BOX_W, "height": 2 * PAD + max(1, nxt[0] - 1) * row_h + box_h,
            "box_w": BOX_W, "box_h": box_h, "small": small}


def events(pass_json: dict) -> list[dict]:
    """The pass in the order a reader steps through it: the draft's tree, the target's one pass,
    each check (or the target's own draw, for naive sampling and greedy) at each node on the walk,
    the token the pass ends with, and what was written. ``before``: the residual R the check reads
    (p at the node for the first check), ``after``: R once the child is refused; ``written``: the
    kind of token a draw or the final draw wrote (None when the walk moved on)."""
    out = [{"kind": "draft"}, {"kind": "target"}]
    last = pass_json["written"][-1]
    for vis in pass_json["walk"]:
        before = vis["p_top"]
        for c in vis["checks"]:
            out.append({"kind": "check", "at": vis["node"], **c, "before": before, "after": c["residual_top"]})
            if c["residual_top"] is not None:
                before = c["residual_top"]
        ends = vis["to"] is None
        if vis["y"] is not None:      # the target's own token decides (and is written if no child holds it)
            out.append({"kind": "draw", "at": vis["node"], "u": vis["u"], "y": vis["y"], "to": vis["to"],
                        "p_top": vis["p_top"], "written": last["kind"] if ends else None})
        elif ends:
            out.append({"kind": "final", "at": vis["node"], "token": last["token"], "written": last["kind"],
                        "u": vis["final_u"], "top": vis["final_top"]})
    out.append({"kind": "done"})
    return out


def _pick_pass(steps) -> int:
    """The pass the page opens on: the first that refuses a guess and keeps one (both kinds of
    check show), else the first with a refusal, else the first."""
    def refused(s):
        return any(not c.accepted for v in s.visits for c in v.checks) or any(
            v.y is not None and v.to is None and s.tree.children[v.node] for v in s.visits)
    for i, s in enumerate(steps):
        if refused(s) and s.n_accepted:
            return i
    return next((i for i, s in enumerate(steps) if refused(s)), 0)


def log_line(stats: dict, positions: int) -> str:
    """The run's metrics as vLLM's SpecDecodingLogging writes them (vllm/v1/spec_decode/metrics.py;
    its two throughputs need a clock, which our models do not have). Per position, as many as the
    deepest tree has levels."""
    per = list(stats["acceptance_per_position"]) + [0.0] * max(0, positions - len(stats["acceptance_per_position"]))
    rate = stats["draft_acceptance_rate"]
    return ("SpecDecoding metrics: Mean acceptance length: {:.2f}, Accepted: {} tokens, Drafted: {} tokens, "
            "Per-position acceptance rate: {}, Avg Draft acceptance rate: {:.1f}%").format(
        stats["mean_acceptance_length"] or 0.0, stats["num_accepted_tokens"], stats["num_draft_tokens"],
        ", ".join(f"{x:.3f}" for x in per), 100 * (rate or 0.0))


def run_json(lang: str, draft: str, shape: str, n: int, k: int, d: int, sampling: str | None,
             rule: str | None, seed: int, tokens: int | None = None, context: str = "",
             greedy: bool = False, trace: int | None = None) -> dict:
    """A run of ``tokens`` tokens (None: as many as the caps allow, up to 40), a tree each pass,
    and one pass in full (``trace``; None: the one the page opens on; NoSuchPass if the run made
    fewer)."""
    r = resolve(shape, n, k, sampling, rule, greedy)
    plan = make_plan(lang, draft, shape, n, r["k"], d, r["sampling"])
    tokens = tokens if tokens is not None else max(1, min(PAGE_TOKENS, tokens_cap(shape, n, r["k"], d)))
    models = load_models(lang)
    M, ctx_tokens, ids = shared.context_ids(lang, context)
    run = generate_tree(M, models[draft], ids, tokens, plan, np.random.default_rng(seed), rule=r["rule"],
                        greedy=greedy)
    at = _pick_pass(run.steps) if trace is None else trace
    if not 0 <= at < len(run.steps):
        raise NoSuchPass(len(run.steps))
    step = run.steps[at]
    pj = step.to_json(M.vocab, top=TOP)
    pj["layout"] = layout(pj["tree"]["nodes"])
    # The root is the last token written before this pass (the context's last for the first).
    before = sum(len(st_.written) for st_ in run.steps[:at])
    seen = ctx_tokens + [M.vocab[t] for t in run.tokens[:before]]
    pj["root_token"] = seen[-1] if seen else "·"
    pj["events"] = events(pj)
    stats = run.stats()
    deepest = max(s.tree.shape.depth for s in run.steps)
    fit = acceptance(lang, draft)
    sizes = [s.tree.n for s in run.steps]
    return {
        "lang": lang, "draft": draft, "seed": seed, "context": ctx_tokens,
        "plan": {**r, "n": n, "d": d},
        **exactness(r["sampling"], r["rule"], _is_chain(plan)),
        "tokens": [M.vocab[t] for t in run.tokens], "tokens_asked": tokens,
        "tokens_cap": tokens_cap(shape, n, r["k"], d),
        **stats, "written_per_pass": [len(s.written) for s in run.steps],
        "positions": deepest, "log_line": log_line(stats, deepest),
        "tree_sizes": {"min": min(sizes), "max": max(sizes)},
        "pass_no": at, "pass_number": at + 1, "pass": pj,
        # The chain with as many guesses (γ = n): tokens per pass on average, from α measured on
        # the same positions the shapes are fitted to (the formula of the sections `alpha` to `speedup`).
        "chain": {"gamma": n, "alpha": fit["alpha"], "tokens_per_pass": theory.expected_tokens(fit["alpha"], n)},
        "acceptance": fit["acceptance"][1:4],
    }


def joined(tokens, lang: str) -> str:
    return LANGUAGES[lang].joiner.join(tokens)


def pass_part(lang: str, v: dict) -> dict:
    # The seed with the pass's own draw counter ("Another pass" changes nothing else).
    out = run_json(lang, v["draft"], v["shape"], v["n"], v["k"], v["d"], v["sampling"], v["trule"],
                   P.drawn_seed(v["seed"], v["tpass"]))
    pj = out["pass"]
    written = [w["token"] for w in pj["written"]]
    wpp = np.asarray(out["written_per_pass"], dtype=float)
    # Two standard errors of the run's mean tokens per pass: a short run scatters (17 passes: ±0.6).
    margin = float(2 * wpp.std(ddof=1) / np.sqrt(wpp.size)) if wpp.size > 1 else None
    return {**out, "draft_name": shared.draft_name(v["draft"]), "context_text": joined(out["context"], lang),
            "tpp_margin": margin,
            "written_text": joined(written, lang), "n_written": len(written),
            "n_nodes": pj["tree"]["n"], "depth": pj["tree"]["depth"],
            "n_checks": sum(len(w["checks"]) for w in pj["walk"]),
            "n_refused": sum(not c["accepted"] for w in pj["walk"] for c in w["checks"]),
            "why_text": why_text(out["why"], out["plan"]["natural"]),
            # The predict-first answer's numbers (paths of their own: it sits in a closed box).
            "answer": {"draft": shared.draft_name(v["draft"]), "p1": out["acceptance"][0], "p2": out["acceptance"][1]}}


def why_text(why: str | None, natural: str) -> str:
    """Why a (sampling, rule) pair is not exact, in the reader's language ("" when it is)."""
    texts = {
        "top-specinfer": _("The children are the draft's likeliest tokens, not draws from q, yet each is checked against R/q as if it had been drawn: the tokens the draft favours come out too often."),
        "wor-specinfer": _("The children were drawn without replacement, so each later sibling came from q with the earlier ones taken out; dividing by q itself instead of that renormalised q gets every later check slightly wrong."),
        "iid-sequoia": _("The children were drawn independently, so a refused token can come back as a later sibling; taking it out of q as if it could not (Sequoia's adjustment) gets the checks wrong."),
        "iid-stale": _("After a sibling is refused, the next one must be checked against the updated residual; checking every sibling against p itself hands out the refused mass twice."),
    }
    if why is None:
        return ""
    return texts.get(why) or _("This rule is not exact for children filled this way; the exact check here is %(rule)s (naive sampling is exact for any tree).", rule=rule_name(natural))


def rule_name(rule: str) -> str:
    return {"naive": _("naive sampling"), "pointmass": _("the point-mass check"),
            "specinfer": _("SpecInfer's check"), "sequoia": _("Sequoia's check"),
            "stale": _("the check without updating the residual")}[rule]


# ---- tubes ----------------------------------------------------------------------------------------

def tubes_json(lang: str, draft: str, sampling: str, rule: str | None, k: int, rounds: int, trials: int,
               seed: int, context: str = "") -> dict:
    """Plain sampling against a tree pass's first token from one context (default: where the
    mistakes show most, ``sim.tree.tubes.tree_tubes_context``), k guesses for it."""
    models = load_models(lang)
    M = models["trigram"]
    if context:
        ctx_tokens = shared.tokenize(context, lang)
    else:
        ctx_tokens = list(tree_tubes_context(lang))
    rule = rule or NATURAL[sampling]
    out = shared.plain(run_tree_tubes(M, models[draft], M.encode(ctx_tokens), Plan.fixed(star(k), sampling), rule,
                                   rounds, trials, np.random.default_rng(seed)))
    out["context"] = ctx_tokens
    out["k"] = k
    out["natural"] = NATURAL[sampling]
    return out


def tube_cols(t: dict) -> list[dict]:
    """Columns for the server-drawn tubes: p and the counts per token (the tree's split into kept
    guesses and tokens the target put in), the rest pooled; heights as fractions of the tube."""
    shown = sorted(t["p"], key=lambda tok: -t["p"][tok])[:TUBE_SHOWN]
    cols = [{"token": tok, "other": False, "p": t["p"][tok], "plain": 0, "kept": 0, "put_in": 0} for tok in shown]
    cols.append({"token": None, "other": True, "p": max(0.0, 1.0 - sum(t["p"][x] for x in shown)),
                 "plain": 0, "kept": 0, "put_in": 0})
    where = {tok: i for i, tok in enumerate(shown)}
    for rnd in t["samples"]:
        for tok in rnd["plain"]:
            cols[where.get(tok, -1)]["plain"] += 1
        for tok, kept in zip(rnd["tree"], rnd["kept"]):
            cols[where.get(tok, -1)]["kept" if kept else "put_in"] += 1
    n = t["rounds"] * t["trials"]
    top = max(max(c["p"] for c in cols), *(max(c["plain"], c["kept"] + c["put_in"]) / n for c in cols))
    for c in cols:
        c["h_plain"], c["h_kept"], c["h_put_in"] = c["plain"] / n / top, c["kept"] / n / top, c["put_in"] / n / top
        c["h_p"] = c["p"] / top
    return cols


def tubes_part(lang: str, v: dict) -> dict:
    t = tubes_json(lang, v["draft"], v["sampling"], v["trule"], STAR, v["trounds"], P.TREE_TUBE_TRIALS,
                   P.drawn_seed(v["seed"], v["tdraw"]))
    info = exactness(v["sampling"], v["trule"], False)
    # "check", not the pass's own "exact": the pass may run another filling (EAGLE-2's tree).
    return {"tubes": t, "cols": tube_cols(t), "start_text": joined(t["context"], lang),
            "draws": t["rounds"] * t["trials"], "rounds_max": P.TREE_ROUNDS_MAX, "star": STAR,
            "check": {**info, "why_text": why_text(info["why"], t["natural"]), "natural_name": rule_name(t["natural"])}}


# ---- what a node budget buys ----------------------------------------------------------------------

def budget_json(lang: str, draft: str, k: int, d: int, gpu: str, model: str, batch: int, ctx: int, c: float) -> dict:
    """The budget table (kept per process), its curves at this batch and the batch scan."""
    table = budget_table(lang, draft, k, d)
    # On the GPUs the weights need, as the `onebyone`, `batch` and `idle` sections (the 70B on two
    # 80 GB GPUs).
    n = shared.weight_gpus(roofline.GPUS[gpu], roofline.MODELS[model])
    return {"table": table, "curves": trees.curves(table, gpu, model, batch, ctx, c, gpus=n),
            "batch_scan": trees.batch_scan(table, gpu, model, ctx, c, gpus=n)}


def method_name(m: str) -> str:
    return {"chain": _("chain of sampled guesses"), "greedy_chain": _("chain of the draft's likeliest"),
            "topk": _("top-k tree"), "dynamic": _("dynamic tree (EAGLE-2)"),
            "best": _("best shape, likeliest tokens"), "sequoia": _("best shape, sampled (Sequoia)")}[m]


def story_name(m: str) -> str:
    """The method's name at the Story depth, where "k" means nothing yet (issue 24, S3)."""
    return _("tree of the draft's few likeliest tokens") if m == "topk" else method_name(m)


def _rounded(xs, digits: int = 4) -> list:
    return [None if x is None else round(float(x), digits) for x in xs]


def budget_part(lang: str, v: dict) -> dict:
    b = budget_json(lang, v["draft"], v["k"], v["d"], v["gpu"], v["model"], v["batch"], v["ctx"], v["c"])
    cu, scan = b["curves"], b["batch_scan"]
    n = v["n"]
    methods = {}
    for m in METHODS:
        cm = cu["methods"][m]
        methods[m] = {"name": method_name(m), "name_story": story_name(m), "drawn": m in CHART_METHODS, "how": cm["how"],
                      "best_n": cm["best_n"], "best_speedup": cm["best_speedup"],
                      # For the chart, to four decimals (it shows two; the page weighs less).
                      "tokens": _rounded(cm["tokens"]), "speedup": _rounded(cm["speedup"]),
                      "at_n": {"tokens": cm["tokens"][n - 1], "speedup": cm["speedup"][n - 1]}}
    verdict = None
    if cu["fits"]:
        verdict = {**{k_: cu[k_] for k_ in ("tree_beats_chain", "tree_over_chain")},
                   "best_chain": {**cu["best_chain"], "name": method_name(cu["best_chain"]["method"]),
                                  "name_story": story_name(cu["best_chain"]["method"])},
                   "best_tree": {**cu["best_tree"], "name": method_name(cu["best_tree"]["method"]),
                                 "name_story": story_name(cu["best_tree"]["method"])}}
    rows = [{"batch": r["batch"], "n_fit": r["n_fit"], "tree_beats_chain": r["tree_beats_chain"],
             "best_chain": {**r["best_chain"], "name": method_name(r["best_chain"]["method"]),
                            "name_story": story_name(r["best_chain"]["method"])},
             "best_tree": {**r["best_tree"], "name": method_name(r["best_tree"]["method"]),
                           "name_story": story_name(r["best_tree"]["method"])}} for r in scan["rows"]]
    stop, full = scan["trees_stop_paying_batch"], scan["stops_fitting_batch"]
    # Which sentence says where trees stop paying: from some batch; not even at batch 1; still
    # paying where memory runs out; still paying at the largest batch scanned; nothing fits.
    case = ("none" if not rows else "never" if stop == rows[0]["batch"] else "stop" if stop is not None
            else "memory" if full is not None else "always")
    g, m = roofline.GPUS[v["gpu"]], roofline.MODELS[v["model"]]
    # The `idle` section's best chain for the same inputs (sampled guesses, γ ≤ 16): the same figure as
    # this section's chain of sampled guesses when its best budget is at most 16.
    s9 = section9_best(lang, v)
    chain_m = cu["methods"]["chain"]
    chain_n, topk_n = cu["methods"]["chain"]["tokens"][n - 1], cu["methods"]["topk"]["tokens"][n - 1]
    ns = sorted(set(TABLE_NS) | {n})
    return {
        "gpu": {"key": g.key, "label": g.label}, "model": {"key": m.key, "label": m.label},
        "n": n, "batch": v["batch"], "ctx": v["ctx"], "c": v["c"], "k": v["k"], "d": v["d"],
        "draft_name": shared.draft_name(v["draft"]),
        "alpha": b["table"]["alpha"], "contexts": b["table"]["contexts"], "p1": b["table"]["acceptance"][1],
        # Sampled guesses against the draft's likeliest: which writes more at the reader's n.
        "likeliest_below_sampled": topk_n < chain_n,
        "budgets": cu["n"], "t_ratio": _rounded(cu["t_ratio"]), "fits": cu["fits"], "n_fit": cu["n_fit"],
        "n_fits": cu["fits"] and n <= cu["n_fit"], "max_batch": cu["max_batch"],
        "methods": methods, "verdict": verdict,
        "capacity": capacity(v["gpu"], v["model"], v["batch"], v["ctx"]),
        "section9": s9,
        # Why this section's best chain is not the `idle` section's: it takes the draft's likeliest tokens.
        "likeliest_chain_wins": bool(verdict and verdict["best_chain"]["method"] == "greedy_chain"),
        # A depth limit shorter than the best chain caps every tree (a chain is a tree).
        "depth_capped": bool(verdict and not verdict["tree_beats_chain"]
                             and v["d"] < (chain_m["best_n"] or 0)),
        "scan": {"rows": rows, "trees_stop": stop, "spec_stop": scan["speculation_stops_paying_batch"],
                 "stops_fitting": full, "max_batch": scan["max_batch"], "case": case,
                 "last": rows[-1]["batch"] if rows else None},
        "table_rows": [{"n": x, **{mm: {"tokens": cu["methods"][mm]["tokens"][x - 1],
                                        "speedup": cu["methods"][mm]["speedup"][x - 1]} for mm in CHART_METHODS}}
                       for x in ns],
    }


ANSWERS = {"trees.pass": pass_part, "trees.tubes": tubes_part, "trees.budget": budget_part}
