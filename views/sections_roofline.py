"""Numbers for the roofline sections (1 onebyone, 2 batch, 9 idle, 10 selfdraft, 11 reader).

`compute(...)` is shared by the page (server-side rendering, `d["roofline"]`) and by
`/api/roofline`, so the no-script view and the live widgets show the same figures from
`sim.roofline`. Units are converted here for display (GB, ms, TB/s); the arithmetic is in `sim`.
"""
from __future__ import annotations

from sim import roofline

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
            "peak_tflops": g.peak_flops / 1e12, "source": g.source}


def _model_info(m: roofline.Model) -> dict:
    return {"key": m.key, "label": m.label, "params": m.params,
            "params_b": m.params / 1e9, "bytes_per_number": m.bytes_per_number,
            "weight_gb": roofline.weight_bytes(m) / _GB,
            "kv_kb_per_token": roofline.kv_bytes_per_token(m) / _KB, "source": m.source}


def _onebyone(g, m) -> dict:
    s = roofline.decode_step(g, m, batch=1, context=0)
    return {
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


def _batch(g, m, batch: int, ctx: int) -> dict:
    w = roofline.decode_step(g, m, batch=batch, context=0)
    k = roofline.decode_step(g, m, batch=batch, context=ctx)
    curve_w = roofline.batch_curve(g, m, 0, BATCH_STOPS)
    curve_k = roofline.batch_curve(g, m, ctx, BATCH_STOPS)
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
                             g, m, 1, 0)["tokens_per_s"]},
        "with_cache": {"tokens_per_s": k["tokens_per_s"], "ms_per_step": k["ms_per_step"],
                       "busy": k["arithmetic_busy"], "bound": k["bound"]},
        "ceiling_tokens_per_s": ceiling,
        "curve": {
            "batches": list(BATCH_STOPS),
            "weights_only": [r["tokens_per_s"] for r in curve_w],
            "with_cache": [r["tokens_per_s"] for r in curve_k],
        },
    }


def _idle(g, m, batch: int, ctx: int, gamma: int, alpha: float, c: float) -> dict:
    s = roofline.speculative(g, m, batch, ctx, gamma, alpha, c)
    best_g, best_s = roofline.best_gamma(g, m, batch, ctx, alpha, c)
    curve = roofline.batch_curve(g, m, ctx, BATCH_STOPS, gamma=gamma, alpha=alpha, c=c)
    contexts = []
    for t in IDLE_CONTEXTS:
        rows = roofline.batch_curve(g, m, t, BATCH_STOPS, gamma=gamma, alpha=alpha, c=c)
        contexts.append({"ctx": t, "speedup": [r["speedup"] for r in rows],
                         "breakeven": roofline.breakeven_batch(g, m, t, gamma, alpha, c)})
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
        # Leviathan et al.'s worked example, from the same formulas (c = 0: draft left out).
        "leviathan_extra": roofline.extra_arithmetic(la, lg),
        "leviathan_speed": roofline.expected_tokens(la, lg),
        "curve": {
            "batches": list(BATCH_STOPS),
            "plain": [r["tokens_per_s"] for r in curve],
            "spec": [r["tokens_per_s_spec"] for r in curve],
        },
        "contexts": contexts,
    }


def _reader(g, m, n: int) -> dict:
    r = roofline.lanes(g, m, n)
    return {"lanes": n, "busy": r["arithmetic_busy"], "keep_up": r["lanes_to_keep_up"],
            "keep_up_whole": r["lanes_to_keep_up_whole"], "ridge": r["ridge_ops_per_byte"],
            "intensity": r["intensity_ops_per_byte"], "bound": r["bound"]}


def _selfdraft(g, m) -> dict:
    # Lookahead's extra arithmetic, read as lanes sharing one read of the chosen model's weights.
    n = PAPERS["lookahead_ops_7b"]
    return {"lookahead_lanes": n, "lookahead_busy": roofline.lanes(g, m, n)["arithmetic_busy"]}


def compute(gpu: str = "h100-sxm", model: str = "llama-3.1-8b", batch: int = 64,
            ctx: int = 4096, lanes: int = 9, gamma: int = 4, alpha: float = 0.6,
            c: float = 0.1) -> dict:
    """Everything the five sections show, for one validated state."""
    g, m = roofline.GPUS[gpu], roofline.MODELS[model]
    return {
        "state": {"gpu": gpu, "model": model, "batch": batch, "ctx": ctx, "lanes": lanes,
                  "gamma": gamma, "alpha": alpha, "c": c},
        "gpu": _gpu_info(g),
        "model": _model_info(m),
        "onebyone": _onebyone(g, m),
        "batch": _batch(g, m, batch, ctx),
        "idle": _idle(g, m, batch, ctx, gamma, alpha, c),
        "reader": _reader(g, m, lanes),
        "selfdraft": _selfdraft(g, m),
        "papers": PAPERS,
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
