"""Every parameter of specdec, declared once: name, type, range or choices, default, unit, and
which sections of the page read it.

Everything else derives from these declarations: the API's validation (views/params.py), the
command line's argparse (sim/__main__.py), the library's own argument checks, the state the page
ships to its scripts (static/js/state.js parses, defaults and writes the URL from that list), the
options of the page's controls, and the README's table of page parameters (a test compares them).
The design follows TensorFlow Playground's src/state.ts: one list of parameters drives parsing,
defaults and the URL.

A parameter that takes another range in one place (the API lets γ be 0, "the target alone"; the
page offers 1..8) is the same declaration narrowed with ``Param.but``; a name that means something
else in another route (the n-gram ``model`` of /api/dist) is a declaration of its own.

Messages are English templates marked with ``N_`` for the catalog; whoever shows one passes its
``gettext`` (Flask-Babel's for the API and the page, none for the command line and the library).
No Flask here.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Mapping

from corpus.text import LANGS
from sim.speculative import DRAFTS, RULES   # the chain's drafts; the exact rule and two wrong ones
from sim.theory import GAMMA_MAX            # guesses per pass anywhere (API, CLI, theory)
from sim.tree import SAMPLINGS, SHAPES      # how a token tree is filled and shaped (issue 13)
from sim.tree_rules import RULES as TREE_RULES   # a tree's checks: exact ones and wrong ones
from sim.tree_shape import BRANCH_MAX, N_MAX as TREE_N_MAX   # children per node; guesses per pass

Gettext = Callable[[str], str]


def N_(message: str) -> str:
    """Mark a message for extraction into the catalog (pybabel's default N_ keyword)."""
    return message


def join(items, gettext: "Gettext" = None) -> str:
    """Values listed in the reader's language: "a, b, c" in English, "a、b、c" in Chinese (the
    separator is a catalog entry of its own)."""
    sep = gettext(N_(", ")) if gettext else ", "
    return sep.join(items)


def _english(message: str) -> str:
    return message


# ---- constants, each written once ---------------------------------------------------------------

SEED_MAX = 2**31 - 1     # numpy's SeedSequence takes more; 31 bits keep URLs short and JS-exact
PAGE_GAMMA_MAX = 16      # the page's γ controls: every answer reading γ took under 0.12 s of CPU
                         # at γ 16 (each draft, measured when the page's range was widened from 8)
NGRAM_MODELS = ("unigram", "bigram", "trigram")      # sim.ngram.MODEL_ORDERS' names
LAB_DRAFTS = DRAFTS + ("lookup",)                    # the lab adds prompt lookup
ADAPT = ("off", "hf", "cost")                        # the lab's adaptive-γ policies
DEPTHS = ("story", "picture", "frontier")            # the three reading depths
# Slider stops, roughly even on a log scale, so one step is always a visible change. Batch and
# context double (1.5× between): the same steps wherever batch or context is chosen.
BATCH_STOPS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024)
CTX_STOPS = (0, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072)
# Lanes: every count up to 16 (the plate's nine), then coarser, 296 included (about where an H100
# keeps up with one read of the weights).
LANE_STOPS = tuple(range(1, 17)) + (20, 24, 32, 40, 48, 64, 80, 96, 128, 160, 192, 256, 296, 384,
                                    448, 512)
BATCH_MAX = BATCH_STOPS[-1]
CTX_MAX = CTX_STOPS[-1]  # Llama 3.1's context window, 128K tokens
LANES_MAX = LANE_STOPS[-1]
TOKENS_MAX = 200         # tokens one API run writes (the CLI allows long runs)
LAB_RUN_TOKENS = 100     # tokens the lab writes per run
LAB_COMPARE_TOKENS = 60  # the lab's comparison makes nine runs, so each writes fewer tokens
ROUNDS_MAX = 20          # rounds of the tubes per request (sim/tubes.py says why 20 suffice)
TRIALS_MAX = 200         # first tokens drawn per round
CONTEXT_CHARS = 200      # characters of a context string
TOP_MAX = 100            # tokens listed by /api/dist
CLI_TOKENS_MAX = 1_000_000
CLI_DRAWS_MAX = 100_000
CLI_BATCH_MAX = 65_536
CLI_SEED_MAX = 2**63 - 1  # what numpy.random.default_rng accepts as one integer
# Token trees (section 11, /api/tree...). Caps keep a request within the CPU budget of the others
# (bench/cpu.py --tree; README): a budget table (sim.tree_budget) costs about 0.1 s to 0.26 s of
# CPU at k ≤ 8 and d ≤ 16 the first time, then is kept per process.
TREE_K_MAX = 8           # children per node, the page's and the API's (sim allows BRANCH_MAX)
TREE_D_MAX = 16          # levels of guesses, the page's and the API's
TREE_TUBE_TRIALS = 50    # passes per round of the page's tree tubes
TREE_TUBE_PASSES = 200   # passes one request of tree tubes may make (rounds × trials)
TREE_ROUNDS_MAX = TREE_TUBE_PASSES // TREE_TUBE_TRIALS
_RAW_MAX = 1000          # characters of any non-text value: refused before conversion


# ---- errors ------------------------------------------------------------------------------------

class ParamError(ValueError):
    """A parameter has the wrong type, is out of range, unknown or repeated.

    ``param`` names it, ``allowed`` says what it may be, ``message`` what is wrong; the last two are
    in the language of the ``gettext`` the error was made with."""

    def __init__(self, param: str, allowed: str, message: str):
        super().__init__(message)   # the message names the parameter
        self.param = param
        self.allowed = allowed
        self.message = message

    def to_json(self) -> dict:
        return {"error": {"param": self.param, "allowed": self.allowed, "message": self.message}}


def _fmt(x: float, grouped: bool = False) -> str:
    """A bound as people write it: 0..1, 0..131072, not 0.0..1.0; for a reader (``grouped``) the
    digits of a bound from 10,000 up are grouped, as the page writes figures (131,072)."""
    if isinstance(x, float):
        return f"{x:g}"
    return f"{x:,}" if grouped and abs(x) >= 10_000 else str(x)


def clip(raw: str, n: int = 40) -> str:
    """At most n characters of a bad value, to quote it back."""
    return raw if len(raw) <= n else raw[:n] + "…"


_INT = re.compile(r"[+-]?\d{1,19}")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # no place in a context string; breaks the tape


# ---- the declaration ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Param:
    name: str
    kind: str                          # "int" | "float" | "choice" | "bool" | "text"
    default: Any = None                # None: absent means "not given" (e.g. α measured, not set)
    lo: float | None = None
    hi: float | None = None
    choices: tuple[str, ...] = ()
    max_len: int = 0                   # text: characters
    unit: str = ""                     # English, for --help, the README and the shipped state
    help: str = ""                     # one English line, for --help and the README
    sections: tuple[str, ...] = ()     # the page's sections (anchors; "lab.run" for a part) reading it
    stops: tuple = ()                  # a slider's stops on the page
    pattern: str = ""                  # text: a regular expression the whole value must match
    shape: str = ""                    # text with a pattern: what it allows, in words (N_-marked)
    step: float = 0                    # a slider's step where there are no stops (floats)

    def but(self, **changes) -> "Param":
        """The same parameter with another range, default or set of readers."""
        return replace(self, **changes)

    # -- what is allowed, in words ---------------------------------------------------------------
    def allowed(self, gettext: Gettext = _english) -> str:
        # Words for a reader (a page's or the API's catalog) group long bounds; the plain default,
        # for the command line and the library, keeps them as they are typed.
        g = gettext is not _english
        if self.kind in ("int", "float") and self.hi is None:
            # The library's checks: any size the arithmetic takes.
            form = N_("an integer of at least %(lo)s") if self.kind == "int" else N_("a number of at least %(lo)s")
            return gettext(form) % {"lo": _fmt(self.lo, g)}
        if self.kind == "int":
            return gettext(N_("an integer from %(lo)s to %(hi)s")) % {"lo": _fmt(self.lo, g), "hi": _fmt(self.hi, g)}
        if self.kind == "float":
            return gettext(N_("a number from %(lo)s to %(hi)s")) % {"lo": _fmt(self.lo), "hi": _fmt(self.hi)}
        if self.kind == "choice":
            return gettext(N_("one of %(choices)s")) % {"choices": join(self.choices, gettext)}
        if self.kind == "bool":
            return gettext(N_("0, 1, true or false"))
        if self.pattern:
            return gettext(self.shape or N_("a text’s sha256 (64 hex digits), or empty"))
        return gettext(N_("text of at most %(n)s characters")) % {"n": self.max_len}

    def error(self, gettext: Gettext, message: str, **values) -> ParamError:
        """A ParamError naming this parameter and its range; ``message`` is an N_ template."""
        allowed = self.allowed(gettext)
        text = gettext(message) % {"name": self.name, "allowed": allowed, **values}
        return ParamError(self.name, allowed, text)

    # -- from text (the URL, the command line) ----------------------------------------------------
    def parse(self, raw: str, gettext: Gettext = _english) -> Any:
        """The typed value of ``raw``, or ParamError naming this parameter and its range."""
        if len(raw) > _RAW_MAX and self.kind != "text":
            raise self.error(gettext, N_("%(name)s: the value is too long; allowed: %(allowed)s."))
        s = raw.strip()
        if self.kind == "int":
            # Plain decimal integers only: "4", "-1"; not "4.0", "1e3", "0x10".
            if not _INT.fullmatch(s):
                raise self.error(gettext, N_("%(name)s must be %(allowed)s, not “%(value)s”."),
                                 value=clip(raw))
            return self.check(int(s), gettext)
        if self.kind == "float":
            try:
                v = float(s)
            except ValueError:
                raise self.error(gettext, N_("%(name)s must be %(allowed)s, not “%(value)s”."),
                                 value=clip(raw)) from None
            return self.check(v, gettext)
        if self.kind == "choice":
            return self.check(s, gettext)
        if self.kind == "bool":
            low = s.lower()
            if low in ("1", "true"):
                return True
            if low in ("0", "false"):
                return False
            raise self.error(gettext, N_("%(name)s must be %(allowed)s, not “%(value)s”."), value=clip(raw))
        return self.check(raw, gettext)

    # -- typed values (the library's own checks) --------------------------------------------------
    def check(self, value: Any, gettext: Gettext = _english) -> Any:
        """``value`` if it is allowed (ints as int, floats as float), else ParamError."""
        if self.kind == "int":
            # Python and numpy integers, and floats that are whole (64.0); never bools.
            ok = isinstance(value, (int, float)) or hasattr(value, "__index__")
            if isinstance(value, bool) or not ok or (isinstance(value, float) and not value.is_integer()):
                raise self.error(gettext, N_("%(name)s must be %(allowed)s, not “%(value)s”."),
                                 value=clip(str(value)))
            v = int(value)
            if not self._within(v):
                raise self.error(gettext, N_("%(name)s must be %(allowed)s; %(value)s is out of range."),
                                 value=v)
            return v
        if self.kind == "float":
            try:
                v = float(value)
            except (TypeError, ValueError):
                raise self.error(gettext, N_("%(name)s must be %(allowed)s, not “%(value)s”."),
                                 value=clip(str(value))) from None
            if isinstance(value, bool) or not math.isfinite(v):
                raise self.error(gettext, N_("%(name)s must be %(allowed)s, not “%(value)s”."),
                                 value=clip(str(value)))
            if not self._within(v):
                raise self.error(gettext, N_("%(name)s must be %(allowed)s; %(value)s is out of range."),
                                 value=_fmt(v))
            return v
        if self.kind == "choice":
            if value not in self.choices:
                raise self.error(gettext, N_("%(name)s must be %(allowed)s, not “%(value)s”."),
                                 value=clip(str(value)))
            return value
        if self.kind == "bool":
            if not isinstance(value, bool):
                raise self.error(gettext, N_("%(name)s must be %(allowed)s, not “%(value)s”."),
                                 value=clip(str(value)))
            return value
        if not isinstance(value, str):
            raise self.error(gettext, N_("%(name)s must be %(allowed)s."))
        if len(value) > self.max_len:
            raise self.error(gettext, N_("%(name)s has %(n)s characters; at most %(max)s are allowed."),
                             n=len(value), max=self.max_len)
        if _CONTROL.search(value):
            raise self.error(gettext, N_("%(name)s contains control characters."))
        if self.pattern and value and not re.fullmatch(self.pattern, value):
            raise self.error(gettext, N_("%(name)s must be %(allowed)s, not “%(value)s”."), value=clip(value, 16))
        return value

    def _within(self, v) -> bool:
        return self.lo <= v and (self.hi is None or v <= self.hi)

    # -- for the page's scripts and the README ----------------------------------------------------
    def to_json(self) -> dict:
        out = {"kind": self.kind, "default": self.default}
        if self.kind in ("int", "float"):
            out.update(lo=self.lo, hi=self.hi)
        if self.choices:
            out["choices"] = list(self.choices)
        if self.max_len:
            out["max_len"] = self.max_len
        if self.stops:
            out["stops"] = list(self.stops)
        if self.step:
            out["step"] = self.step
        if self.unit:
            out["unit"] = self.unit
        out["sections"] = list(self.sections)
        return out

    def to_url(self, value: Any) -> str:
        """The value as the URL writes it: bools as 0/1, floats without a trailing .0."""
        if isinstance(value, bool):
            return "1" if value else "0"
        if isinstance(value, float):
            return _fmt(value) if value.is_integer() else repr(value)
        return str(value)


def int_(name, lo, hi, default, **kw) -> Param:
    return Param(name, "int", default, lo=lo, hi=hi, **kw)


def float_(name, lo, hi, default, **kw) -> Param:
    return Param(name, "float", default, lo=float(lo), hi=float(hi), **kw)


def choice(name, choices: Iterable[str], default, **kw) -> Param:
    return Param(name, "choice", default, choices=tuple(choices), **kw)


def bool_(name, default=False, **kw) -> Param:
    return Param(name, "bool", default, **kw)


def text(name, max_len, default="", **kw) -> Param:
    return Param(name, "text", default, max_len=max_len, **kw)


# The page's sections and what reads what. Sections 3–5 step through the same 40-token run;
# section 7 measures α on 200 tokens of it; 8 and 9 take that α unless `alpha` pins one; 13 runs
# 60 tokens. Only section 6 (and no other) runs the chain's wrong rules; section 11 (trees) has its
# own rules for trees, exact and wrong (`trule`).
_CHAIN = ("draft", "tape", "rule", "alpha", "speedup", "idle", "bench")
_ROOF = ("onebyone", "batch", "idle", "selfdraft", "reader", "bench")


def _lab(*parts: str) -> tuple[str, ...]:
    return tuple(f"lab.{p}" for p in parts)


_LAB_TEXT = _lab("run", "drafts", "compare", "tubes")   # the break-even map is the same for any text


def _trees(*parts: str) -> tuple[str, ...]:
    return tuple(f"trees.{p}" for p in parts)


_TREES = _trees("pass", "tubes", "budget")


# The GPU and model presets live in sim/roofline.py, with their units and sources; their keys are
# the choices here. (sim/roofline.py imports this module only inside its functions.)
from sim import roofline as _roofline  # noqa: E402
from sim import tubes as _tubes  # noqa: E402  (section 6's starting draws)

LANG = choice("lang", LANGS, "en", help="the book (and the language of messages)")
# Section 8 reads them too: it sets its speed-up against section 1's single-stream ceiling.
GPU = choice("gpu", tuple(_roofline.GPUS), "h100-sxm", help="a GPU preset (sim/roofline.py)",
             sections=_ROOF + ("speedup",) + _trees("budget"))
MODEL = choice("model", tuple(_roofline.MODELS), "llama-3.1-8b", help="a model preset (sim/roofline.py)",
               sections=_ROOF + ("speedup",) + _trees("budget"))
BATCH = int_("batch", 1, BATCH_MAX, 64, unit="streams", help="streams decoded together",
             sections=("batch", "idle", "bench") + _trees("budget"), stops=BATCH_STOPS)
CTX = int_("ctx", 0, CTX_MAX, 4096, unit="tokens per stream", help="cached tokens per stream",
           sections=("batch", "idle", "bench") + _trees("budget"), stops=CTX_STOPS)
LANES = int_("lanes", 1, LANES_MAX, 9, unit="lanes", help="token positions sharing one read of the weights",
             sections=("reader",), stops=LANE_STOPS)
GAMMA = int_("gamma", 1, PAGE_GAMMA_MAX, 4, unit="guesses per pass", help="guesses per pass",
             sections=_CHAIN + _lab("run", "drafts", "compare", "map"))
DRAFT = choice("draft", DRAFTS, "bigram", help="the draft model", sections=_CHAIN + _TREES)
GREEDY = bool_("greedy", help="always take the likeliest token", sections=_CHAIN)
RULE = choice("rule", RULES, "exact", help="the rule for passing (two of them wrong)", sections=("exact",))
SEED = int_("seed", 0, SEED_MAX, 1, help="seed of the random numbers",
            sections=_CHAIN + ("exact",) + _LAB_TEXT + _trees("pass", "tubes"))
C = float_("c", 0, 1, 0.1, unit="target runs", help="one draft run's cost, in target runs", step=0.01,
           sections=("speedup", "idle", "bench") + _lab("run", "drafts", "compare", "map") + _trees("budget"))
# An engine reaches a share of the roofline's speed (sim/roofline.py, "Engine efficiency"); 1 is
# the ideal, the default, so the plate's figures stay the seed's. Below 0.1 no engine runs.
EFF = float_("eff", 0.1, 1, 1.0, unit="of the ideal", step=0.01,
             help="the share of the roofline's speed an engine reaches (1: the ideal)",
             sections=("onebyone", "batch", "idle", "bench"))
# Absent on the page: the α that section 7 measures for the chosen draft.
ALPHA = float_("alpha", 0, 1, None, help="acceptance rate α (absent: measured)", step=0.001,
               sections=("speedup", "idle"))
DEPTH = choice("depth", DEPTHS, "picture", help="how deep each section explains")
# The "Go further" folds a reader opened (issue 22): closed by default, all open at the Frontier
# depth; like the depth, no section's numbers read it.
MORE = text("more", 300, help="the “Go further” folds opened, by id, comma-separated",
            pattern=r"[a-z][a-z0-9-]*(,[a-z][a-z0-9-]*)*")
TDRAFT = choice("tdraft", DRAFTS, "bigram", help="the draft of section 6's tubes", sections=("exact",))
# Section 6 starts with 5 rounds of 200 draws: enough to catch either wrong rule 9 times in 10 on
# both books' contexts with any draft that differs from the target (sim/tubes.py, DEFAULT_ROUNDS;
# the plate's one round of 50 caught resample-target 17 % of the time).
ROUNDS = int_("rounds", 1, ROUNDS_MAX, _tubes.DEFAULT_ROUNDS, unit=f"rounds of {_tubes.DEFAULT_TRIALS}",
              help="rounds poured into section 6's tubes", sections=("exact",))
TEXT = text("text", 64, help="sha256 of the reader's text (POST /api/lab/text)", pattern="[0-9a-f]{64}",
            sections=_LAB_TEXT)
TLANG = choice("tlang", ("auto",) + LANGS, "auto", help="how the lab splits the reader's text",
               sections=_LAB_TEXT)
LDRAFT = choice("ldraft", LAB_DRAFTS, "bigram", help="the lab's draft", sections=_lab("run", "compare"))
ADAPT_ = choice("adapt", ADAPT, "off", help="the lab's adaptive γ", sections=_lab("run", "compare"))
# Section 11, token trees: one pass stepped through ("trees.pass"), tubes for trees ("trees.tubes"),
# tokens per pass and speed-up by node budget on the roofline ("trees.budget"). The tree's limits
# (n, k, d) are the pass's and the chart's; the rule is the pass's and the tubes'.
TREE_N = int_("n", 1, TREE_N_MAX, 8, unit="guesses", help="node budget: guesses per pass",
              sections=_trees("pass", "budget"))
TREE_K = int_("k", 1, TREE_K_MAX, 4, help="children per node at most (EAGLE-2: its top-k)",
              sections=_trees("pass", "budget"))
TREE_D = int_("d", 1, TREE_D_MAX, 5, unit="levels", help="depth limit of the tree",
              sections=_trees("pass", "budget"))
SHAPE = choice("shape", SHAPES, "best", help="the tree each pass (sim.tree.plan)", sections=_trees("pass"))
SAMPLING = choice("sampling", SAMPLINGS, "wor", help="how the draft fills a node's children",
                  sections=_trees("pass", "tubes"))
TRULE = choice("trule", TREE_RULES, "sequoia", help="the tree's check (exact ones and wrong ones)",
               sections=_trees("pass", "tubes"))
TROUNDS = int_("trounds", 1, TREE_ROUNDS_MAX, 1, unit=f"rounds of {TREE_TUBE_TRIALS}",
               help="rounds poured into the tree tubes", sections=_trees("tubes"))
# A section's own draw counters: "Empty and refill" and "Another pass" draw afresh by counting
# these up, never the page-wide seed (which every speculative section and embed reads). 0 draws
# from the seed alone, as before.
DRAW = int_("draw", 0, SEED_MAX, 0, help="section 6's own draw counter (its tubes refilled)", sections=("exact",))
TPASS = int_("tpass", 0, SEED_MAX, 0, help="section 11's own draw counter for its pass",
             sections=_trees("pass"))
TDRAW = int_("tdraw", 0, SEED_MAX, 0, help="section 11's own draw counter for its tubes",
             sections=_trees("tubes"))


def drawn_seed(seed: int, draw: int):
    """The random numbers' seed for a section's ``draw``-th refill: the page's seed itself at 0."""
    return seed if not draw else [seed, draw]


# ---- the API's and the command line's own parameters --------------------------------------------

TOKENS = int_("tokens", 1, TOKENS_MAX, 40, unit="tokens", help="tokens to write")
TRACE = bool_("trace", True, help="every pass traced (0: the counts alone)")
CONTEXT = text("context", CONTEXT_CHARS, help="the context the run continues (default: the language's example)")
TOP = int_("top", 1, TOP_MAX, 10, unit="tokens", help="list the N likeliest tokens")
NGRAM = choice("model", NGRAM_MODELS, "trigram", help="which n-gram model")
TRIALS = int_("trials", 1, TRIALS_MAX, 50, unit="draws", help="first tokens drawn per round")
GAMMA_RUN = GAMMA.but(lo=0, hi=GAMMA_MAX, help="guesses per pass (0: the target alone)")
GAMMA_ANY = GAMMA.but(hi=GAMMA_MAX)
ALPHA_GIVEN = ALPHA.but(default=0.6)     # where α is an input, not measured


def spec(*params: Param) -> dict[str, Param]:
    """A route's (or the page's) parameters by name."""
    out = {p.name: p for p in params}
    assert len(out) == len(params), "a name given twice"
    return out


# The page's URL state, in the order the README lists it.
PAGE = spec(GPU, MODEL, BATCH, CTX, LANES, EFF, GAMMA, DRAFT, GREEDY, RULE, TDRAFT, ROUNDS, SEED, C, ALPHA,
            DEPTH, MORE, TEXT, TLANG, LDRAFT, ADAPT_, TREE_N, TREE_K, TREE_D, SHAPE, SAMPLING, TRULE, TROUNDS,
            DRAW, TPASS, TDRAW)


# How the page is shown, set by a teacher (the teacher's page, /<lang>/specdec/teach/). No section
# reads these and no answer depends on them, so they are not in PAGE, the sections' state: they
# ride beside it in the links a teacher hands out, and the page, its embeds and the teacher's page
# read them (views/teach.py). Which anchors `sections` may name is the sections registry's to say.
CONTROLS = ("shown", "locked", "hidden")
VIEWS = ("page", "projector")
CLASS_CODE = "[A-HJ-NP-Z2-9]{6}"    # a class's code: no 0/O, no 1/I, read off a projector
SECTIONS_SHOWN = text("sections", 400, help="the sections shown, by anchor, comma-separated (default: every one)",
                      pattern=r"[a-z]+(,[a-z]+)*",
                      shape=N_("section names separated by commas (tape,exact), or empty"))
CONTROLS_SHOWN = choice("controls", CONTROLS, "shown",
                        help="the interactives' settings: shown, locked (shown, not movable) or hidden")
PAUSED = bool_("paused", help="nothing moves until the reader starts it")
VIEW = choice("view", VIEWS, "page", help="projector: large type, thick lines, high contrast")
CLASS = text("class", 6, help="a class's code: the predictions are counted for its teacher",
             pattern=CLASS_CODE, shape=N_("six capital letters and digits (a class's code), or empty"))
SHOW = spec(SECTIONS_SHOWN, CONTROLS_SHOWN, PAUSED, VIEW, CLASS)
# The teacher's page's own option: the language of the lesson it makes (absent: the page's own).
LESSON_LANG = choice("for", LANGS, None, help="the language of the lesson the teacher's page makes")

# The API's routes (views/api/).
API_RUN = spec(LANG, DRAFT, GAMMA_RUN, GREEDY, RULE, TOKENS, SEED, CONTEXT, TRACE)
# The API keeps its own defaults (one round of 50; the caps are the page's): a script asks for the
# draws it wants, and the answer's "power" says whether they were enough.
API_TUBES = spec(LANG, DRAFT, RULE, ROUNDS.but(default=1, unit="rounds", sections=()), TRIALS, SEED, CONTEXT)
API_THEORY = spec(ALPHA_GIVEN, GAMMA_ANY, C)
API_DIST = spec(LANG, NGRAM, CONTEXT, TOP)
# /api/roofline also answers to `context` for `ctx` (the page's URL uses the short name).
API_ROOFLINE = spec(LANG, GPU, MODEL, BATCH, CTX, CTX.but(name="context", default=None), GAMMA_ANY,
                ALPHA_GIVEN, C, LANES, EFF)
API_LAB_TEXT = spec(LANG)
_LAB_DRAFT = LDRAFT.but(name="draft")
API_LAB_RUN = spec(TEXT, LANG, _LAB_DRAFT, GAMMA, ADAPT_, SEED, C, TOKENS.but(default=LAB_RUN_TOKENS))
API_LAB_DRAFTS = spec(TEXT, LANG, GAMMA, SEED, C, TOKENS.but(default=LAB_RUN_TOKENS))
# The comparison needs a model draft (the lookup has no γ to adapt) and a policy.
API_LAB_COMPARE = spec(TEXT, LANG, _LAB_DRAFT.but(choices=DRAFTS), GAMMA, ADAPT_.but(choices=ADAPT[1:], default="hf"),
                   SEED, C, TOKENS.but(hi=LAB_COMPARE_TOKENS, default=LAB_COMPARE_TOKENS))
API_LAB_TUBES = spec(TEXT, LANG, SEED)
API_LAB_MAP = spec(GAMMA_ANY, C)
# Token trees. The API's tree takes the command line's names (`rule`, not the page's `trule`, which
# only the page needs apart from the chain's rule); absent, the sampling and the rule are the
# shape's own (wor, or top for EAGLE-2's tree and greedy; the sampling's exact rule, NATURAL) and
# the tokens as many as the caps allow up to 40 (views/api/tree.py).
TREE_SAMPLING_ANY = SAMPLING.but(default=None, sections=(),
                                 help="how the draft fills a node's children (absent: wor; top for "
                                      "dynamic or greedy)")
TREE_RULE_ANY = TRULE.but(name="rule", default=None, sections=(),
                          help="the check (absent: the sampling's own exact rule)")
TREE_TOKENS = TOKENS.but(default=None, help="tokens to write (absent: 40, or fewer where the caps say)")
TREE_TRACE = int_("trace", 0, TOKENS_MAX - 1, 0, help="the pass traced in full (a pass number)")
API_TREE = spec(LANG, DRAFT, SHAPE, TREE_SAMPLING_ANY, TREE_RULE_ANY, TREE_N, TREE_K, TREE_D, GREEDY,
                TREE_TOKENS, TREE_TRACE, SEED, CONTEXT)
API_TREE_TUBES = spec(LANG, DRAFT, SAMPLING, TREE_RULE_ANY,
                      TREE_K.but(default=8, help="guesses for the first token (the star's children)"),
                      ROUNDS.but(hi=TREE_TUBE_PASSES, default=1, unit="rounds", help="rounds of trials"),
                      TRIALS.but(default=TREE_TUBE_TRIALS, help="passes per round"), SEED, CONTEXT)
API_TREE_BUDGET = spec(LANG, DRAFT, TREE_K, TREE_D, GPU, MODEL, BATCH, CTX,
                       CTX.but(name="context", default=None), C)

# Every GET route of the API and what it takes (tests fuzz each; the README lists them). The
# page's own route, /api/section/<unit>, takes `lang` and what that unit reads (`section_spec`).
ROUTES = {
    "/api/dist": API_DIST, "/api/run": API_RUN, "/api/tubes": API_TUBES, "/api/theory": API_THEORY,
    "/api/roofline": API_ROOFLINE, "/api/lab/run": API_LAB_RUN, "/api/lab/drafts": API_LAB_DRAFTS,
    "/api/lab/compare": API_LAB_COMPARE, "/api/lab/tubes": API_LAB_TUBES,
    "/api/lab/breakeven": API_LAB_MAP, "/api/tree": API_TREE, "/api/tree/tubes": API_TREE_TUBES,
    "/api/tree/budget": API_TREE_BUDGET,
}

# A class's predictions (views/classroom.py): JSON bodies and a code in the path; the query takes
# the language of the messages only. tests/test_classroom.py fuzzes these routes.
API_CLASS = spec(LANG.but(default=None))
CLASS_ROUTES = {"/api/class": API_CLASS, "/api/class/<code>": API_CLASS, "/api/class/<code>/answer": API_CLASS,
                "/api/class/<code>/counts": API_CLASS, "/api/class/<code>/close": API_CLASS}

# The library's own checks: any size the arithmetic takes (sim/roofline.py, sim/theory.py).
LIB = spec(BATCH.but(hi=None), CTX.but(name="context", hi=None), LANES.but(name="n", hi=None),
           GAMMA.but(lo=0, hi=None), ALPHA.but(default=None), C.but(hi=None),
           int_("positions", 1, None, 1), int_("gamma_max", 1, None, GAMMA_MAX), int_("gpus", 1, None, 1),
           EFF.but(name="efficiency"))


def reads(unit: str) -> tuple[str, ...]:
    """The page parameters a section (``"tape"``) or a part of one (``"lab.run"``) reads."""
    return tuple(n for n, p in PAGE.items()
                 if unit in p.sections or any(s.startswith(unit + ".") for s in p.sections))


def section_spec(unit: str) -> dict[str, Param]:
    """What /api/section/<unit> takes: the language and the page parameters the unit reads."""
    return {"lang": LANG, **{n: PAGE[n] for n in reads(unit)}}


# ---- parsing a whole query ---------------------------------------------------------------------

def _values(args: Mapping, name: str) -> list[str]:
    if hasattr(args, "getlist"):       # Werkzeug's MultiDict
        return list(args.getlist(name))
    v = args[name]
    return list(v) if isinstance(v, (list, tuple)) else [v]


def parse(args: Mapping, params: Mapping[str, Param], gettext: Gettext = _english) -> dict:
    """Typed values for every parameter (defaults where absent). ParamError on a bad value, a
    repeated name, or a name the route does not take."""
    for name in args:
        if name not in params:
            allowed = (gettext(N_("one of %(choices)s")) % {"choices": join(params, gettext)} if params
                       else gettext(N_("no parameters")))
            raise ParamError(clip(name), allowed,
                             gettext(N_("Unknown parameter “%(name)s”.")) % {"name": clip(name)})
    out = {}
    for name, p in params.items():
        if name not in args:
            out[name] = p.default
            continue
        vals = _values(args, name)
        if len(vals) != 1:
            raise p.error(gettext, N_("%(name)s is given %(n)s times; give it once."), n=len(vals))
        out[name] = p.parse(str(vals[0]), gettext)
    return out


def parse_lenient(args: Mapping, params: Mapping[str, Param], gettext: Gettext = _english) -> tuple[dict, list[ParamError]]:
    """Like ``parse``, but a bad value falls back to the default and is reported, not raised;
    names the route does not take are ignored (links carry tracking parameters)."""
    out, errors = {}, []
    for name, p in params.items():
        out[name] = p.default
        if name not in args:
            continue
        vals = _values(args, name)
        try:
            if len(vals) != 1:
                raise p.error(gettext, N_("%(name)s is given %(n)s times; give it once."), n=len(vals))
            out[name] = p.parse(str(vals[0]), gettext)
        except ParamError as e:
            errors.append(e)
    return out, errors


def query(values: Mapping[str, Any], params: Mapping[str, Param], names: Iterable[str] | None = None) -> dict:
    """The values that differ from their defaults, as the URL writes them (only ``names`` if given)."""
    names = params if names is None else names
    return {n: params[n].to_url(values[n]) for n in names
            if values.get(n) is not None and values[n] != params[n].default}


# ---- the command line --------------------------------------------------------------------------

def add_argument(parser, p: Param, *, required: bool = False, flag: str | None = None, **kw) -> None:
    """``--name`` on an argparse parser, typed and checked by the declaration (one line of error
    on a bad value, as the API's message says it), with the declaration's default and help."""
    import argparse

    def typed(raw: str):
        try:
            return p.parse(raw)
        except ParamError as e:
            raise argparse.ArgumentTypeError(e.message) from None

    opt = flag or f"--{p.name}"
    if p.kind == "bool":
        parser.add_argument(opt, action="store_true", help=kw.pop("help", p.help))
        return
    help_ = kw.pop("help", p.help)
    bits = [help_, p.allowed()] + ([p.unit] if p.unit and p.kind in ("int", "float") else [])
    parser.add_argument(opt, type=typed, required=required,
                        default=None if required else kw.pop("default", p.default),
                        help="; ".join(b for b in bits if b), **kw)
