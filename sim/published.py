"""Published measurements of real engines, to set beside the roofline's ideal (issue 12).

The roofline (sim.roofline) is what a GPU could do on paper; engines reach part of it, and
speculative decoding is how they go past the single-stream ceiling. Each entry below is one
published figure: who measured what (GPU, model, precision, batch or load, workload), the figure
as printed (tokens per second, or a speed-up over the same engine without speculation), where
and when it was published, and which of its details could not be read in the primary source
("unchecked"). Nothing here is estimated: a figure whose source could not be read was left out.

Sources (read for this table):
- Li, Wei, Zhang, Zhang (2025), "EAGLE-3: Scaling up Inference Acceleration of Large Language
  Models via Training-Time Test", arXiv:2503.01840 (v1 3 March 2025); abstract: "In the SGLang
  framework, EAGLE-3 achieves a 1.38x throughput improvement at a batch size of 64." Its SGLang
  table for LLaMA-Instruct 3.1 8B on one H100 (MT-bench) is quoted on SGLang's documentation,
  docs.sglang.io, "Speculative Decoding" > "Performance Highlights": 158.34 tokens/s without
  speculation, 244.10 with EAGLE-2, 373.25 with EAGLE-3.
- vLLM Team (17 October 2024), "How Speculative Decoding Boosts vLLM Performance by up to 2.8x",
  blog.vllm.ai: Llama3-70B on 4×H100; at QPS 1 up to 1.5× (ShareGPT, draft model
  turboderp/Qwama-0.5B-Instruct) and up to 2.8× (CNN/DailyMail, n-grams); "at high QPS, we see
  1.4x slowdown ... on ShareGPT ..., 1.8x slowdown ... on CNN Dailymail".
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

from sim import roofline


def N_(message: str) -> str:
    """Marks a source line or a setup for the catalogs (the page gives them in its language: the
    titles stay as published, the words between them are translated); returns it unchanged."""
    return message


_EAGLE3 = N_("Li, Wei, Zhang, Zhang, EAGLE-3, arXiv:2503.01840 (2025), SGLang table, as quoted on "
             "docs.sglang.io, Speculative Decoding > Performance Highlights")
_EAGLE3_URL = "https://docs.sglang.io/advanced_features/speculative_decoding.html"
_EAGLE3_DATE = "2025-03-03"     # the paper's first version
_EAGLE3_UNCHECKED = ("batch size 1 is from two summaries of the paper's SGLang section (the "
                     "SGLang page gives tokens/s, 1× H100, MT-bench, and no batch); neither "
                     "names the precision (SGLang's default dtype keeps the checkpoint's bf16) "
                     "nor the H100's form (SXM or PCIe)")
_VLLM = N_("vLLM Team, How Speculative Decoding Boosts vLLM Performance by up to 2.8x, blog.vllm.ai")
_VLLM_URL = "https://blog.vllm.ai/2024/10/17/spec-decode.html"
_VLLM_DATE = "2024-10-17"
_VLLM_UNCHECKED = ("precision and batch sizes not stated (load given as queries per second); "
                   "the H100's form not stated; Llama 3 70B has Llama 3.1 70B's shapes")


@dataclass(frozen=True)
class Measurement:
    key: str
    what: str                 # "decode" (tokens/s of one engine) or "speedup" (over no speculation)
    engine: str
    method: str | None        # the speculative method, None for plain decoding
    gpu: str                  # the roofline preset it is drawn against
    gpus: int                 # GPUs used (tensor parallel)
    gpu_as_published: str
    model: str                # the roofline preset it is drawn against
    model_as_published: str
    precision: str
    batch: int | None         # streams decoded together; None when the source gives a load instead
    load: str | None          # e.g. "QPS 1", "high QPS"
    workload: str
    tokens_per_s: float | None
    speedup: float | None     # throughput with speculation / without, same engine, same load
    sections: tuple[int, ...]  # where the page draws it: 1 onebyone, 2 batch, 9 idle
    source: str
    url: str
    date: str                 # ISO date of publication
    unchecked: str | None     # what could not be read in the primary source


MEASUREMENTS: tuple[Measurement, ...] = (
    Measurement("sglang-8b-h100", "decode", "SGLang", None, "h100-sxm", 1, N_("1× H100"),
                "llama-3.1-8b", "LLaMA-Instruct 3.1 8B", "not stated", 1, None, "MT-bench",
                tokens_per_s=158.34, speedup=None, sections=(1, 2),
                source=_EAGLE3, url=_EAGLE3_URL, date=_EAGLE3_DATE, unchecked=_EAGLE3_UNCHECKED),
    Measurement("sglang-eagle2-8b-h100", "decode", "SGLang", "EAGLE-2", "h100-sxm", 1, N_("1× H100"),
                "llama-3.1-8b", "LLaMA-Instruct 3.1 8B", "not stated", 1, None, "MT-bench",
                tokens_per_s=244.10, speedup=244.10 / 158.34, sections=(1, 9),
                source=_EAGLE3, url=_EAGLE3_URL, date=_EAGLE3_DATE, unchecked=_EAGLE3_UNCHECKED),
    Measurement("sglang-eagle3-8b-h100", "decode", "SGLang", "EAGLE-3", "h100-sxm", 1, N_("1× H100"),
                "llama-3.1-8b", "LLaMA-Instruct 3.1 8B", "not stated", 1, None, "MT-bench",
                tokens_per_s=373.25, speedup=373.25 / 158.34, sections=(1, 9),
                source=_EAGLE3, url=_EAGLE3_URL, date=_EAGLE3_DATE, unchecked=_EAGLE3_UNCHECKED),
    Measurement("sglang-eagle3-batch64", "speedup", "SGLang", "EAGLE-3", "h100-sxm", 1, "H100",
                "llama-3.1-8b", "LLaMA-Instruct 3.1 8B", "not stated", 64, None, "MT-bench",
                tokens_per_s=None, speedup=1.38, sections=(9,),
                source=N_("Li, Wei, Zhang, Zhang, EAGLE-3, arXiv:2503.01840 (2025), abstract"),
                url="https://arxiv.org/abs/2503.01840", date=_EAGLE3_DATE,
                unchecked=("the abstract gives 1.38× at batch 64 in SGLang; the GPU (H100) and "
                           "model (LLaMA-Instruct 3.1 8B) are from summaries of its SGLang "
                           "section; precision not stated")),
    Measurement("vllm-70b-draft-qps1", "speedup", "vLLM", "draft model (Qwama-0.5B-Instruct)",
                "h100-sxm", 4, N_("4× H100"), "llama-3.1-70b", "Llama3-70B", "not stated",
                None, "QPS 1", "ShareGPT", tokens_per_s=None, speedup=1.5, sections=(9,),
                source=_VLLM, url=_VLLM_URL, date=_VLLM_DATE, unchecked=_VLLM_UNCHECKED),
    Measurement("vllm-70b-draft-high-qps", "speedup", "vLLM", "draft model (Qwama-0.5B-Instruct)",
                "h100-sxm", 4, N_("4× H100"), "llama-3.1-70b", "Llama3-70B", "not stated",
                None, "high QPS", "ShareGPT", tokens_per_s=None, speedup=1 / 1.4, sections=(9,),
                source=_VLLM, url=_VLLM_URL, date=_VLLM_DATE, unchecked=_VLLM_UNCHECKED),
    Measurement("vllm-70b-ngram-qps1", "speedup", "vLLM", "n-gram (prompt lookup)",
                "h100-sxm", 4, N_("4× H100"), "llama-3.1-70b", "Llama3-70B", "not stated",
                None, "QPS 1", "CNN/DailyMail", tokens_per_s=None, speedup=2.8, sections=(9,),
                source=_VLLM, url=_VLLM_URL, date=_VLLM_DATE, unchecked=_VLLM_UNCHECKED),
    Measurement("vllm-70b-ngram-high-qps", "speedup", "vLLM", "n-gram (prompt lookup)",
                "h100-sxm", 4, N_("4× H100"), "llama-3.1-70b", "Llama3-70B", "not stated",
                None, "high QPS", "CNN/DailyMail", tokens_per_s=None, speedup=1 / 1.8,
                sections=(9,), source=_VLLM, url=_VLLM_URL, date=_VLLM_DATE,
                unchecked=_VLLM_UNCHECKED),
)
BY_KEY = {m.key: m for m in MEASUREMENTS}


def ideal_tokens_per_s(m: Measurement) -> float | None:
    """The roofline's tokens/s for a decode measurement's GPU(s), model and batch, no cache:
    its ceiling (None for speed-ups, whose ceiling depends on α and c)."""
    if m.what != "decode":
        return None
    return roofline.decode_step(m.gpu, m.model, m.batch, 0, gpus=m.gpus)["tokens_per_s"]


def engine_efficiency(key: str = "sglang-8b-h100") -> float:
    """The share of the roofline's speed a plain (not speculative) engine measured: 158.34 of
    208.59 tokens/s = 0.759 for SGLang on an H100 (the value for roofline's `efficiency`)."""
    m = BY_KEY[key]
    if m.method is not None or m.what != "decode":
        raise ValueError(f"{key} is not a plain decoding speed")
    return m.tokens_per_s / ideal_tokens_per_s(m)


def to_json(gpu: str | None = None, model: str | None = None) -> list[dict]:
    """Every measurement with its ideal beside it; `matches` says whether it was measured on the
    given GPU preset and model (a page draws those on its charts and lists the others)."""
    out = []
    for m in MEASUREMENTS:
        ideal = ideal_tokens_per_s(m)
        out.append({**asdict(m), "sections": list(m.sections),
                    "ideal_tokens_per_s": ideal,
                    "of_ideal": m.tokens_per_s / ideal if ideal else None,
                    "matches": (gpu is None or gpu == m.gpu) and (model is None or model == m.model)})
    return out
