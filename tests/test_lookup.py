"""sim.lookup: what the lookup proposes, that it keeps the target's distribution, and that it
pays on repetitive text and not on prose."""
import numpy as np
import pytest

from sim import usertext
from sim.lookup import NgramIndex, generate_lookup, lookup_stats, lookup_step, propose
from sim.ngram import load_models
from sim.speculative import plain_decode
from sim.tubes import chi_square

# 5,000 draws of a lookup pass's first token are enough to refuse both wrong rules with room to
# spare. Measured (4 seeds): resample-target's chi-square is 570-656 on ~35 bins (noncentrality
# λ ≈ 570; the 1e-3 critical value is 67), so it passes with probability ~1e-63, and a rule with
# half its bias (λ/4) with 2e-8; keep-draft's statistic is ~34,000. (20,000 took four times as
# long for nothing a wrong rule could hide in.)
N_DRAWS = 5_000
SIGNIFICANCE = 1e-3


def _scan(h, gamma, max_ngram=3):
    """The lookup by brute force: the latest j < L − n whose n tokens equal the last n."""
    L = len(h)
    if gamma < 1 or L < 2:
        return []
    for n in range(min(max_ngram, L - 1), 0, -1):
        js = [j for j in range(L - n) if h[j:j + n] == h[L - n:]]
        if js:
            return h[js[-1] + n:js[-1] + n + gamma]
    return []


def test_index_grown_token_by_token_agrees_with_a_scan():
    rng = np.random.default_rng(0)
    for alphabet in (2, 3, 6):
        h = [int(x) for x in rng.integers(0, alphabet, 300)]
        index = NgramIndex(h[:5])
        for L in range(5, len(h) + 1):
            for gamma in (1, 4):
                assert index.propose(gamma) == _scan(h[:L], gamma), (alphabet, L, gamma)
            if L < len(h):
                index.append(h[L])


def test_propose_copies_what_followed_the_last_occurrence():
    # Tail (1, 2, 3) occurs at 0 and 4; the later one is followed by 5, 9, 1, 2.
    assert propose([1, 2, 3, 4, 1, 2, 3, 5, 9, 1, 2, 3], 4) == [5, 9, 1, 2]
    assert propose([1, 2, 3, 4, 1, 2, 3, 5, 9, 1, 2, 3], 1) == [5]
    # No trigram or bigram match: falls back to the unigram 5 at position 0, followed by 6, 5.
    assert propose([5, 6, 5], 3) == [6, 5]
    # The proposal stops where the text does: after the match only one token is known.
    assert propose([7, 7], 4) == [7]
    assert propose([5, 6, 7], 3) == []      # nothing repeats
    assert propose([], 3) == [] and propose([1, 1], 0) == []


def _models_and_history():
    # "said the" is followed by "King" earlier in the history, so the lookup proposes "King",
    # the trigram's favourite after "said the" at p ≈ 0.13: refusals are common, and a wrong
    # rule's bias (of order p(x)(1 − p(x)) on x) is large enough to show in 20,000 draws.
    m = load_models("en")
    T = m["trigram"]
    hist = T.encode("“ Off with her head ! ” said the King . “ Nonsense ! ” said the".split())
    return T, hist


def test_context_has_a_match_with_a_middling_probability():
    T, hist = _models_and_history()
    guesses = propose(hist, 4)
    assert T.decode(guesses[:1]) == ["King"]
    assert 0.1 < T.dist(hist)[guesses[0]] < 0.9


@pytest.mark.parametrize("rule,exact", [("exact", True), ("resample-target", False), ("keep-draft", False)])
def test_first_token_of_a_lookup_pass_follows_p(rule, exact):
    T, hist = _models_and_history()
    rng = np.random.default_rng(2023)
    first = [lookup_step(T, hist, 3, rng, rule=rule).written[0][0] for _ in range(N_DRAWS)]
    pvalue = chi_square(np.bincount(first, minlength=T.V), T.dist(hist))[1]
    assert (pvalue > SIGNIFICANCE) == exact


def test_refusal_draws_from_p_without_the_guess():
    T, hist = _models_and_history()
    rng = np.random.default_rng(5)
    for _ in range(200):
        step = lookup_step(T, hist, 2, rng)
        if step.residual is not None:
            x = step.proposals[-1].token
            p = T.dist(list(hist) + step.guesses[:len(step.proposals) - 1])
            expected = p.copy()
            expected[x] = 0
            assert step.residual.dense() == pytest.approx(expected / expected.sum())
            assert step.replacement != x
            return
    pytest.fail("no refusal in 200 passes")


def test_no_match_is_a_plain_target_step():
    T = load_models("en")["trigram"]
    hist = T.encode("Alice was beginning to get".split())   # no token repeats
    step = lookup_step(T, hist, 4, np.random.default_rng(0))
    assert step.gamma == 0 and step.proposals == [] and len(step.written) == 1
    assert step.written[0][1] == "bonus"


def test_greedy_lookup_is_plain_greedy():
    T, hist = _models_and_history()
    run = generate_lookup(T, hist, 60, 4, np.random.default_rng(0), greedy=True)
    assert run.tokens == plain_decode(T, hist, 60, np.random.default_rng(0), greedy=True)


def test_lookup_shines_on_repetitive_text_and_is_useless_on_prose():
    # A refrain repeated with small changes: the models counted from it expect the refrain, and
    # the lookup copies it from the text so far.
    verses = [f"Round the {w} and back again , round the {w} we go , the {w} is wide and the night is long ."
              for w in ("hill", "mill", "well", "bell", "hill", "mill")]
    ut = usertext.build(" ".join(verses * 3).encode(), "en")
    T = ut.models["trigram"]
    rep = generate_lookup(T, list(ut.ids[-100:]), 200, 4, np.random.default_rng(1))
    # Prose: Alice's trigram writing after a history it sampled itself, so no refrain to copy.
    A = load_models("en")["trigram"]
    prose_hist = plain_decode(A, A.encode(["Alice", "was"]), 100, np.random.default_rng(2))
    prose = generate_lookup(A, prose_hist, 200, 4, np.random.default_rng(1))
    r, p = rep.stats(), prose.stats()
    assert r["tokens_per_pass"] > 2.5 and r["acceptance_rate"] > 0.7
    assert p["tokens_per_pass"] < 1.3 and p["acceptance_rate"] < 0.3
    assert lookup_stats(rep)["match_rate"] > lookup_stats(prose)["match_rate"]


def test_run_bookkeeping():
    T, hist = _models_and_history()
    run = generate_lookup(T, hist, 50, 3, np.random.default_rng(3))
    assert len(run.tokens) == 50 and len(run.context) == 8
    assert len(run.overlaps) == sum(len(s.written) for s in run.steps)
    assert all(s.gamma <= 3 for s in run.steps)
    js = run.to_json(T.vocab)
    assert len(js["steps"]) == len(run.steps)
    with pytest.raises(ValueError):
        generate_lookup(T, hist, 0, 3, np.random.default_rng(3))
