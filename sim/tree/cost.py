"""Trees on the roofline: what a pass over n guesses costs, and where a tree beats a chain.

Sequoia (Chen et al. 2024, arXiv:2402.12374), §4.1, hardware-aware optimisation:

    speed-up(n, d) = G(n, d) / (t(n) + d · c)

G the tokens a pass writes on average (``sim.tree.budget``), t(n) the time the target takes to
verify the tree over the time it takes for one token, c the time the draft takes for one level of
guesses over that same time (the draft runs once per level, so d levels cost d · c). Here t comes
from the roofline (``sim.roofline.decode_step``): a pass over n guesses works out n + 1 positions per
stream (the guesses and the last token written, as a chain of γ guesses works out γ + 1), at the
given batch and context, against a plain step's one. At batch 1 the weights dominate and extra
positions are nearly free until the arithmetic reaches the ridge point; in a large batch every
position costs arithmetic, so t(n) grows with n and wide trees stop paying. For a chain this is
exactly ``sim.roofline.speculative``'s speed-up.

Memory capacity (``sim.roofline.fits``): a pass over n guesses keeps n more positions per stream in
the key/value cache while it is checked, so ``batch`` streams of ``context`` tokens fit a tree of n
guesses only if ``batch`` streams of context + n tokens fit beside the weights. Curves end at the
largest budget that fits (``n_fit``; −1 when not even plain decoding fits), best budgets are chosen
among those, and the batch scan ends where the streams stop fitting.
"""
from __future__ import annotations

import math

from .. import roofline
from .shape import N_MAX

CHAINS = ("chain", "greedy_chain")
TREES = ("topk", "dynamic", "best", "sequoia")
METHODS = CHAINS + TREES
BATCHES = tuple(2 ** i for i in range(11))   # 1 .. 1024, the page's batch range
TIE = 1e-9                                    # a tree "beats" a chain only by more than rounding


def _c(c) -> float:
    if isinstance(c, bool) or not isinstance(c, (int, float)) or not math.isfinite(c) or c < 0:
        raise ValueError(f"c must be a finite number >= 0, got {c!r}")
    return float(c)


def verify_ratios(gpu, model, batch: int, context: int, n_max: int = N_MAX) -> list[float]:
    """t(n) for n = 0..n_max: a pass over n + 1 positions per stream over a plain step's time."""
    plain = roofline.decode_step(gpu, model, batch, context, positions=1)["ms_per_step"]
    return [roofline.decode_step(gpu, model, batch, context, positions=n + 1)["ms_per_step"] / plain
            for n in range(n_max + 1)]


def pass_cost(gpu, model, batch: int, context: int, n: int, depth: float, c: float) -> dict:
    """One pass with n guesses d levels deep, in plain steps: t(n), d · c and their sum."""
    c = _c(c)
    if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= N_MAX:
        raise ValueError(f"n must be an integer from 0 to {N_MAX}, got {n!r}")
    plain = roofline.decode_step(gpu, model, batch, context, positions=1)
    verify = roofline.decode_step(gpu, model, batch, context, positions=n + 1)
    t = verify["ms_per_step"] / plain["ms_per_step"]
    return {"n": n, "depth": depth, "t_ratio": t, "draft": depth * c, "cost": t + depth * c,
            "ms_plain": plain["ms_per_step"], "ms_verify": verify["ms_per_step"],
            "bound_verify": verify["bound"]}


def speedup(tokens: float, gpu, model, batch: int, context: int, n: int, depth: float, c: float) -> float:
    """Sequoia §4.1: tokens per pass over the pass's cost in plain steps."""
    return tokens / pass_cost(gpu, model, batch, context, n, depth, c)["cost"]


def n_fit(gpu, model, batch: int, context: int, n_max: int = N_MAX, gpus: int = 1) -> int:
    """The largest budget n ≤ n_max whose pass fits in memory on ``gpus`` GPUs: ``batch`` streams
    of context + n cached tokens beside the weights (n = 0 is plain decoding); −1 when not even
    that fits (a page says "does not fit", never −1)."""
    most = roofline.max_context(gpu, model, batch, gpus=gpus)   # None: the weights alone do not fit
    if most is None or most < context:
        return -1
    return min(n_max, most - context)


def _best(table: dict, method: str, ratios: list[float], c: float, fit: int | None = None) -> tuple[int, float]:
    """The budget with the largest speed-up for one method (the smallest n among equals), among
    the budgets up to ``fit`` (all of them if None)."""
    rows = table[method]
    best = (0, 1.0)                   # n = 0: plain decoding
    for i, n in enumerate(table["n"]):
        if fit is not None and n > fit:
            break
        s = rows["tokens"][i] / (ratios[n] + rows["depth"][i] * c)
        if s > best[1] + TIE:
            best = (n, s)
    return best


def curves(table: dict, gpu, model, batch: int, context: int, c: float, gpus: int = 1) -> dict:
    """For every method and budget: tokens per pass, depth, t(n) and speed-up (None past the
    budgets that fit in memory, ``n_fit``); each method's best budget among those that fit; and
    whether the best tree beats the best chain here (by how much). When not even plain decoding
    fits (``fits`` false), every speed-up is None and there is no verdict."""
    c = _c(c)
    n_max = max(table["n"])
    ratios = verify_ratios(gpu, model, batch, context, n_max)
    fit = n_fit(gpu, model, batch, context, n_max, gpus)
    out = {"gpu": roofline._gpu(gpu).key, "model": roofline._model(model).key, "batch": batch,
           "context": context, "c": c, "n": table["n"], "t_ratio": [ratios[n] for n in table["n"]],
           "fits": fit >= 0, "n_fit": fit, "max_batch": roofline.max_batch(gpu, model, context, gpus=gpus),
           "gpus": gpus, "methods": {}}
    for m in METHODS:
        rows = table[m]
        sp = [rows["tokens"][i] / (ratios[n] + rows["depth"][i] * c) if n <= fit else None
              for i, n in enumerate(table["n"])]
        n_best, s_best = _best(table, m, ratios, c, fit) if fit >= 0 else (None, None)
        out["methods"][m] = {"tokens": rows["tokens"], "depth": rows["depth"], "speedup": sp,
                             "how": rows["how"], "best_n": n_best, "best_speedup": s_best}
    out.update(_verdict(out["methods"]) if fit >= 0 else
               {"best_chain": None, "best_tree": None, "tree_beats_chain": False, "tree_over_chain": None})
    return out


def _verdict(methods: dict) -> dict:
    chain = max(CHAINS, key=lambda m: methods[m]["best_speedup"])
    tree = max(TREES, key=lambda m: methods[m]["best_speedup"])
    sc, st = methods[chain]["best_speedup"], methods[tree]["best_speedup"]
    return {"best_chain": {"method": chain, "n": methods[chain]["best_n"], "speedup": sc},
            "best_tree": {"method": tree, "n": methods[tree]["best_n"], "speedup": st},
            "tree_beats_chain": st > sc + TIE, "tree_over_chain": st / sc}


def batch_scan(table: dict, gpu, model, context: int, c: float, batches=BATCHES, gpus: int = 1) -> dict:
    """The best chain and the best tree at each batch size where plain decoding fits in memory
    (the scan ends at the first batch that does not: ``stops_fitting_batch``; each row's budgets
    are those that fit there, ``n_fit``); the first of those batches from which no tree beats the
    best chain, and the first from which nothing beats plain decoding."""
    c = _c(c)
    n_max = max(table["n"])
    rows = []
    stops_fitting = None
    for b in batches:
        fit = n_fit(gpu, model, b, context, n_max, gpus)
        if fit < 0:
            stops_fitting = b
            break
        ratios = verify_ratios(gpu, model, b, context, n_max)
        best = {m: _best(table, m, ratios, c, fit) for m in METHODS}
        v = _verdict({m: {"best_n": n, "best_speedup": s} for m, (n, s) in best.items()})
        rows.append({"batch": b, "n_fit": fit, **v})
    trees_stop = next((r["batch"] for r in rows if not r["tree_beats_chain"]), None)
    spec_stop = next((r["batch"] for r in rows
                      if max(r["best_chain"]["speedup"], r["best_tree"]["speedup"]) <= 1.0 + TIE), None)
    return {"gpu": roofline._gpu(gpu).key, "model": roofline._model(model).key, "context": context,
            "c": c, "rows": rows, "trees_stop_paying_batch": trees_stop,
            "speculation_stops_paying_batch": spec_stop, "stops_fitting_batch": stops_fitting,
            "max_batch": roofline.max_batch(gpu, model, context, gpus=gpus)}
