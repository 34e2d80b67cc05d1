"""sim.speculative: the exact rule keeps the target's distribution, the wrong rules do not, greedy
speculative decoding is plain greedy decoding, and traces are reproducible."""

import numpy as np
import pytest

from sim import examples, theory
from sim.ngram import load_models
from sim.speculative import RULES, generate, plain_decode, residual, speculative_step
from sim.tubes import chi_square, first_tokens
from tests.stats import joint_pvalue

# Contexts where the bigram draft and the trigram target really disagree (total variation ≥ 0.2),
# so a wrong rule has something to get wrong: ", when" is the plate's tubes context (TV 0.29);
# "said the" is frequent (206 times) and the draft favours "Queen" where the target says "King"
# (TV 0.64); the Chinese context is the one the code picks for the tubes (TV ≥ 0.2 by construction).
CONTEXTS = [("en", (",", "when")), ("en", ("said", "the")), ("zh", None)]
# Draws for each chi-square test, chosen so that a rule with half a wrong rule's bias (a quarter
# of its noncentrality λ) is still refused at SIGNIFICANCE with probability above 1 − 1e-6;
# λ measured over 4 seeds with resample-target.
# The vectorised first tokens (sim.tubes.first_tokens) cost nothing: 20,000.
N_DRAWS = 20_000
# One speculative_step per draw: 10,000 (resample-target: χ² 595-706 on ~62 bins, λ ≈ 590,
# critical value 102; half its bias is missed with probability 7e-7).
N_STEP_DRAWS = 10_000
# The loop's first two tokens, jointly: 20,000 (resample-target: λ ≈ 1,160 on ~278 bins, half its
# bias missed with probability 3e-9; at 10,000, λ ≈ 550 and it would be missed 1 time in 80).
N_LOOP_DRAWS = 20_000
SIGNIFICANCE = 1e-3


def models_and_context(lang, tokens):
    m = load_models(lang)
    tokens = tokens or examples.tubes_context(lang)
    return m["trigram"], m["bigram"], m["trigram"].encode(list(tokens))


@pytest.mark.parametrize("lang,tokens", CONTEXTS)
def test_contexts_really_disagree(lang, tokens):
    target, draft, ctx = models_and_context(lang, tokens)
    assert np.maximum(target.dist(ctx) - draft.dist(ctx), 0).sum() >= 0.2


@pytest.mark.parametrize("lang,tokens", CONTEXTS)
def test_exact_rule_passes_and_wrong_rules_fail_chi_square(lang, tokens):
    target, draft, ctx = models_and_context(lang, tokens)
    p, q = target.dist(ctx), draft.dist(ctx)
    rng = np.random.default_rng(2024)
    pvalues = {}
    for rule in RULES:
        x, _ = first_tokens(p, q, N_DRAWS, rng, rule)
        pvalues[rule] = chi_square(np.bincount(x, minlength=p.size), p)[1]
    assert pvalues["exact"] > SIGNIFICANCE
    assert pvalues["resample-target"] < SIGNIFICANCE
    assert pvalues["keep-draft"] < SIGNIFICANCE


def test_the_step_itself_passes_chi_square():
    # The same test through speculative_step (γ = 2), not the vectorised tubes helper.
    target, draft, ctx = models_and_context("en", ("said", "the"))
    rng = np.random.default_rng(7)
    first = [speculative_step(target, draft, ctx, 2, rng).written[0][0] for _ in range(N_STEP_DRAWS)]
    counts = np.bincount(first, minlength=target.V)
    assert chi_square(counts, target.dist(ctx))[1] > SIGNIFICANCE


@pytest.mark.slow
@pytest.mark.parametrize("rule,passes", [("exact", True), ("resample-target", False)])
def test_loop_first_two_tokens_follow_the_targets_joint_distribution(rule, passes):
    target, draft, ctx = models_and_context("en", ("said", "the"))
    rng = np.random.default_rng(11)
    pairs = [tuple(generate(target, draft, ctx, 2, 3, rng, rule=rule).tokens) for _ in range(N_LOOP_DRAWS)]
    assert (joint_pvalue(target, ctx, pairs) > SIGNIFICANCE) == passes


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("gamma", [1, 2, 4, 8])
def test_greedy_speculative_is_plain_greedy_token_for_token(lang, gamma):
    m = load_models(lang)
    target = m["trigram"]
    for draft in (m["bigram"], m["unigram"]):
        for tokens in (examples.tubes_context(lang), examples.easy_and_hard(lang)["hard"]["tokens"]):
            ctx = target.encode(list(tokens))
            plain = plain_decode(target, ctx, 60, np.random.default_rng(0), greedy=True)
            spec = generate(target, draft, ctx, 60, gamma, np.random.default_rng(0), greedy=True)
            assert spec.tokens == plain


def test_identical_draft_accepts_every_proposal():
    m = load_models("en")
    ctx = m["trigram"].encode([",", "when"])
    run = generate(m["trigram"], m["trigram"], ctx, 300, 4, np.random.default_rng(5))
    stats = run.stats()
    assert stats["acceptance_rate"] == 1.0
    assert stats["alpha"] == pytest.approx(1.0)
    assert stats["accepted_hist"][:-1] == [0, 0, 0, 0]
    assert stats["tokens_per_pass"] == 5.0  # γ + 1 every pass


def test_unigram_draft_is_slower_but_still_exact():
    target, _, ctx = models_and_context("en", ("said", "the"))
    m = load_models("en")
    per_pass = {name: generate(target, m[name], ctx, 2000, 4, np.random.default_rng(1)).stats()["tokens_per_pass"]
                for name in ("bigram", "unigram")}
    assert per_pass["unigram"] < per_pass["bigram"]
    p, q = target.dist(ctx), m["unigram"].dist(ctx)
    x, _ = first_tokens(p, q, N_DRAWS, np.random.default_rng(3))
    assert chi_square(np.bincount(x, minlength=p.size), p)[1] > SIGNIFICANCE


def test_same_seed_same_trace():
    target, draft, ctx = models_and_context("zh", None)
    a = generate(target, draft, ctx, 50, 4, np.random.default_rng(42)).to_json(target.vocab)
    b = generate(target, draft, ctx, 50, 4, np.random.default_rng(42)).to_json(target.vocab)
    c = generate(target, draft, ctx, 50, 4, np.random.default_rng(43)).to_json(target.vocab)
    assert a == b
    assert a["tokens"] != c["tokens"]


def test_trace_is_consistent():
    target, draft, ctx = models_and_context("en", (",", "when"))
    rng = np.random.default_rng(9)
    for _ in range(300):
        step = speculative_step(target, draft, ctx, 4, rng)
        kinds = [kind for _, kind in step.written]
        n = step.n_accepted
        # Kept guesses come first, then exactly one token of the target's own.
        assert kinds == ["kept"] * n + (["bonus"] if n == 4 else ["replaced"])
        for pr in step.proposals:
            assert pr.accepted == (pr.r < pr.p / pr.q)
        assert all(pr.accepted for pr in step.proposals[:-1])  # only the last may be refused
        if step.residual is not None:
            refused = step.proposals[-1]
            res = step.residual.dense()
            assert res.sum() == pytest.approx(1.0)
            assert np.all(res[refused.p_dist.dense() <= refused.q_dist.dense()] == 0)
            assert res[step.replacement] > 0


def test_residual_is_the_positive_part_normalised():
    p, q = np.array([0.5, 0.3, 0.2]), np.array([0.2, 0.5, 0.3])
    assert residual(p, q) == pytest.approx([1.0, 0.0, 0.0])  # max(0, p − q) = (0.3, 0, 0)
    assert residual(p, p) is p  # no mass left: a refusal cannot happen, p is returned


def test_run_statistics_add_up():
    target, draft, ctx = models_and_context("en", (",", "when"))
    run = generate(target, draft, ctx, 500, 3, np.random.default_rng(2))
    s = run.stats()
    written = sum(len(step.written) for step in run.steps)
    assert len(run.tokens) == 500 <= written
    assert sum(s["accepted_hist"]) == s["passes"] == len(run.steps)
    assert s["tokens_per_pass"] == written / s["passes"]
    assert len(run.overlaps) == written and 0 < s["alpha"] < 1


def test_gamma_zero_is_plain_decoding():
    target, draft, ctx = models_and_context("en", (",", "when"))
    run = generate(target, draft, ctx, 30, 0, np.random.default_rng(4))
    assert run.tokens == plain_decode(target, ctx, 30, np.random.default_rng(4))
    assert run.stats()["tokens_per_pass"] == 1.0


def test_bad_arguments_are_refused():
    target, draft, ctx = models_and_context("en", (",", "when"))
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="gamma"):
        speculative_step(target, draft, ctx, 17, rng)
    with pytest.raises(ValueError, match="rule"):
        speculative_step(target, draft, ctx, 2, rng, rule="nope")


@pytest.mark.parametrize("greedy,rule", [(False, "exact"), (True, "exact"), (False, "resample-target")])
def test_head_of_a_run_is_the_shorter_run(greedy, rule):
    # The page cuts its 40- and 60-token runs from one 200-token run; that must be exactly what
    # generating the shorter run from the same seed gives.
    target, draft, ctx = models_and_context("en", (",", "when"))
    full = generate(target, draft, ctx, 200, 4, np.random.default_rng(11), greedy=greedy, rule=rule)
    for n in (1, 40, 60, 199):
        short = generate(target, draft, ctx, n, 4, np.random.default_rng(11), greedy=greedy, rule=rule)
        head = full.head(n)
        assert head.tokens == short.tokens
        assert head.stats() == short.stats()
        assert head.to_json(target.vocab, top=3) == short.to_json(target.vocab, top=3)
    with pytest.raises(ValueError):
        full.head(len(full.overlaps) + 1)


# --- α under greedy decoding ----------------------------------------------------------------------

class CoinModel:
    """A stand-in for an n-gram model over V tokens, built so that under greedy decoding each position
    is an independent coin: the target's arg-max at a context is a hash of its last four tokens, and
    the draft's arg-max is the same token with probability ALPHA0 (else another), decided by a second
    hash. Both put 0.7 on their arg-max and spread the rest evenly. Four tokens of a 1,000-token
    vocabulary give 10^12 states, so the greedy text does not loop within a long run."""

    V, TOP, ALPHA0 = 1000, 0.7, 0.7

    def __init__(self, role: str):
        self.role = role
        self.base = self.shared_base()

    _base = None

    @classmethod
    def shared_base(cls):
        from sim.dist import Base
        if cls._base is None:  # one Base for both, as the real models share their unigram
            cls._base = Base(np.full(cls.V, 1.0 / cls.V))
        return cls._base

    @staticmethod
    def _mix(*xs) -> int:
        h = hash(tuple(int(x) for x in xs)) & 0xFFFFFFFF  # ints hash the same in every process
        return (h * 2654435761 + 0x9E3779B9) & 0xFFFFFFFF

    def top(self, ctx) -> int:
        key = tuple(ctx[-4:])
        t = self._mix(1, *key) % self.V
        if self.role == "target":
            return t
        agree = self._mix(2, *key) / 2 ** 32 < self.ALPHA0
        return t if agree else (t + 1 + self._mix(3, *key) % (self.V - 1)) % self.V

    def sparse(self, ctx):
        from sim.dist import Dist, Support
        sup = Support(self.base, np.array([self.top(ctx)], dtype=np.int64))
        rest = 1.0 - self.TOP
        return Dist(sup, rest / (1.0 - 1.0 / self.V), np.array([self.TOP]))


def test_coin_model_is_a_distribution():
    d = CoinModel("draft").sparse([1, 2, 3, 4])
    assert d.mass == pytest.approx(1.0) and d.dense().sum() == pytest.approx(1.0)
    assert d.argmax() == CoinModel("draft").top([1, 2, 3, 4])


def test_greedy_alpha_makes_the_formula_count_right():
    # Each position is kept independently with chance 0.7, so a pass writes
    # (1 − 0.7^5) / 0.3 = 2.7731 tokens on average (γ = 4). The run's α must be the share of
    # positions where the arg-maxes agree (≈ 0.7), not the mean Σ min(p, q): that is 1 where they
    # agree and about 0.3 where not, ≈ 0.79, and its formula (3.2 tokens) would be far off.
    target, draft = CoinModel("target"), CoinModel("draft")
    gamma = 4
    run = generate(target, draft, [0, 0, 0, 0], 15_000, gamma, np.random.default_rng(0), greedy=True)
    s = run.stats()
    assert s["alpha_measure"] == "agreement"
    per_pass = np.array([len(step.written) for step in run.steps], dtype=float)
    n = per_pass.size
    assert s["tokens_per_pass"] == pytest.approx(per_pass.mean())
    # Sampling error: of the counted mean, and of α̂ carried through dE/dα (numerically).
    se_count = per_pass.std(ddof=1) / np.sqrt(n)
    a = s["alpha"]
    se_alpha = np.sqrt(a * (1 - a) / len(run.agreements))
    slope = (theory.expected_tokens(min(1, a + 1e-4), gamma) - theory.expected_tokens(a - 1e-4, gamma)) / 2e-4
    tolerance = 4 * np.hypot(se_count, slope * se_alpha)
    assert abs(theory.expected_tokens(a, gamma) - s["tokens_per_pass"]) < tolerance
    assert abs(a - CoinModel.ALPHA0) < 4 * se_alpha
    # The old estimate (mean Σ min(p, q), 0.79) is off by 0.52 tokens: over 12 standard errors.
    old = float(np.mean(run.overlaps))
    assert abs(theory.expected_tokens(old, gamma) - s["tokens_per_pass"]) > 3 * tolerance


def test_greedy_alpha_is_the_share_of_positions_where_the_argmaxes_agree():
    # The example: the bigram draft's greedy text falls into a loop (", and the Queen")
    # where 97.5 % of the guesses are kept; α there must say so (0.98), not Σ min(p, q) (0.666).
    target, draft, ctx = models_and_context("en", (",", "when"))
    run = generate(target, draft, ctx, 200, 4, np.random.default_rng(1), greedy=True)
    text = list(ctx)
    for step in run.steps:
        text += [tok for tok, _ in step.written]
    agree = [int(np.argmax(target.dist(text[:i])) == np.argmax(draft.dist(text[:i])))
             for i in range(len(ctx), len(text))]
    s = run.stats()
    assert run.agreements == [bool(a) for a in agree]
    # α over the 200 positions the run returns (the last pass may write past them).
    assert s["alpha"] == pytest.approx(np.mean(agree[:200]))
    assert s["alpha"] > 0.9 > 0.7 > np.mean(run.overlaps)
    # Under greedy a guess is kept exactly when the arg-maxes agree at its position.
    for step in run.steps:
        for pr in step.proposals:
            assert pr.accepted == pr.agree
    # The formula from this α lands near the count (4.81 against 4.70 here); from Σ min(p, q) it
    # gave 2.60.
    counted = s["tokens_per_pass"]
    assert abs(theory.expected_tokens(s["alpha"], 4) - counted) < 0.05 * counted
    assert abs(theory.expected_tokens(float(np.mean(run.overlaps)), 4) - counted) > 1.5


def test_sampling_alpha_is_still_the_mean_overlap():
    target, draft, ctx = models_and_context("en", (",", "when"))
    run = generate(target, draft, ctx, 200, 4, np.random.default_rng(1))
    s = run.stats()
    assert run.agreements is None and s["alpha_measure"] == "overlap"
    assert s["alpha"] == float(np.mean(run.overlaps[:len(run.tokens)]))
    j = run.to_json(target.vocab, top=0)
    assert j["agreement"] is None
    assert all(p["greedy_check"] is None for st in j["steps"] for p in st["proposals"])


def test_greedy_step_json_carries_the_two_argmaxes():
    target, draft, ctx = models_and_context("en", ("said", "the"))
    run = generate(target, draft, ctx, 60, 4, np.random.default_rng(3), greedy=True)
    j = run.to_json(target.vocab, top=0)
    assert j["agreement"] == run.agreements[:60]
    seen = {True: 0, False: 0}
    for step, sj in zip(run.steps, j["steps"]):
        for pr, pj in zip(step.proposals, sj["proposals"]):
            g = pj["greedy_check"]
            # The guess is the draft's top token; the target's top token is p's arg-max.
            assert g["draft_top"] == pj["token"] and g["q"] == pytest.approx(pj["q"])
            assert g["target_top"] == target.vocab[int(np.argmax(pr.p_dist.dense()))]
            assert g["p"] == pytest.approx(pr.p_dist.dense().max())
            assert g["agree"] == pj["accepted"]
            seen[g["agree"]] += 1
            if not g["agree"]:  # refused: the target's top token is what it writes instead
                assert sj["replacement"] == g["target_top"]
    assert seen[True] and seen[False]
