"""Numbers for the roofline sections (1 onebyone, 2 batch, 9 idle, 10 selfdraft, 11 reader).

`compute(...)` is shared by the page (server-side rendering, `d["roofline"]`) and by
`/api/roofline`, so the no-script view and the live widgets show the same figures from
`sim.roofline`. Units are converted here for display (GB, ms, TB/s); the arithmetic is in `sim`.

Memory capacity (issue 12): every curve over batch carries `fits` (one bool per stop), `n_fit`
(how many of its first stops fit: draw only those) and `max_batch` (the limit to mark; None when
memory sets none, i.e. no cache); `capacity` says whether the state's streams fit one GPU and how
many GPUs the model needs split by tensor parallelism. A model whose weights do not fit one GPU
(Llama 3.1 70B on an 80 GB GPU) is shown split over the fewest GPUs that hold them (`gpus`, the
tensor-parallel size of sim.roofline.tp_degree): the `batch` and `idle` sections draw their curves on those GPUs,
and end them where the streams stop fitting there. Speed-ups do not depend on the number of GPUs
(every time divides by it), so only speeds and limits change. `published` holds real engines'
figures (sim.published) to draw beside the ideal; `efficiency` (the page's `eff`) scales every
speed of the `onebyone`, `batch` and `idle` sections and none of their speed-ups.
"""
from __future__ import annotations

import math

from sim import published, roofline
from sim.params import BATCH_STOPS, CTX_STOPS, LANE_STOPS, PAGE
from views.sections.shared import measured_alpha, weight_gpus

DEFAULTS = {n: PAGE[n].default for n in ("gpu", "model", "batch", "ctx", "lanes", "gamma", "c")}
DEFAULTS["alpha"] = 0.6   # where nothing is measured (the API's default)

# The `idle` section's second chart: speed-up against batch at these contexts (tokens per stream), from
# weights only to Llama 3.1's 128K window, to show long contexts bringing the gain back.
IDLE_CONTEXTS = (0, 1024, 4096, 32768)

# The `trees` section draws this many lanes; the rest are counted beside the drawing ("+ N more lanes").
LANES_SHOWN = 16

_GB = 1e9
_KB = 1e3

# The papers' numbers quoted in the `idle` and `selfdraft` sections (each written once, with its source).
PAPERS = {
    # Leviathan, Kalman, Matias 2023, arXiv:2211.17192, section 3.5 (arithmetic) and eq. 1.
    "leviathan_alpha": 0.6, "leviathan_gamma": 2,
    # Li et al. 2024, EAGLE, arXiv:2401.15077, Table 7: LLaMA2-Chat 70B speed-up by batch size.
    "eagle_batch1": 3.01, "eagle_batch4": 2.40,
    # EAGLE abstract: 2.7x-3.5x latency speed-up on LLaMA2-Chat 70B.
    "eagle_lo": 2.7, "eagle_hi": 3.5,
    # Sadhukhan et al. 2024, MagicDec, arXiv:2408.11049 v5: up to 2.51x at batch 32-256.
    "magicdec_speedup": 2.51, "magicdec_batch_lo": 32, "magicdec_batch_hi": 256,
    # Cai et al. 2024, Medusa, arXiv:2401.10774: Medusa-1 over 2.2x; Medusa-2 2.3-2.8x
    # (paper abstract and Table 1).
    "medusa1": 2.2, "medusa2_lo": 2.3, "medusa2_hi": 2.8,
    # The abstract on the arXiv listing (arxiv.org/abs/2401.10774) says 2.3-3.6x for Medusa-2 instead.
    "medusa2_listing_hi": 3.6,
    # Fu et al. 2024, lookahead decoding, arXiv:2402.02057: up to 1.8x on MT-bench (one GPU);
    # extra arithmetic per step about 120x / 80x / 56x for 7B / 13B / 34B on an A100.
    "lookahead_speedup": 1.8, "lookahead_ops_7b": 120, "lookahead_ops_13b": 80,
    "lookahead_ops_34b": 56,
}


def _gpu_info(g: roofline.GPU) -> dict:
    return {"key": g.key, "label": g.label, "bandwidth_tb_s": g.bandwidth / 1e12,
            "peak_tflops": g.peak_flops / 1e12, "source": g.source,
            "memory_gb": g.memory / _GB, "memory_unit": roofline.MEMORY_UNIT}


def _fit(rows: list[dict], limit: int | None, at_limit: dict | None = None) -> dict:
    """Where a curve over BATCH_STOPS ends: the stops fit up to the limit (fitting is monotone in
    the batch, so the ones that fit are the first n_fit); ``at_limit`` is the curve's point at
    the limit itself (None when there is none to draw), so a line can end exactly there."""
    fits = [r["fits"] for r in rows]
    return {"fits": fits, "n_fit": sum(fits), "max_batch": limit, "at_limit": at_limit}


def _limit_point(g, m, ctx: int, limit: int | None, keys: dict, **spec) -> dict | None:
    """The row of a batch curve at ``limit`` streams, renamed by ``keys`` (curve key: row key)."""
    if not limit:
        return None
    row = roofline.batch_curve(g, m, ctx, [limit], **spec)[0]
    return {"batch": limit, **{k: row[v] for k, v in keys.items()}}


def _capacity(g, m, batch: int, ctx: int) -> dict:
    f = roofline.fits(g, m, batch, ctx)
    tp = roofline.tp_degree(g, m, batch, ctx)
    tp_w = roofline.tp_degree(g, m, 1, 0)
    n = weight_gpus(g, m)
    on = roofline.fits(g, m, batch, ctx, gpus=n)
    return {
        "memory_gb": g.memory / _GB,
        "unit": roofline.MEMORY_UNIT,
        "tp_assumes": roofline.TENSOR_PARALLEL_ASSUMES,
        # The weights alone, on one GPU; and the GPUs (tensor-parallel size) they need.
        "weights_fit": roofline.fits(g, m, 0, 0)["fits"],
        "gpus_for_weights": roofline.gpus_needed(g, m, 1, 0),
        "tp_for_weights": tp_w,
        # The state's batch × ctx streams with the weights, on one GPU.
        "fits": f["fits"], "need_gb": f["need_bytes"] / _GB, "share": f["share"],
        "gpus_needed": roofline.gpus_needed(g, m, batch, ctx),
        "tp": tp,   # None: more GPUs than key/value heads (not split by tensor parallelism alone)
        "max_batch_at_ctx": roofline.max_batch(g, m, ctx),          # None: no cache, no limit
        "max_ctx_at_batch": roofline.max_context(g, m, batch),      # None: weights do not fit
        "max_batch_at_ctx_tp": roofline.max_batch(g, m, ctx, gpus=tp) if tp else None,
        # On the GPUs the page splits the model over (the weights' own, `gpus`).
        "gpus": n, "memory_gb_on_gpus": g.memory * n / _GB,
        "fits_on_gpus": on["fits"], "share_on_gpus": on["share"],
        "weights_gb": f["weight_bytes"] / _GB, "kv_gb": f["kv_bytes"] / _GB,
        "max_batch_on_gpus": roofline.max_batch(g, m, ctx, gpus=n),
        "max_ctx_on_gpus": roofline.max_context(g, m, batch, gpus=n),
    }


def capacity(gpu: str, model: str, batch: int, ctx: int) -> dict:
    """``_capacity`` by preset keys: whether a section's streams fit, in the `batch` section's terms."""
    return _capacity(roofline.GPUS[gpu], roofline.MODELS[model], batch, ctx)


def section9_best(lang: str, v: dict) -> dict:
    """The `idle` section's best γ for a state (the pair's α; the `idle` section reads ``alpha`` only when pinned,
    and a state without it is what every other section sees)."""
    g, m = roofline.GPUS[v["gpu"]], roofline.MODELS[v["model"]]
    a = measured_alpha(lang, {"draft": v["draft"], "greedy": False})
    return roofline.best_gamma_edge(g, m, v["batch"], v["ctx"], a, v["c"])


def _presets(m) -> list[dict]:
    """Every GPU preset's memory and bandwidth, and how many of it the model's weights need."""
    return [{"key": g.key, "label": g.label, "memory_gb": g.memory / _GB,
             "bandwidth_tb_s": g.bandwidth / 1e12, "weights_fit": roofline.fits(g, m, 0, 0)["fits"],
             "gpus": weight_gpus(g, m), "tp": roofline.tp_degree(g, m, 1, 0)}
            for g in roofline.GPUS.values()]


def _achievable(g) -> dict | None:
    """The memory bandwidth measured on this GPU (sim.roofline.achievable_bandwidth), in TB/s, and
    its share of the datasheet's, to two decimals as the efficiency control takes it."""
    a = roofline.achievable_bandwidth(g)
    if a is None:
        return None
    return {"lo_tb_s": a["lo"] / 1e12, "hi_tb_s": a["hi"] / 1e12, "share": a["share"],
            "eff": round(a["share"], 2), "source": a["source"]}


def _engine(efficiency: float, g=None) -> dict:
    """The engine efficiency in use (1.0: the ideal) and the one a published engine measured;
    ``which`` names the line the control is on: the datasheet's ideal, the bandwidth the memory
    was measured to deliver on this GPU, a published engine, or a value of the reader's own."""
    measured = published.engine_efficiency()
    ach = _achievable(g) if g is not None else None
    which = ("ideal" if efficiency == 1.0 else
             "achievable" if ach and efficiency == ach["eff"] else
             "engine" if efficiency == round(measured, 2) else "own")
    return {"efficiency": efficiency, "ideal": efficiency == 1.0, "which": which,
            # The share a published plain engine reached (SGLang, H100, 8B, batch 1).
            "measured": measured, "measured_eff": round(measured, 2), "measured_key": "sglang-8b-h100",
            "achievable": ach}


def _model_info(m: roofline.Model) -> dict:
    return {"key": m.key, "label": m.label, "params": m.params,
            "params_b": m.params / 1e9, "bytes_per_number": m.bytes_per_number,
            "weight_gb": roofline.weight_bytes(m) / _GB,
            "kv_kb_per_token": roofline.kv_bytes_per_token(m) / _KB, "source": m.source}


def _published(g, m, section: int) -> list[dict]:
    """The published measurements a section draws (sim.published); `matches` says whether it was
    measured on the chosen GPU and model (then it is drawn on the chart; the others are listed
    only)."""
    rows = [r for r in published.to_json(g.key, m.key) if section in r["sections"]]
    for r in rows:
        # A slow-down as its source states it ("1.4x slowdown"), beside the speed-up 1/1.4.
        r["slowdown"] = 1.0 / r["speedup"] if r["speedup"] and r["speedup"] < 1.0 else None
    return rows


def _onebyone(g, m, efficiency: float = 1.0) -> dict:
    s = roofline.decode_step(g, m, batch=1, context=0, efficiency=efficiency)
    ideal = roofline.decode_step(g, m, batch=1, context=0)
    tp = roofline.tp_degree(g, m, 1, 0)
    split = roofline.decode_step(g, m, 1, 0, gpus=tp, efficiency=efficiency) if tp else None
    rows = _published(g, m, 1)
    # The single stream's speed shown: on one GPU when the weights fit, else on the GPUs they need.
    shown = s if s["fits"] or split is None else split
    return {
        "fits": s["fits"],
        # Split by tensor parallelism over the GPUs the weights need (1 when they fit one).
        "tp": tp,
        "tp_ms_per_token": split["ms_per_step"] if split else None,
        "tp_tokens_per_s": split["tokens_per_s"] if split else None,
        "gpus": shown["gpus"],
        "shown_ms_per_token": shown["ms_per_step"],
        "shown_tokens_per_s": shown["tokens_per_s"],
        # The roofline's ceiling without an engine's losses (the same as tokens_per_s at eff 1).
        "ideal_tokens_per_s": ideal["tokens_per_s"] * shown["gpus"],
        "ideal_ms_per_token": ideal["ms_per_step"] / shown["gpus"],
        # At the bandwidth the memory was measured to deliver (None: no measurement on this GPU).
        "achievable_tokens_per_s": (ideal["tokens_per_s"] * shown["gpus"] * _achievable(g)["share"]
                                    if _achievable(g) else None),
        # A step reads one row of the input embedding, not the table (the Frontier note).
        "embedding_row": _embedding(g, m),
        "published": rows,
        # Drawn beside the ideal: measured on this GPU and model.
        "drawn": [r for r in rows if r["matches"]],
        "weight_gb": s["weight_bytes"] / _GB,
        "ms_per_token": s["ms_per_step"],
        "tokens_per_s": s["tokens_per_s"],
        "gflop": s["flops"] / 1e9,
        # On the GPUs the step is shown on (each works out its slice), as the time per token is.
        "compute_us": s["t_compute_s"] * 1e6 / shown["gpus"],
        "busy": s["arithmetic_busy"],
        "idle": 1.0 - s["arithmetic_busy"],
        "intensity": s["intensity_ops_per_byte"],
        "ridge": s["ridge_ops_per_byte"],
    }


def _embedding(g, m) -> dict:
    e = roofline.embedding_row(g, m)
    return {"embedding_gb": e["embedding_bytes"] / _GB, "unread_gb": e["unread_bytes"] / _GB,
            "gb_read": e["bytes_read"] / _GB, "ms_per_token": e["ms_per_token"],
            "tokens_per_s": e["tokens_per_s"], "tied": m.tied,
            "saved": 1.0 - e["bytes_read"] / e["bytes_simple"]}


def _batch(g, m, batch: int, ctx: int, efficiency: float = 1.0, gpus: int = 1) -> dict:
    """The `batch` section on `gpus` GPUs (the weights' own: 1 unless they do not fit one)."""
    run = {"gpus": gpus, "efficiency": efficiency}
    w = roofline.decode_step(g, m, batch=batch, context=0, **run)
    k = roofline.decode_step(g, m, batch=batch, context=ctx, **run)
    curve_w = roofline.batch_curve(g, m, 0, BATCH_STOPS, **run)
    curve_k = roofline.batch_curve(g, m, ctx, BATCH_STOPS, **run)
    limit = roofline.max_batch(g, m, ctx, gpus=gpus)
    # Throughput once the arithmetic, not the reading, sets the time: peak / (2 * params).
    ceiling = g.peak_flops * gpus * efficiency / (roofline.FLOPS_PER_PARAM * m.params)
    return {
        "batch": batch, "ctx": ctx, "gpus": gpus, "efficiency": efficiency,
        "weights_gb": w["weight_bytes"] / _GB,
        "kv_gb": k["kv_bytes"] / _GB,
        "total_gb": k["bytes_per_step"] / _GB,
        "kv_share": k["kv_bytes"] / k["bytes_per_step"],
        "stream_kv_gb": ctx * k["kv_bytes_per_token"] / _GB,
        "memory_gb": k["memory_bytes"] / _GB,
        "weights_only": {"tokens_per_s": w["tokens_per_s"], "ms_per_step": w["ms_per_step"],
                         "busy": w["arithmetic_busy"], "bound": w["bound"],
                         "speedup_vs_one": w["tokens_per_s"] / roofline.decode_step(
                             g, m, 1, 0, **run)["tokens_per_s"]},
        "with_cache": {"tokens_per_s": k["tokens_per_s"], "ms_per_step": k["ms_per_step"],
                       "busy": k["arithmetic_busy"], "bound": k["bound"]},
        "ceiling_tokens_per_s": ceiling,
        "curve": {
            "batches": list(BATCH_STOPS),
            "weights_only": [r["tokens_per_s"] for r in curve_w],
            "with_cache": [r["tokens_per_s"] for r in curve_k],
            # Where each curve ends (the streams stop fitting the GPUs).
            "weights_only_fit": _fit(curve_w, roofline.max_batch(g, m, 0, gpus=gpus)),
            "with_cache_fit": _fit(curve_k, limit, _limit_point(
                g, m, ctx, limit, {"with_cache": "tokens_per_s"}, **run)),
        },
        "fits": k["fits"],
        "max_batch": limit,
        "max_ctx": roofline.max_context(g, m, batch, gpus=gpus),
        "published": _published(g, m, 2),
    }


def _idle(g, m, batch: int, ctx: int, gamma: int, alpha: float, c: float,
          efficiency: float = 1.0, gpus: int = 1) -> dict:
    """The `idle` section on `gpus` GPUs (the weights' own). Speed-ups, break-even batches and the best γ
    do not depend on the GPUs or the efficiency (every time divides by both); speeds and where
    the streams stop fitting do."""
    run = {"gpus": gpus, "efficiency": efficiency}
    s = roofline.speculative(g, m, batch, ctx, gamma, alpha, c, **run)
    best = roofline.best_gamma_edge(g, m, batch, ctx, alpha, c)
    curve = roofline.batch_curve(g, m, ctx, BATCH_STOPS, gamma=gamma, alpha=alpha, c=c, **run)
    limit = roofline.max_batch(g, m, ctx, gpus=gpus)
    contexts = []
    for t in IDLE_CONTEXTS:
        rows = roofline.batch_curve(g, m, t, BATCH_STOPS, gamma=gamma, alpha=alpha, c=c, gpus=gpus)
        lim = roofline.max_batch(g, m, t, gpus=gpus)
        be = roofline.breakeven_batch(g, m, t, gamma, alpha, c)
        contexts.append({"ctx": t, "speedup": [r["speedup"] for r in rows], "breakeven": be,
                         "never": be is None,
                         # The break-even batch is only reached if that many streams fit.
                         "breakeven_fits": be is not None and (lim is None or be <= lim),
                         **_fit(rows, lim, _limit_point(g, m, t, lim, {"speedup": "speedup"},
                                                        gamma=gamma, alpha=alpha, c=c, gpus=gpus))})
    la, lg = PAPERS["leviathan_alpha"], PAPERS["leviathan_gamma"]
    breakeven = roofline.breakeven_batch(g, m, ctx, gamma, alpha, c)
    breakeven_fits = breakeven is not None and (limit is None or breakeven <= limit)
    return {
        "batch": batch, "ctx": ctx, "gamma": gamma, "alpha": alpha, "c": c,
        "gpus": gpus, "efficiency": efficiency,
        "tokens_per_s_plain": s["tokens_per_s_plain"],
        "tokens_per_s_spec": s["tokens_per_s_spec"],
        "speedup": s["speedup"],
        "pays": s["speedup"] > 1.0,
        "expected_tokens": s["expected_tokens"],
        "busy_plain": s["arithmetic_busy_plain"],
        "busy_verify": s["arithmetic_busy_verify"],
        "bound_verify": s["bound_verify"],
        "extra_arithmetic": s["extra_arithmetic"],
        "breakeven": breakeven,
        # Which sentence describes the break-even batch: it pays at every batch ("always"),
        # not even for one stream ("never"), up to some batch ("from"), or up to a batch beyond
        # the streams that fit ("beyond": it pays at every batch that fits).
        # "nofit": not one stream of this length fits, so no batch to speak of (never "up to 0").
        "breakeven_case": ("nofit" if limit == 0 else "always" if breakeven is None
                           else "never" if breakeven <= 1
                           else "from" if breakeven_fits else "beyond"),
        # One answer (γ 0 and 1.0× where no γ ≥ 1 beats plain decoding), in both forms.
        "best_gamma": best["gamma"],
        "best_speedup": best["speedup"],
        # The same, with the search's edges named: {"gamma", "speedup", "edge": None | "rising"
        # (still rising at γ 16) | "plain" (γ 0: no γ ≥ 1 beats plain decoding)}.
        "best": best,
        "fits": s["fits"],
        "max_batch": limit,
        "breakeven_fits": breakeven_fits,
        # Leviathan et al.'s worked example, from the same formulas (c = 0: draft left out).
        "leviathan_extra": roofline.extra_arithmetic(la, lg),
        "leviathan_speed": roofline.expected_tokens(la, lg),
        "curve": {
            "batches": list(BATCH_STOPS),
            "plain": [r["tokens_per_s"] for r in curve],
            "spec": [r["tokens_per_s_spec"] for r in curve],
            **_fit(curve, limit, _limit_point(
                g, m, ctx, limit,
                {"plain": "tokens_per_s", "spec": "tokens_per_s_spec", "speedup": "speedup"},
                gamma=gamma, alpha=alpha, c=c, **run)),
        },
        "contexts": contexts,
        "published": _published(g, m, 9),
    }


def _reader(g, m, n: int) -> dict:
    """The `reader` section. The step time is on the GPUs the weights need (as the `onebyone` section quotes it: the 70B
    on two 80 GB GPUs); the busy share and the lanes to keep up do not depend on their number."""
    r = roofline.lanes(g, m, n)
    k = weight_gpus(g, m)
    return {"lanes": n, "busy": r["arithmetic_busy"], "keep_up": r["lanes_to_keep_up"],
            # "busy only 99.9 %" reads wrong: past half busy the prose says "already".
            "mostly_busy": r["arithmetic_busy"] >= 0.5,
            "keep_up_whole": r["lanes_to_keep_up_whole"], "ridge": r["ridge_ops_per_byte"],
            "intensity": r["intensity_ops_per_byte"], "bound": r["bound"], "gpus": k,
            # The step time: flat (one read of the weights) until the lanes keep up, then rising.
            "idle": r["idle"], "ms_per_step": r["ms_per_step"] / k, "ms_flat": r["ms_flat"] / k,
            "step_ratio": r["step_ratio"], "past_ridge": r["past_ridge"],
            # Lanes drawn in the figure; the rest are counted beside it.
            "shown": min(n, LANES_SHOWN), "more": max(0, n - LANES_SHOWN),
            "curve": {"lanes": list(LANE_STOPS),
                      "ms_per_step": [roofline.lanes(g, m, j)["ms_per_step"] / k for j in LANE_STOPS],
                      # Where each lane count sits on a log axis from 1 to the most lanes (0..1),
                      # for the server's drawing of the step time; the lanes lit, the ridge.
                      "at": [_log_at(j) for j in LANE_STOPS], "at_lanes": _log_at(n),
                      "at_keep_up": _log_at(r["lanes_to_keep_up"]),
                      "ms_max": roofline.lanes(g, m, LANE_STOPS[-1])["ms_per_step"] / k}}


def _log_at(n: float) -> float:
    return min(1.0, math.log(n) / math.log(LANE_STOPS[-1]))


def _selfdraft(g, m) -> dict:
    # Lookahead's extra arithmetic, read as lanes sharing one read of the chosen model's weights.
    n = PAPERS["lookahead_ops_7b"]
    return {"lookahead_lanes": n, "lookahead_busy": roofline.lanes(g, m, n)["arithmetic_busy"]}


def compute(gpu: str = "h100-sxm", model: str = "llama-3.1-8b", batch: int = 64,
            ctx: int = 4096, lanes: int = 9, gamma: int = 4, alpha: float = 0.6,
            c: float = 0.1, efficiency: float = 1.0) -> dict:
    """Everything the five sections show, for one validated state. ``efficiency`` (a share of
    the roofline's speed, 1.0 = the ideal) scales the speeds of the `onebyone`, `batch` and `idle` sections; off by
    default, and the speed-ups do not change with it. The `batch` and `idle` sections run on the GPUs the
    weights need (`weight_gpus`)."""
    g, m = roofline.GPUS[gpu], roofline.MODELS[model]
    n = weight_gpus(g, m)
    return {
        "state": {"gpu": gpu, "model": model, "batch": batch, "ctx": ctx, "lanes": lanes,
                  "gamma": gamma, "alpha": alpha, "c": c, "eff": efficiency},
        "gpu": _gpu_info(g),
        "model": _model_info(m),
        "onebyone": _onebyone(g, m, efficiency),
        "batch": _batch(g, m, batch, ctx, efficiency, n),
        "idle": _idle(g, m, batch, ctx, gamma, alpha, c, efficiency, n),
        "reader": _reader(g, m, lanes),
        "selfdraft": _selfdraft(g, m),
        "papers": PAPERS,
        "capacity": _capacity(g, m, batch, ctx),
        "presets": _presets(m),
        "engine": _engine(efficiency, g),
        "published": published.to_json(gpu, model),
    }


def options() -> dict:
    """Choices for the pickers and slider stops (static for a run of the app)."""
    return {
        "gpus": [(k, g.label) for k, g in roofline.GPUS.items()],
        "models": [(k, m.label) for k, m in roofline.MODELS.items()],
        "batch_stops": list(BATCH_STOPS), "ctx_stops": list(CTX_STOPS),
        "lane_stops": list(LANE_STOPS), "idle_contexts": list(IDLE_CONTEXTS),
    }


# ---- one answer per section (the page, and /api/section/<anchor>) --------------------------------

def _picked(v: dict):
    g, m = roofline.GPUS[v["gpu"]], roofline.MODELS[v["model"]]
    return g, m, {"gpu": _gpu_info(g), "model": _model_info(m)}


def onebyone(lang: str, v: dict) -> dict:
    g, m, out = _picked(v)
    return {**out, "onebyone": _onebyone(g, m, v["eff"]), "capacity": _capacity(g, m, 1, 0),
            "presets": _presets(m), "engine": _engine(v["eff"], g)}


def batch(lang: str, v: dict) -> dict:
    g, m, out = _picked(v)
    n = weight_gpus(g, m)
    return {**out, "batch": {**_batch(g, m, v["batch"], v["ctx"], v["eff"], n),
                             "ridge": roofline.ridge_ops_per_byte(g)},
            "capacity": _capacity(g, m, v["batch"], v["ctx"]), "engine": _engine(v["eff"], g)}


def idle(lang: str, v: dict) -> dict:
    """The `idle` section starts from the α the `alpha` section measures for the chosen draft, unless one is set."""
    g, m, out = _picked(v)
    alpha = measured_alpha(lang, v) if v["alpha"] is None else v["alpha"]
    n = weight_gpus(g, m)
    return {**out, "measured": v["alpha"] is None,
            "idle": _idle(g, m, v["batch"], v["ctx"], v["gamma"], alpha, v["c"], v["eff"], n),
            "capacity": _capacity(g, m, v["batch"], v["ctx"]), "engine": _engine(v["eff"], g),
            "papers": PAPERS}


def selfdraft(lang: str, v: dict) -> dict:
    g, m, out = _picked(v)
    return {**out, "selfdraft": _selfdraft(g, m), "papers": PAPERS}


def reader(lang: str, v: dict) -> dict:
    g, m, out = _picked(v)
    return {**out, "reader": _reader(g, m, v["lanes"])}


ANSWERS = {"onebyone": onebyone, "batch": batch, "idle": idle, "selfdraft": selfdraft, "reader": reader}
