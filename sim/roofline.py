"""What one decoding step of a large model costs on a real GPU, on paper.

The roofline model (Williams, Waterman, Patterson 2009, "Roofline: An Insightful
Visual Performance Model for Multicore Architectures", CACM 52(4),
doi:10.1145/1498765.1498785): a piece of work takes at least as long as its bytes
take to arrive from memory and at least as long as its arithmetic takes on the
units; whichever is longer is the time.  The ridge point, peak FLOP/s divided by
bandwidth, is the number of operations per byte read at which the two balance.

Applied to decoding as in Pope et al. 2022, "Efficiently Scaling Transformer
Inference" (arXiv:2211.05102): every step reads all the weights once, and every
stream in the batch also reads its own key/value cache, which cannot be shared;
the arithmetic is 2 operations (a multiply and an add) per parameter per token
position worked out.

Speculative decoding as in Leviathan, Kalman, Matias 2023, "Fast Inference from
Transformers via Speculative Decoding" (arXiv:2211.17192): a draft guesses gamma
tokens, the target checks them in one pass; with acceptance rate alpha a pass
writes (1 - alpha^(gamma+1)) / (1 - alpha) tokens per stream on average.

Assumptions (all deliberate, all "on paper"):
- Reading and arithmetic overlap perfectly; no kernel launch, communication,
  sampling or scheduling overhead; bandwidth and peak are the datasheet values,
  which real systems do not reach.
- Arithmetic counts only the weight matrix products (2 * params per position);
  the attention score arithmetic (which grows with the context) is left out.
- The cache read per stream is its T tokens of context; the few positions being
  added in the step (1, or gamma+1 when verifying) are left out.
- A speculative cycle under batching: the draft makes gamma guesses, each
  costing c times one plain target step at the same batch and context; then one
  target pass reads the weights once plus every stream's cache and does the
  arithmetic for batch * (gamma + 1) positions.  Every stream gets the same
  expected number of tokens per cycle (acceptance is independent of the batch).

Memory capacity (issue 12): the weights and every stream's cache must fit in the
GPUs' memory.  `fits`, `max_batch`, `max_context` and `gpus_needed` say whether they
do and where they stop; the step functions report "fits" but still give the time a
GPU with enough memory would take, so a page can say both.  Several GPUs split the
model by tensor parallelism as TENSOR_PARALLEL_ASSUMES says.

Engine efficiency: real engines reach part of the roofline.  `efficiency` (a fraction
of the roofline's speed, 1.0 by default = the ideal) divides every step time; see
the comment at `efficiency` for why a fraction and not a fixed overhead per step.

Every function is pure (no I/O, no randomness) and raises ValueError naming the
parameter and its allowed range on bad input.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sim import theory  # the one home of E[tokens] and the extra-arithmetic factor
from sim.param import float_, int_, spec

__all__ = [
    "GPU", "Model", "GPUS", "MODELS",
    "kv_bytes_per_token", "weight_bytes", "ridge_ops_per_byte", "decode_step", "lanes",
    "fits", "gpus_needed", "tp_degree", "max_batch", "max_context", "embedding_row",
    "TENSOR_PARALLEL_ASSUMES", "MEMORY_UNIT",
    "expected_tokens", "extra_arithmetic", "speculative", "breakeven_batch",
    "best_gamma", "best_gamma_edge", "batch_curve",
]


@dataclass(frozen=True)
class GPU:
    key: str
    label: str
    bandwidth: float    # bytes/s, memory bandwidth from the vendor datasheet
    peak_flops: float   # FLOP/s, dense BF16 (no structured sparsity)
    memory: float       # bytes, capacity as the datasheet prints it, read as GB = 1e9 bytes
    source: str


@dataclass(frozen=True)
class Model:
    key: str
    label: str
    params: int            # parameters (count)
    layers: int            # transformer layers (count)
    kv_heads: int          # key/value heads per layer (grouped-query attention)
    head_dim: int          # numbers per head
    bytes_per_number: int  # bytes per weight and per cache entry (BF16 = 2)
    vocab: int             # tokens in the vocabulary (rows of the embedding table)
    hidden: int            # numbers per token in the residual stream (embedding width)
    tied: bool             # the output head is the input embedding table (one copy)
    source: str


_TB = 1e12   # vendor datasheets use decimal units: 1 TB/s = 1e12 bytes/s
_TFLOP = 1e12
_GB = 1e9

# How memory capacities are read (the page can quote this).  Vendors print "80GB"; the chips
# actually hold a little more (an H100 80GB HBM3 reports 81,559 MiB = 85.5e9 bytes in nvidia-smi,
# since HBM stacks come in binary sizes), but an engine keeps part of it for activations, the
# CUDA context and workspace (vLLM fills 90 % of it by default), so the printed figure read as
# decimal gigabytes is the cautious reading and the one used here.
MEMORY_UNIT = ("GB as printed on the vendor datasheet, read as 10^9 bytes (the cautious reading: "
               "the memory chips hold slightly more, and engines keep some for activations and "
               "workspace)")

GPUS: dict[str, GPU] = {g.key: g for g in (
    GPU("h100-sxm", "NVIDIA H100 SXM",
        bandwidth=3.35 * _TB, peak_flops=989.5 * _TFLOP, memory=80 * _GB,
        source="NVIDIA H100 Tensor Core GPU datasheet: 80GB HBM3 at 3.35 TB/s; "
               "BF16 1,979 TFLOPS with sparsity, 989.5 dense"),
    GPU("a100-sxm-80gb", "NVIDIA A100 SXM 80GB",
        bandwidth=2.039 * _TB, peak_flops=312 * _TFLOP, memory=80 * _GB,
        source="NVIDIA A100 Tensor Core GPU datasheet: 80GB HBM2e at 2,039 GB/s; "
               "BF16 312 TFLOPS dense (624 with sparsity)"),
    GPU("h200", "NVIDIA H200 SXM",
        bandwidth=4.8 * _TB, peak_flops=989.5 * _TFLOP, memory=141 * _GB,
        source="NVIDIA H200 Tensor Core GPU datasheet: 141GB HBM3e at 4.8 TB/s; "
               "BF16 1,979 TFLOPS with sparsity, 989.5 dense"),
    # NVIDIA announced B200 with 192 GB (GTC 2024); the shipping HGX/DGX B200 spec gives 1,440 GB
    # of HBM3e for eight GPUs, 180 GB each, and 64 TB/s, 8 TB/s each.
    GPU("b200", "NVIDIA B200",
        bandwidth=8.0 * _TB, peak_flops=2250 * _TFLOP, memory=180 * _GB,
        source="NVIDIA HGX B200 / DGX B200 datasheet: 1,440 GB HBM3e and 64 TB/s for eight GPUs, "
               "180 GB and 8 TB/s per GPU; BF16 4.5 PFLOPS with sparsity, 2.25 dense"),
    GPU("mi300x", "AMD Instinct MI300X",
        bandwidth=5.3 * _TB, peak_flops=1307.4 * _TFLOP, memory=192 * _GB,
        source="AMD Instinct MI300X datasheet: 192 GB HBM3 at 5.3 TB/s; "
               "BF16 1,307.4 TFLOPS dense (2,614.9 with sparsity)"),
)}

# What the memory can actually deliver, between the datasheet's ceiling and an engine's measured
# speed: bandwidth measured with copy and triad kernels, bytes/s, low and high over the runs.
ACHIEVABLE_SOURCE = ("Microsoft Azure, AI benchmarking guide (public): memory bandwidth measured with "
                     "copy and triad kernels on ND H100 v5, ND H200 v5 and ND A100 v4 virtual machines")
ACHIEVABLE_BANDWIDTH: dict[str, tuple[float, float]] = {
    "h100-sxm": (2.90 * _TB, 2.97 * _TB),        # of 3.35 TB/s: 87-89 %
    "h200": (4.01 * _TB, 4.15 * _TB),            # of 4.8 TB/s: 84-86 %
    "a100-sxm-80gb": (1.61 * _TB, 1.70 * _TB),   # of 2.039 TB/s: 79-83 %
}
# No measured figure for these; what the vendor says instead.
ACHIEVABLE_NOTE = {"mi300x": "AMD states that the 5.3 TB/s peak is not reachable in practice"}


def achievable_bandwidth(gpu: "GPU | str") -> dict | None:
    """Measured memory bandwidth beside the datasheet's: {"lo", "hi", "mid" (bytes/s), "share"
    (mid over the datasheet's), "source"}; None where no measurement is at hand."""
    g = _gpu(gpu)
    if g.key not in ACHIEVABLE_BANDWIDTH:
        return None
    lo, hi = ACHIEVABLE_BANDWIDTH[g.key]
    mid = (lo + hi) / 2
    return {"lo": lo, "hi": hi, "mid": mid, "share": mid / g.bandwidth, "source": ACHIEVABLE_SOURCE}


_LLAMA3 = "Llama Team (2024), The Llama 3 Herd of Models, arXiv:2407.21783"
MODELS: dict[str, Model] = {m.key: m for m in (
    Model("llama-3.1-8b", "Llama 3.1 8B",
          params=8_030_261_248, layers=32, kv_heads=8, head_dim=128, bytes_per_number=2,
          vocab=128_256, hidden=4096, tied=False,
          source="Meta, Llama 3.1 8B model card and config (8,030,261,248 parameters); "
                 f"{_LLAMA3}, Table 3 (32 layers, 4,096/32 heads = 128, 8 KV heads; "
                 "vocabulary 128,256; embeddings not tied)"),
    Model("llama-3.1-70b", "Llama 3.1 70B",
          params=70_553_706_496, layers=80, kv_heads=8, head_dim=128, bytes_per_number=2,
          vocab=128_256, hidden=8192, tied=False,
          source="Meta, Llama 3.1 70B model card and config (70,553,706,496 parameters); "
                 f"{_LLAMA3}, Table 3 (80 layers, 8,192/64 heads = 128, 8 KV heads; "
                 "vocabulary 128,256; embeddings not tied)"),
    Model("llama-3.2-1b", "Llama 3.2 1B",
          params=1_235_814_400, layers=16, kv_heads=8, head_dim=64, bytes_per_number=2,
          vocab=128_256, hidden=2048, tied=True,
          source="Meta, Llama 3.2 1B model card and config (1,235,814,400 parameters, "
                 "16 layers, 2,048/32 heads = 64, 8 KV heads, embeddings tied)"),
)}

FLOPS_PER_PARAM = 2   # one multiply and one add per parameter per token position

# What the model assumes when a model is split over several GPUs by tensor parallelism
# (Shoeybi et al. 2019, Megatron-LM, arXiv:1909.08053: each layer's matrices cut across the GPUs;
# Pope et al. 2022 §3 for its cost in inference).  The page can quote it.
TENSOR_PARALLEL_ASSUMES = (
    "The weights and every stream's cache are split evenly over the GPUs; their memory, bandwidth "
    "and arithmetic add up; the communication between them (two all-reduces per layer) is left "
    "out, so n GPUs make a step n times faster. Engines split by a power of two that divides the "
    "number of key/value heads (1, 2, 4 or 8 for these models).")

# Engine efficiency (`efficiency` below, 1.0 = the ideal, the default): a fraction of the
# roofline's speed, tokens/s = efficiency × the ideal, i.e. every step time divided by it.  A
# fraction and not a fixed overhead per step, because published batch-1 measurements of one model
# on two GPUs reach the same fraction while a fixed overhead would have to differ twofold:
# Llama 3.1 8B runs at 158.34 tokens/s in SGLang on an H100 (sim.published: 0.759 of the 208.6
# here, i.e. 1.52 ms over the 4.79 ms step; precision not stated, SGLang's default keeps the
# checkpoint's bf16) and at about 75 tokens/s in bf16 in vLLM on an A100 40GB (johnmusgrave.com,
# "vLLM throughput-latency sweep on NVIDIA A100", undated: "roughly 77% of the GPU's
# memory-bandwidth ceiling", 96.8 tokens/s at 1.555 TB/s, i.e. 3.0 ms over a 10.3 ms step).
# Achieved memory bandwidth is a share of the datasheet's, and one share fits both.  A fraction
# leaves every speed-up as it is (plain and speculative steps slow alike);
# sim.published.engine_efficiency() gives the measured value.

# --- validation -----------------------------------------------------------

# The library's own checks of sizes and rates: any size the arithmetic takes (the page and the API
# narrow them, sim/params.py). Below a share of 0.1 of the roofline no engine runs.
CHECKS = {**theory.CHECKS, **spec(
    int_("batch", 1, None, None), int_("context", 0, None, None), int_("n", 1, None, None),
    int_("positions", 1, None, 1), int_("gpus", 1, None, 1), float_("efficiency", 0.1, 1, 1.0))}


def _check(name: str, value, lo=None):
    """``value`` checked by its declaration (from ``lo`` where that is higher); a ParamError (a
    ValueError) names the parameter and its range."""
    p = CHECKS[name] if lo is None else CHECKS[name].but(lo=lo)
    return p.check(value)


def _gpu(gpu: GPU | str) -> GPU:
    if isinstance(gpu, GPU):
        return gpu
    if gpu in GPUS:
        return GPUS[gpu]
    raise ValueError(f"gpu must be one of {', '.join(GPUS)}, got {gpu!r}")


def _model(model: Model | str) -> Model:
    if isinstance(model, Model):
        return model
    if model in MODELS:
        return MODELS[model]
    raise ValueError(f"model must be one of {', '.join(MODELS)}, got {model!r}")


# --- one step ---------------------------------------------------------------

def kv_bytes_per_token(model: Model | str) -> int:
    """Cache bytes one token adds: keys and values, every layer, every KV head."""
    m = _model(model)
    return 2 * m.layers * m.kv_heads * m.head_dim * m.bytes_per_number


def weight_bytes(model: Model | str) -> int:
    m = _model(model)
    return m.params * m.bytes_per_number


def ridge_ops_per_byte(gpu: GPU | str) -> float:
    g = _gpu(gpu)
    return g.peak_flops / g.bandwidth


def _efficiency(value) -> float:
    return _check("efficiency", value)


def decode_step(gpu: GPU | str, model: Model | str, batch: int = 1, context: int = 0,
                positions: int = 1, gpus: int = 1, efficiency: float = 1.0) -> dict:
    """One forward pass: `batch` streams, each with `context` cached tokens, each
    working out `positions` token positions (1 when decoding, gamma+1 when checking),
    on `gpus` GPUs split by tensor parallelism (TENSOR_PARALLEL_ASSUMES), at
    `efficiency` of the roofline's speed.

    Tokens per second counts one written token per stream per step.  "fits" says whether
    the weights and caches fit in the GPUs' memory; the time is what it would be if they did.
    """
    g, m = _gpu(gpu), _model(model)
    batch = _check("batch", batch)
    context = _check("context", context)
    positions = _check("positions", positions)
    gpus = _check("gpus", gpus)
    efficiency = _efficiency(efficiency)

    w = weight_bytes(m)
    kv_tok = kv_bytes_per_token(m)
    kv = batch * context * kv_tok                    # each stream reads its own cache
    total = w + kv                                   # weights once for the whole batch
    flops = FLOPS_PER_PARAM * m.params * batch * positions
    t_mem = total / (g.bandwidth * gpus)
    t_comp = flops / (g.peak_flops * gpus)
    t = max(t_mem, t_comp) / efficiency
    return {
        "gpu": g.key, "model": m.key, "batch": batch, "context": context,
        "positions": positions, "gpus": gpus, "efficiency": efficiency,
        "weight_bytes": w,
        "kv_bytes": kv,
        "kv_bytes_per_token": kv_tok,
        "bytes_per_step": total,
        "memory_bytes": g.memory * gpus,
        "fits": total <= g.memory * gpus,
        "flops": flops,
        "t_memory_s": t_mem,
        "t_compute_s": t_comp,
        "ms_per_step": t * 1e3,
        "tokens_per_s": batch / t,
        # Share of the roofline step the arithmetic units are working (reading and
        # arithmetic overlap, so the busier side sets the time); never above 1.
        "arithmetic_busy": t_comp / max(t_mem, t_comp),
        "memory_busy": t_mem / max(t_mem, t_comp),
        "bound": "memory" if t_mem >= t_comp else "compute",
        "intensity_ops_per_byte": flops / total,
        "ridge_ops_per_byte": ridge_ops_per_byte(g),
    }


def lanes(gpu: GPU | str, model: Model | str, n: int) -> dict:
    """n token positions worked out in one read of the weights (streams in a batch
    or guesses being checked), no cache.  `lanes_to_keep_up` is the number of lanes
    at which the arithmetic takes as long as the reading: the ridge point divided
    by the operations per byte one lane does (2 / bytes_per_number).

    The step time is flat (one read of the weights) until the lanes keep up, then grows
    with them: `ms_per_step` for n lanes, `ms_flat` for the read alone, `step_ratio` the
    one over the other (1.0 up to the ridge)."""
    g, m = _gpu(gpu), _model(model)
    n = _check("n", n)
    step = decode_step(g, m, batch=1, context=0, positions=n)
    per_lane = FLOPS_PER_PARAM / m.bytes_per_number   # ops per weight byte, one lane
    keep_up = ridge_ops_per_byte(g) / per_lane
    flat = step["t_memory_s"] * 1e3
    return {
        "n": n,
        "arithmetic_busy": step["arithmetic_busy"],
        "idle": 1.0 - step["arithmetic_busy"],
        "ms_per_step": step["ms_per_step"],
        "ms_flat": flat,
        "step_ratio": step["ms_per_step"] / flat,
        "past_ridge": n > keep_up,
        "intensity_ops_per_byte": step["intensity_ops_per_byte"],
        "ridge_ops_per_byte": step["ridge_ops_per_byte"],
        "lanes_to_keep_up": keep_up,
        "lanes_to_keep_up_whole": math.ceil(keep_up),
        "bound": step["bound"],
    }


# --- memory capacity ---------------------------------------------------------

def fits(gpu: GPU | str, model: Model | str, batch: int = 1, context: int = 0,
         gpus: int = 1) -> dict:
    """Whether the weights and `batch` caches of `context` tokens fit in `gpus` GPUs' memory
    (split evenly, TENSOR_PARALLEL_ASSUMES).  Bytes needed and had, and the share used."""
    g, m = _gpu(gpu), _model(model)
    batch = _check("batch", batch, lo=0)
    context = _check("context", context)
    gpus = _check("gpus", gpus)
    w = weight_bytes(m)
    kv = batch * context * kv_bytes_per_token(m)
    have = g.memory * gpus
    return {"fits": w + kv <= have, "need_bytes": w + kv, "have_bytes": have,
            "weight_bytes": w, "kv_bytes": kv, "gpus": gpus, "share": (w + kv) / have}


def gpus_needed(gpu: GPU | str, model: Model | str, batch: int = 1, context: int = 0) -> int:
    """The fewest GPUs whose memory holds the weights and caches, split evenly: ceil(need / one)."""
    f = fits(gpu, model, batch, context)
    return max(1, math.ceil(f["need_bytes"] / f["have_bytes"]))


def tp_degree(gpu: GPU | str, model: Model | str, batch: int = 1, context: int = 0) -> int | None:
    """The tensor-parallel size an engine would use: the smallest power of two at least
    gpus_needed that divides the key/value heads (so each GPU holds whole heads and an even share
    of the cache).  None when more GPUs than key/value heads would be needed (beyond what tensor
    parallelism alone splits evenly; pipeline parallelism is not modelled)."""
    m = _model(model)
    n = gpus_needed(gpu, m, batch, context)
    tp = 1
    while tp < n:
        tp *= 2
    return tp if tp <= m.kv_heads and m.kv_heads % tp == 0 else None


def max_batch(gpu: GPU | str, model: Model | str, context: int, gpus: int = 1) -> int | None:
    """The most streams of `context` cached tokens that fit beside the weights; 0 when not even
    one does (the weights alone may not fit); None when context is 0 (no cache: memory sets no
    limit in this model)."""
    g, m = _gpu(gpu), _model(model)
    context = _check("context", context)
    gpus = _check("gpus", gpus)
    room = g.memory * gpus - weight_bytes(m)
    if room < 0:
        return 0
    if context == 0:
        return None
    return int(room // (context * kv_bytes_per_token(m)))


def max_context(gpu: GPU | str, model: Model | str, batch: int, gpus: int = 1) -> int | None:
    """The most cached tokens per stream at which `batch` streams fit beside the weights (0: the
    weights fit, no room for any cache); None when the weights alone do not fit."""
    g, m = _gpu(gpu), _model(model)
    batch = _check("batch", batch)
    gpus = _check("gpus", gpus)
    room = g.memory * gpus - weight_bytes(m)
    if room < 0:
        return None
    return int(room // (batch * kv_bytes_per_token(m)))


def embedding_row(gpu: GPU | str, model: Model | str) -> dict:
    """A decode step reads one row of the input embedding table (the token's own), not the table:
    the bytes, time and speed of a single stream without the unread rows, beside the simple count
    (every weight once) that the plate uses.  With tied embeddings the output head is the same
    table and is read whole, so nothing is saved."""
    g, m = _gpu(gpu), _model(model)
    table = m.vocab * m.hidden * m.bytes_per_number
    unread = 0 if m.tied else table - m.hidden * m.bytes_per_number
    simple = decode_step(g, m)
    read = weight_bytes(m) - unread
    t = read / g.bandwidth
    return {"embedding_bytes": table, "unread_bytes": unread, "bytes_read": read,
            "ms_per_token": t * 1e3, "tokens_per_s": 1.0 / t,
            "bytes_simple": simple["bytes_per_step"], "ms_per_token_simple": simple["ms_per_step"],
            "tokens_per_s_simple": simple["tokens_per_s"]}


# --- speculation ---------------------------------------------------------

def expected_tokens(alpha: float, gamma: int) -> float:
    """sim.theory.expected_tokens, with this module's validation (errors name the parameter)."""
    return theory.expected_tokens(_check("alpha", alpha), _check("gamma", gamma))


def extra_arithmetic(alpha: float, gamma: int) -> float:
    """sim.theory.extra_arithmetic, with this module's validation."""
    return theory.extra_arithmetic(_check("alpha", alpha), _check("gamma", gamma))


def speculative(gpu: GPU | str, model: Model | str, batch: int, context: int,
                gamma: int, alpha: float, c: float, gpus: int = 1,
                efficiency: float = 1.0) -> dict:
    """Plain decoding against speculative decoding at the same batch and context.

    Cycle time = gamma * c * (plain step) + (target pass over gamma+1 positions);
    each stream gains expected_tokens(alpha, gamma) per cycle.  "fits" is the plain
    step's (the draft's own weights and cache are left out of the capacity check)."""
    gamma = _check("gamma", gamma, lo=1)   # a cycle makes at least one guess
    alpha = _check("alpha", alpha)
    c = _check("c", c)
    plain = decode_step(gpu, model, batch, context, positions=1, gpus=gpus, efficiency=efficiency)
    verify = decode_step(gpu, model, batch, context, positions=gamma + 1, gpus=gpus,
                         efficiency=efficiency)
    t_plain = plain["ms_per_step"] / 1e3
    t_draft = gamma * c * t_plain
    t_verify = verify["ms_per_step"] / 1e3
    t_cycle = t_draft + t_verify
    e = expected_tokens(alpha, gamma)
    tps_plain = plain["tokens_per_s"]
    tps_spec = plain["batch"] * e / t_cycle
    return {
        "gpu": plain["gpu"], "model": plain["model"],
        "batch": plain["batch"], "context": plain["context"],
        "gamma": gamma, "alpha": alpha, "c": c,
        "gpus": plain["gpus"], "efficiency": plain["efficiency"], "fits": plain["fits"],
        "expected_tokens": e,
        "ms_per_step_plain": plain["ms_per_step"],
        "ms_draft": t_draft * 1e3,
        "ms_verify": verify["ms_per_step"],
        "ms_per_cycle": t_cycle * 1e3,
        "tokens_per_s_plain": tps_plain,
        "tokens_per_s_spec": tps_spec,
        "speedup": tps_spec / tps_plain,
        "arithmetic_busy_plain": plain["arithmetic_busy"],
        "arithmetic_busy_verify": verify["arithmetic_busy"],
        "bound_plain": plain["bound"],
        "bound_verify": verify["bound"],
        "extra_arithmetic": extra_arithmetic(alpha, gamma),
    }


def breakeven_batch(gpu: GPU | str, model: Model | str, context: int, gamma: int,
                    alpha: float, c: float) -> int | None:
    """Smallest batch at which speculation no longer speeds decoding up
    (speedup <= 1); 1 if it does not pay even alone; None if it pays at every batch.

    The speed-up is E / (gamma*c + t_verify/t_plain) and the ratio
    t_verify/t_plain never falls as the batch grows (both are max(a + bB, fB)-shaped
    with the verify pass's arithmetic slope gamma+1 times larger), so the speed-up
    never rises with the batch and a bisection on it is exact."""
    g, m = _gpu(gpu), _model(model)
    context = _check("context", context)

    def pays(b: int) -> bool:
        return speculative(g, m, b, context, gamma, alpha, c)["speedup"] > 1.0

    if not pays(1):
        return 1
    # Limit of t_verify/t_plain as B -> infinity: per-stream slopes of the two maxima.
    b_slope = context * kv_bytes_per_token(m) / g.bandwidth
    f_slope = FLOPS_PER_PARAM * m.params / g.peak_flops
    limit_ratio = max(b_slope, (gamma + 1) * f_slope) / max(b_slope, f_slope)
    if expected_tokens(alpha, gamma) / (gamma * c + limit_ratio) > 1.0:
        return None
    lo, hi = 1, 2                      # pays(lo) is True; grow hi until it fails
    while pays(hi):
        lo, hi = hi, hi * 2
        if hi > 1 << 62:               # numerically at the limit: treat as always paying
            return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if pays(mid):
            lo = mid
        else:
            hi = mid
    return hi


def best_gamma(gpu: GPU | str, model: Model | str, batch: int, context: int,
               alpha: float, c: float, gamma_max: int = theory.GAMMA_MAX) -> tuple[int, float]:
    """The gamma in 1..gamma_max with the largest speed-up (smallest on ties).
    The speed-up may be below 1: then plain decoding is faster than any gamma."""
    gamma_max = _check("gamma_max", gamma_max)
    best = (1, -math.inf)
    for gamma in range(1, gamma_max + 1):
        s = speculative(gpu, model, batch, context, gamma, alpha, c)["speedup"]
        if s > best[1]:
            best = (gamma, s)
    return best


def best_gamma_edge(gpu: GPU | str, model: Model | str, batch: int, context: int,
                    alpha: float, c: float, gamma_max: int = theory.GAMMA_MAX) -> dict:
    """best_gamma with the search's edges named, as sim.theory.best_gamma_edge:
    {"gamma", "speedup", "edge"}, edge "rising" (still rising at gamma_max), "plain" (no gamma >= 1
    beats plain decoding at this batch and context: gamma 0, speedup 1.0) or None."""
    g, s = best_gamma(gpu, model, batch, context, alpha, c, gamma_max)
    s_next = speculative(gpu, model, batch, context, gamma_max + 1, alpha, c)["speedup"]
    return theory.search_edge(g, s, gamma_max, s_next)


def batch_curve(gpu: GPU | str, model: Model | str, context: int, batches,
                gamma: int | None = None, alpha: float | None = None,
                c: float | None = None, gpus: int = 1, efficiency: float = 1.0) -> list[dict]:
    """One row per batch size: the plain step, and with gamma, alpha and c all
    given, the speculative numbers too (keys prefixed as in `speculative`).  Each
    row says whether its streams fit ("fits"); a curve ends at the last row that does."""
    given = [x is not None for x in (gamma, alpha, c)]
    if any(given) and not all(given):
        raise ValueError("gamma, alpha and c must be given together")
    rows = []
    for b in batches:
        step = decode_step(gpu, model, b, context, gpus=gpus, efficiency=efficiency)
        row = {"batch": step["batch"], "ms_per_step": step["ms_per_step"],
               "tokens_per_s": step["tokens_per_s"],
               "arithmetic_busy": step["arithmetic_busy"],
               "bytes_per_step": step["bytes_per_step"], "kv_bytes": step["kv_bytes"],
               "bound": step["bound"], "fits": step["fits"]}
        if gamma is not None:
            s = speculative(gpu, model, b, context, gamma, alpha, c, gpus=gpus,
                            efficiency=efficiency)
            row.update(tokens_per_s_spec=s["tokens_per_s_spec"], speedup=s["speedup"],
                       ms_per_cycle=s["ms_per_cycle"],
                       arithmetic_busy_verify=s["arithmetic_busy_verify"])
        rows.append(row)
    return rows
