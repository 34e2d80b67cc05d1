"""Numbers for the roofline sections (1 onebyone, 2 batch, 9 idle, 10 selfdraft, 11 reader).

`compute(...)` is shared by the page (server-side rendering, `d["roofline"]`) and by
`/api/roofline`, so the no-script view and the live widgets show the same figures from
`sim.roofline`. Units are converted here for display (GB, ms, TB/s); the arithmetic is in `sim`.

Memory capacity (issue 12): every curve over batch carries `fits` (one bool per stop), `n_fit`
(how many of its first stops fit: draw only those) and `max_batch` (the limit to mark; None when
memory sets none, i.e. no cache); `capacity` says whether the state's streams fit one GPU and how
many GPUs the model needs split by tensor parallelism. `published` holds real engines' figures
(sim.published) to draw beside the ideal.
"""
from __future__ import annotations

from sim import published, roofline

from sim.params import BATCH_STOPS, CTX_STOPS, LANE_STOPS, PAGE

DEFAULTS = {n: PAGE[n].default for n in ("gpu", "model", "batch", "ctx", "lanes", "gamma", "c")}
DEFAULTS["alpha"] = 0.6   # where nothing is measured (the API's default)

# Section 9's second chart: speed-up against batch at these contexts (tokens per stream), from
# weights only to Llama 3.1's 128K window, to show long contexts bringing the gain back.
IDLE_CONTEXTS = (0, 1024, 4096, 32768)

_GB = 1e9
_KB = 1e3

# The papers' numbers quoted in sections 9 and 10 (each written once, with its source).
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
    }


def _model_info(m: roofline.Model) -> dict:
    return {"key": m.key, "label": m.label, "params": m.params,
            "params_b": m.params / 1e9, "bytes_per_number": m.bytes_per_number,
            "weight_gb": roofline.weight_bytes(m) / _GB,
            "kv_kb_per_token": roofline.kv_bytes_per_token(m) / _KB, "source": m.source}


def _onebyone(g, m, efficiency: float = 1.0) -> dict:
    s = roofline.decode_step(g, m, batch=1, context=0, efficiency=efficiency)
    tp = roofline.tp_degree(g, m, 1, 0)
    split = roofline.decode_step(g, m, 1, 0, gpus=tp, efficiency=efficiency) if tp else None
    return {
        "fits": s["fits"],
        # Split by tensor parallelism over the GPUs the weights need (1 when they fit one).
        "tp": tp,
        "tp_ms_per_token": split["ms_per_step"] if split else None,
        "tp_tokens_per_s": split["tokens_per_s"] if split else None,
        # A step reads one row of the input embedding, not the table (the Frontier note).
        "embedding_row": _embedding(g, m),
        "published": [r for r in published.to_json(g.key, m.key) if 1 in r["sections"]],
        "weight_gb": s["weight_bytes"] / _GB,
        "ms_per_token": s["ms_per_step"],
        "tokens_per_s": s["tokens_per_s"],
        "gflop": s["flops"] / 1e9,
        "compute_us": s["t_compute_s"] * 1e6,
        "busy": s["arithmetic_busy"],
        "idle": 1.0 - s["arithmetic_busy"],
        "intensity": s["intensity_ops_per_byte"],
        "ridge": s["ridge_ops_per_byte"],
    }


def _embedding(g, m) -> dict:
    e = roofline.embedding_row(g, m)
    return {"embedding_gb": e["embedding_bytes"] / _GB, "unread_gb": e["unread_bytes"] / _GB,
            "gb_read": e["bytes_read"] / _GB, "ms_per_token": e["ms_per_token"],
            "tokens_per_s": e["tokens_per_s"], "tied": m.tied}


def _batch(g, m, batch: int, ctx: int, efficiency: float = 1.0) -> dict:
    w = roofline.decode_step(g, m, batch=batch, context=0, efficiency=efficiency)
    k = roofline.decode_step(g, m, batch=batch, context=ctx, efficiency=efficiency)
    curve_w = roofline.batch_curve(g, m, 0, BATCH_STOPS, efficiency=efficiency)
    curve_k = roofline.batch_curve(g, m, ctx, BATCH_STOPS, efficiency=efficiency)
    # Throughput once the arithmetic, not the reading, sets the time: peak / (2 * params).
    ceiling = g.peak_flops / (roofline.FLOPS_PER_PARAM * m.params)
    return {
        "batch": batch, "ctx": ctx,
        "weights_gb": w["weight_bytes"] / _GB,
        "kv_gb": k["kv_bytes"] / _GB,
        "total_gb": k["bytes_per_step"] / _GB,
        "kv_share": k["kv_bytes"] / k["bytes_per_step"],
        "stream_kv_gb": ctx * k["kv_bytes_per_token"] / _GB,
        "weights_only": {"tokens_per_s": w["tokens_per_s"], "ms_per_step": w["ms_per_step"],
                         "busy": w["arithmetic_busy"], "bound": w["bound"],
                         "speedup_vs_one": w["tokens_per_s"] / roofline.decode_step(
                             g, m, 1, 0, efficiency=efficiency)["tokens_per_s"]},
        "with_cache": {"tokens_per_s": k["tokens_per_s"], "ms_per_step": k["ms_per_step"],
                       "busy": k["arithmetic_busy"], "bound": k["bound"]},
        "ceiling_tokens_per_s": ceiling,
        "curve": {
            "batches": list(BATCH_STOPS),
            "weights_only": [r["tokens_per_s"] for r in curve_w],
            "with_cache": [r["tokens_per_s"] for r in curve_k],
            # Where each curve ends (the streams stop fitting one GPU).
            "weights_only_fit": _fit(curve_w, roofline.max_batch(g, m, 0)),
            "with_cache_fit": _fit(curve_k, roofline.max_batch(g, m, ctx), _limit_point(
                g, m, ctx, roofline.max_batch(g, m, ctx), {"with_cache": "tokens_per_s"},
                efficiency=efficiency)),
        },
        "fits": k["fits"],
        "max_batch": roofline.max_batch(g, m, ctx),
        "max_ctx": roofline.max_context(g, m, batch),
        "published": [r for r in published.to_json(g.key, m.key) if 2 in r["sections"]],
    }


def _idle(g, m, batch: int, ctx: int, gamma: int, alpha: float, c: float,
          efficiency: float = 1.0) -> dict:
    s = roofline.speculative(g, m, batch, ctx, gamma, alpha, c, efficiency=efficiency)
    best_g, best_s = roofline.best_gamma(g, m, batch, ctx, alpha, c)
    curve = roofline.batch_curve(g, m, ctx, BATCH_STOPS, gamma=gamma, alpha=alpha, c=c,
                                 efficiency=efficiency)
    contexts = []
    for t in IDLE_CONTEXTS:
        rows = roofline.batch_curve(g, m, t, BATCH_STOPS, gamma=gamma, alpha=alpha, c=c)
        limit = roofline.max_batch(g, m, t)
        contexts.append({"ctx": t, "speedup": [r["speedup"] for r in rows],
                         "never": roofline.breakeven_batch(g, m, t, gamma, alpha, c) is None,
                         "breakeven": roofline.breakeven_batch(g, m, t, gamma, alpha, c),
                         **_fit(rows, limit, _limit_point(g, m, t, limit, {"speedup": "speedup"},
                                                          gamma=gamma, alpha=alpha, c=c))})
    la, lg = PAPERS["leviathan_alpha"], PAPERS["leviathan_gamma"]
    breakeven = roofline.breakeven_batch(g, m, ctx, gamma, alpha, c)
    return {
        "batch": batch, "ctx": ctx, "gamma": gamma, "alpha": alpha, "c": c,
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
        # not even for one stream ("never"), or up to some batch ("from").
        "breakeven_case": "always" if breakeven is None else "never" if breakeven <= 1 else "from",
        "best_gamma": best_g,
        "best_speedup": best_s,
        # The same, with the search's edges named: {"gamma", "speedup", "edge": None | "rising"
        # (still rising at γ 16) | "plain" (γ 0: no γ ≥ 1 beats plain decoding)}.
        "best": roofline.best_gamma_edge(g, m, batch, ctx, alpha, c),
        "fits": s["fits"],
        # The break-even batch is only reached if that many streams fit.
        "breakeven_fits": breakeven is not None and (
            roofline.max_batch(g, m, ctx) is None or breakeven <= roofline.max_batch(g, m, ctx)),
        # Leviathan et al.'s worked example, from the same formulas (c = 0: draft left out).
        "leviathan_extra": roofline.extra_arithmetic(la, lg),
        "leviathan_speed": roofline.expected_tokens(la, lg),
        "curve": {
            "batches": list(BATCH_STOPS),
            "plain": [r["tokens_per_s"] for r in curve],
            "spec": [r["tokens_per_s_spec"] for r in curve],
            **_fit(curve, roofline.max_batch(g, m, ctx), _limit_point(
                g, m, ctx, roofline.max_batch(g, m, ctx),
                {"plain": "tokens_per_s", "spec": "tokens_per_s_spec", "speedup": "speedup"},
                gamma=gamma, alpha=alpha, c=c, efficiency=efficiency)),
        },
        "contexts": contexts,
        "published": [r for r in published.to_json(g.key, m.key) if 9 in r["sections"]],
    }


def _reader(g, m, n: int) -> dict:
    r = roofline.lanes(g, m, n)
    return {"lanes": n, "busy": r["arithmetic_busy"], "keep_up": r["lanes_to_keep_up"],
            "keep_up_whole": r["lanes_to_keep_up_whole"], "ridge": r["ridge_ops_per_byte"],
            "intensity": r["intensity_ops_per_byte"], "bound": r["bound"],
            # The step time: flat (one read of the weights) until the lanes keep up, then rising.
            "idle": r["idle"], "ms_per_step": r["ms_per_step"], "ms_flat": r["ms_flat"],
            "step_ratio": r["step_ratio"], "past_ridge": r["past_ridge"],
            "curve": {"lanes": list(LANE_STOPS),
                      "ms_per_step": [roofline.lanes(g, m, k)["ms_per_step"] for k in LANE_STOPS]}}


def _selfdraft(g, m) -> dict:
    # Lookahead's extra arithmetic, read as lanes sharing one read of the chosen model's weights.
    n = PAPERS["lookahead_ops_7b"]
    return {"lookahead_lanes": n, "lookahead_busy": roofline.lanes(g, m, n)["arithmetic_busy"]}


def compute(gpu: str = "h100-sxm", model: str = "llama-3.1-8b", batch: int = 64,
            ctx: int = 4096, lanes: int = 9, gamma: int = 4, alpha: float = 0.6,
            c: float = 0.1, efficiency: float = 1.0) -> dict:
    """Everything the five sections show, for one validated state. ``efficiency`` (a share of
    the roofline's speed, 1.0 = the ideal) scales the speeds of sections 1, 2 and 9; off by
    default, and the speed-ups do not change with it."""
    g, m = roofline.GPUS[gpu], roofline.MODELS[model]
    return {
        "state": {"gpu": gpu, "model": model, "batch": batch, "ctx": ctx, "lanes": lanes,
                  "gamma": gamma, "alpha": alpha, "c": c},
        "gpu": _gpu_info(g),
        "model": _model_info(m),
        "onebyone": _onebyone(g, m, efficiency),
        "batch": _batch(g, m, batch, ctx, efficiency),
        "idle": _idle(g, m, batch, ctx, gamma, alpha, c, efficiency),
        "reader": _reader(g, m, lanes),
        "selfdraft": _selfdraft(g, m),
        "papers": PAPERS,
        "capacity": _capacity(g, m, batch, ctx),
        "engine": {"efficiency": efficiency,
                   # The share a published plain engine reached (SGLang, H100, 8B, batch 1).
                   "measured": published.engine_efficiency(), "measured_key": "sglang-8b-h100"},
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
    return {**out, "onebyone": _onebyone(g, m)}


def batch(lang: str, v: dict) -> dict:
    g, m, out = _picked(v)
    return {**out, "batch": {**_batch(g, m, v["batch"], v["ctx"]), "ridge": roofline.ridge_ops_per_byte(g)}}


def idle(lang: str, v: dict) -> dict:
    """Section 9 starts from the α section 7 measures for the chosen draft, unless one is set."""
    from views.sections_speculative import measured_alpha
    g, m, out = _picked(v)
    alpha = measured_alpha(lang, v) if v["alpha"] is None else v["alpha"]
    return {**out, "measured": v["alpha"] is None,
            "idle": _idle(g, m, v["batch"], v["ctx"], v["gamma"], alpha, v["c"]), "papers": PAPERS}


def selfdraft(lang: str, v: dict) -> dict:
    g, m, out = _picked(v)
    return {**out, "selfdraft": _selfdraft(g, m), "papers": PAPERS}


def reader(lang: str, v: dict) -> dict:
    g, m, out = _picked(v)
    return {**out, "reader": _reader(g, m, v["lanes"])}


ANSWERS = {"onebyone": onebyone, "batch": batch, "idle": idle, "selfdraft": selfdraft, "reader": reader}
