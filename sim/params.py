"""The page's, the API's and the command line's parameters, each declared once: name, type, range
or choices, default, unit, and which sections of the page read it.

What derives from them: the API's validation (views/params.py), the command line's argparse
(sim/__main__.py), the state the page ships to its scripts (static/js/state.js parses, defaults and
writes the URL from that list), the options of the page's controls, and the README's table of page
parameters (a test compares them). How a parameter is declared and read is ``sim.param``; the
library's own checks are declared by each module beside its code, and the declarations here narrow
those where they are the same parameter.

A parameter that takes another range in one place (the API lets γ be 0, "the target alone"; the
page offers 1..8) is the same declaration narrowed with ``Param.but``; a name that means something
else in another route (the n-gram ``model`` of /api/dist) is a declaration of its own.

Only the command line (sim/__main__.py) and the views import this module; the engine does not.
"""
from __future__ import annotations

from corpus.text import DEFAULT_LANG, LANGS
from sim import roofline, speculative, theory, tubes
from sim.param import N_, Param, bool_, choice, float_, int_, spec, text
from sim.speculative import DRAFTS, RULES   # the chain's drafts; the exact rule and two wrong ones
from sim.theory import GAMMA_MAX            # guesses per pass anywhere (API, CLI, theory)
# How a token tree is filled and shaped, its checks (exact ones and wrong ones), children per node
# and guesses per pass.
from sim.tree import BRANCH_MAX, SAMPLINGS, SHAPES
from sim.tree import N_MAX as TREE_N_MAX
from sim.tree import RULES as TREE_RULES

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
# Token trees (the `trees` section, /api/tree...). Caps keep a request within the CPU budget of the others
# (bench/cpu.py --tree; README): a budget table (sim.tree.budget) costs about 0.1 s to 0.26 s of
# CPU at k ≤ 8 and d ≤ 16 the first time, then is kept per process.
TREE_K_MAX = 8           # children per node, the page's and the API's (sim allows BRANCH_MAX)
TREE_D_MAX = 16          # levels of guesses, the page's and the API's
TREE_TUBE_TRIALS = 50    # passes per round of the page's tree tubes
TREE_TUBE_PASSES = 200   # passes one request of tree tubes may make (rounds × trials)
TREE_ROUNDS_MAX = TREE_TUBE_PASSES // TREE_TUBE_TRIALS



# The page's sections and what reads what. The sections `draft` to `rule` step through the same
# 40-token run; the `alpha` section shows 200 tokens of it beside the pair's α (sim/pair.py), which
# `speedup` and `idle` take unless `alpha` pins one, so they read no seed (no run of theirs is
# drawn); the bench runs 60 tokens. Only the `exact` section (and no other) runs
# the chain's wrong rules; the `trees` section has its own rules for trees, exact and wrong (`trule`).
_CHAIN = ("draft", "tape", "rule", "alpha", "speedup", "idle", "bench")
_RUNS = tuple(s for s in _CHAIN if s not in ("speedup", "idle"))   # the sections that draw a run
_ROOF = ("onebyone", "batch", "idle", "selfdraft", "reader", "bench")


def _lab(*parts: str) -> tuple[str, ...]:
    return tuple(f"lab.{p}" for p in parts)


_LAB_TEXT = _lab("run", "drafts", "compare", "tubes")   # the break-even map is the same for any text


def _trees(*parts: str) -> tuple[str, ...]:
    return tuple(f"trees.{p}" for p in parts)


_TREES = _trees("pass", "tubes", "budget")


LANG = choice("lang", LANGS, DEFAULT_LANG, help="the book (and the language of messages)")
# The `speedup` section reads them too: it sets its speed-up against the `onebyone` section's single-stream ceiling.
GPU = choice("gpu", tuple(roofline.GPUS), "h100-sxm", help="a GPU preset (sim/roofline.py)",
             sections=_ROOF + ("speedup",) + _trees("budget"))
MODEL = choice("model", tuple(roofline.MODELS), "llama-3.1-8b", help="a model preset (sim/roofline.py)",
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
RULE = speculative.RULE.but(help="the rule for passing (two of them wrong)", sections=("exact",))
SEED = int_("seed", 0, SEED_MAX, 1, help="seed of the random numbers",
            sections=_RUNS + ("exact",) + _LAB_TEXT + _trees("pass", "tubes"))
C = float_("c", 0, 1, 0.1, unit="target runs", help="one draft run's cost, in target runs", step=0.01,
           sections=("speedup", "idle", "bench") + _lab("run", "drafts", "compare", "map") + _trees("budget"))
# An engine reaches a share of the roofline's speed (sim/roofline.py, "Engine efficiency"); 1 is
# the ideal, the default, so the plate's figures stay the seed's. Below 0.1 no engine runs.
EFF = roofline.CHECKS["efficiency"].but(
    name="eff", unit="of the ideal", step=0.01,
    help="the share of the roofline's speed an engine reaches (1: the ideal)",
    sections=("onebyone", "batch", "idle", "bench"))
# Absent on the page: the α that the `alpha` section measures for the chosen draft.
ALPHA = theory.CHECKS["alpha"].but(help="acceptance rate α (absent: measured)", step=0.001,
                                   sections=("speedup", "idle"))
DEPTH = choice("depth", DEPTHS, "picture", help="how deep each section explains")
# The "Go further" folds a reader opened (issue 22): closed by default, all open at the Frontier
# depth; like the depth, no section's numbers read it.
MORE = text("more", 300, help="the “Go further” folds opened, by id, comma-separated",
            pattern=r"[a-z][a-z0-9-]*(,[a-z][a-z0-9-]*)*",
            shape=N_("“Go further” folds' ids separated by commas (trees-budget,idle-more), or empty"))
TDRAFT = choice("tdraft", DRAFTS, "bigram", help="the draft of the tubes that test the rule", sections=("exact",))
# The `exact` section starts with 5 rounds of 200 draws: enough to catch either wrong rule 9 times in 10 on
# both books' contexts with any draft that differs from the target (sim/tubes.py, DEFAULT_ROUNDS;
# the plate's one round of 50 caught resample-target 17 % of the time).
ROUNDS = int_("rounds", 1, ROUNDS_MAX, tubes.DEFAULT_ROUNDS, unit=f"rounds of {tubes.DEFAULT_TRIALS}",
              help="rounds poured into the tubes that test the rule", sections=("exact",))
TEXT = text("text", 64, help="sha256 of the reader's text (POST /api/lab/text)", pattern="[0-9a-f]{64}",
            sections=_LAB_TEXT)
TLANG = choice("tlang", ("auto",) + LANGS, "auto", help="how the lab splits the reader's text",
               sections=_LAB_TEXT)
LDRAFT = choice("ldraft", LAB_DRAFTS, "bigram", help="the lab's draft", sections=_lab("run", "compare"))
ADAPT_ = choice("adapt", ADAPT, "off", help="the lab's adaptive γ", sections=_lab("run", "compare"))
# The `trees` section, token trees: one pass stepped through ("trees.pass"), tubes for trees ("trees.tubes"),
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
DRAW = int_("draw", 0, SEED_MAX, 0, help="the tubes' own draw counter (their refills)", sections=("exact",))
TPASS = int_("tpass", 0, SEED_MAX, 0, help="the tree pass's own draw counter", sections=_trees("pass"))
TDRAW = int_("tdraw", 0, SEED_MAX, 0, help="the tree tubes' own draw counter", sections=_trees("tubes"))


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


def reads(unit: str) -> tuple[str, ...]:
    """The page parameters a section (``"tape"``) or a part of one (``"lab.run"``) reads."""
    return tuple(n for n, p in PAGE.items()
                 if unit in p.sections or any(s.startswith(unit + ".") for s in p.sections))


def section_spec(unit: str) -> dict[str, Param]:
    """What /api/section/<unit> takes: the language and the page parameters the unit reads."""
    return {"lang": LANG, **{n: PAGE[n] for n in reads(unit)}}
