"""sim/pair.py: the draft's α as a property of the pair, and every section using that one figure."""
from __future__ import annotations

import numpy as np
import pytest

from sim import pair, theory
from sim import params as P
from sim.ngram import load_models
from views.sections import answer

DEFAULTS = {n: p.default for n, p in P.PAGE.items()}


def data(app, unit, lang="en", **values):
    with app.test_request_context(f"/{lang}/specdec/"):
        return answer(unit, lang, {**DEFAULTS, **values})


def test_pair_alpha_is_the_mean_chance_over_the_targets_own_text():
    got = pair.pair_alpha("en", "bigram", tokens=300)
    models = load_models("en")
    T, D = models["trigram"], models["bigram"]
    from sim import examples
    from sim.speculative import plain_decode
    start = T.encode(list(examples.tubes_context("en")))
    text = start + plain_decode(T, start, 300, np.random.default_rng(pair.PAIR_SEED))
    from sim.dist import overlap
    want = np.mean([overlap(T.sparse(text[max(0, i - 2):i]), D.sparse(text[max(0, i - 2):i]))
                    for i in range(len(start), len(text))])
    assert got["alpha"] == pytest.approx(want) and got["positions"] == 300
    # Deterministic, and ordered as the drafts read more (the target itself is kept always).
    assert pair.pair_alpha("en", "bigram", tokens=300) == got
    for lang in ("en", "zh"):
        a = {d: pair.alpha(lang, d) for d in ("unigram", "bigram", "trigram")}
        assert 0 < a["unigram"] < a["bigram"] < a["trigram"] == 1.0
    with pytest.raises(ValueError):
        pair.pair_alpha("en", "lookup")


class _Favourite:
    """A model reduced to what a greedy check reads: its arg-max after the last token."""

    def __init__(self, fav):
        self.fav = fav

    def sparse(self, ctx):
        class _D:
            def argmax(_self):
                return self.fav(ctx[-1])
        return _D()


def test_greedy_chance_is_agreement_of_the_two_favourites():
    # Target: after token t its favourite is (t + 1) mod 3; draft: always 0. Over the text
    # 0 1 2 0 1 from position 1 the last tokens are 0, 1, 2, 0, so the target's favourites are
    # 1, 2, 0, 1 and the draft's 0, 0, 0, 0: they agree at the third position only, α = 1/4.
    T, D = _Favourite(lambda t: (t + 1) % 3), _Favourite(lambda t: 0)
    ch = pair.chances(T, D, [0, 1, 2, 0, 1], 1, greedy=True)
    assert ch == [0.0, 0.0, 1.0, 0.0] and np.mean(ch) == 0.25


def test_greedy_alpha_is_agreement_over_the_targets_sampled_text_not_its_greedy_loop():
    """Greedy α counts agreement of the arg-maxes over the same sampled text the sampling α is
    averaged over. The target's own greedy text is a loop (", and the Queen" in English) where the
    favourites always agree, so α over it would be 1 for the bigram: the loop's, not the pair's."""
    from sim import examples
    from sim.speculative import plain_decode
    models = load_models("en")
    T, D = models["trigram"], models["bigram"]
    start = T.encode(list(examples.tubes_context("en")))
    sampled = start + plain_decode(T, start, 300, np.random.default_rng(pair.PAIR_SEED))
    ctxs = [sampled[max(0, i - 2):i] for i in range(len(start), len(sampled))]
    want = np.mean([T.sparse(c).argmax() == D.sparse(c).argmax() for c in ctxs])
    got = pair.pair_alpha("en", "bigram", greedy=True, tokens=300)
    assert got["alpha"] == pytest.approx(want) and got["positions"] == 300 and got["measure"] == "agreement"
    # The loop: over the target's greedy text the bigram agrees everywhere after the first tokens.
    loop = start + plain_decode(T, start, 300, np.random.default_rng(pair.PAIR_SEED), greedy=True)
    assert np.mean(pair.chances(T, D, loop, len(start) + 50, greedy=True)) == 1.0
    # The pair's greedy α is not that: a bigram's favourite misses the target's on ordinary text,
    # more often than Σ min(p, q) loses (an arg-max is all or nothing).
    for lang in ("en", "zh"):
        a = {d: pair.alpha(lang, d, greedy=True) for d in ("unigram", "bigram", "trigram")}
        assert 0 < a["unigram"] < a["bigram"] < 0.9 and a["trigram"] == 1.0
        assert pair.pair_alpha(lang, "bigram", greedy=True)["positions"] == pair.PAIR_TOKENS


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("state", [{}, {"gamma": 1}, {"gamma": 8}, {"seed": 7}, {"draft": "unigram"},
                                   {"draft": "unigram", "gamma": 2, "seed": 3}, {"greedy": True},
                                   {"batch": 8, "ctx": 1024}, {"c": 0.3, "gamma": 6}])
def test_every_section_uses_the_pairs_alpha(app, lang, state):
    """One α per (target, draft, language, greedy): sections 7, 8, 9, 11 and 14 (and the lab on the
    book) print the same figure whatever γ and seed are; the runs' own averages are their own."""
    v = {**DEFAULTS, **state}
    want = pair.alpha(lang, v["draft"], v["greedy"])
    al = data(app, "alpha", lang, **state)
    sp = data(app, "speedup", lang, **state)
    idle = data(app, "idle", lang, **state)
    bench = data(app, "bench", lang, **state)
    assert al["alpha"] == sp["measured"] == sp["theory"]["alpha"] == idle["idle"]["alpha"] == bench["pair"]["alpha"] == want
    # Tokens per pass from the formula at γ: one figure in sections 7, 8 and 14.
    tpp = theory.expected_tokens(want, v["gamma"])
    assert al["formula"] == sp["theory"]["expected_tokens"] == bench["pair"]["tokens_per_pass"] == pytest.approx(tpp)
    assert idle["idle"]["expected_tokens"] == pytest.approx(tpp)
    # The bench's speed-up is section 9's at the same setting.
    assert bench["speedup"] == pytest.approx(idle["idle"]["speedup"])
    if not v["greedy"]:   # section 11's trees sample; its chain is the pair's sampled chain
        tb = data(app, "trees.budget", lang, **state)
        assert tb["alpha"] == want
        lab = data(app, "lab.run", lang, ldraft=v["draft"], **{k: x for k, x in state.items() if k != "draft"})
        assert lab["pair_alpha"] == want
    # The run's own α is shown beside it and is the run's (over the 200 tokens it returns).
    if v["greedy"]:
        assert al["run"]["alpha"] == pytest.approx(al["agree"] / al["positions"])
    else:
        assert al["run"]["alpha"] == pytest.approx(np.mean(al["run"]["overlap"]))
        assert len(al["run"]["overlap"]) == 200


def test_section_9_and_section_11_name_one_best_chain(app):
    """For the same GPU, model, batch, context, c and draft, section 11's chain of sampled guesses
    is section 9's chain: the same best γ and speed-up (the page says why when the draft's
    likeliest tokens make a better chain)."""
    for state in ({}, {"batch": 1}, {"batch": 16, "ctx": 1024}, {"c": 0.05}, {"gpu": "a100-sxm-80gb"},
                  {"model": "llama-3.2-1b", "batch": 4}, {"draft": "unigram"}):
        idle = data(app, "idle", **state)["idle"]["best"]
        tb = data(app, "trees.budget", **state)
        chain = tb["methods"]["chain"]
        assert tb["section9"] == idle
        if idle["edge"] is None and chain["best_n"] <= theory.GAMMA_MAX:
            assert (chain["best_n"], chain["best_speedup"]) == (idle["gamma"], pytest.approx(idle["speedup"]))
            if tb["verdict"]["best_chain"]["method"] == "chain":
                assert tb["verdict"]["best_chain"]["speedup"] == pytest.approx(idle["speedup"])
            else:
                assert tb["likeliest_chain_wins"]


def test_theory_gives_one_best_answer(client):
    """At c = 1 no γ pays: best_gamma and best agree on plain decoding (γ 0, 1.0×)."""
    th = client.get("/api/theory?alpha=0.6&gamma=4&c=1").get_json()
    assert th["best"]["edge"] == "plain"
    assert (th["best_gamma"], th["best_speedup"]) == (th["best"]["gamma"], th["best"]["speedup"]) == (0, 1.0)
    th = client.get("/api/theory?alpha=0.6&gamma=4&c=0.1").get_json()
    assert (th["best_gamma"], th["best_speedup"]) == (th["best"]["gamma"], th["best"]["speedup"])


@pytest.mark.parametrize("q", ["tokens=37&gamma=6", "tokens=40&gamma=8&greedy=1", "tokens=13&gamma=3&draft=unigram"])
def test_api_run_alpha_averages_only_the_positions_it_ships(client, q):
    r = client.get(f"/api/run?{q}").get_json()
    n = len(r["tokens"])
    chances = [float(x) for x in r["agreement"]] if r["agreement"] is not None else r["overlap"]
    assert len(chances) == n
    assert r["alpha"] == pytest.approx(np.mean(chances))


def test_the_lookups_alpha_counts_only_checked_guesses():
    """α is the chance a checked guess is kept, for the lookup as for a model draft: positions where
    the text offered nothing to copy do not count as refusals."""
    from sim.lookup import generate_lookup
    T = load_models("en")["trigram"]
    song = T.encode("the queen said , off with her head ! the queen said , off with her head !".split()) * 6
    run = generate_lookup(T, song, 120, 4, np.random.default_rng(2))
    n = len(run.tokens)
    checked = run.checked[:n]
    want = np.mean([ov for ov, ok in zip(run.overlaps[:n], checked) if ok])
    assert 0 < sum(checked) < n       # both kinds of position occur
    assert run.stats()["alpha"] == pytest.approx(want)
    assert want > np.mean(run.overlaps[:n])  # the unchecked positions would have pulled α down
    # A history with no repeats: the first passes find nothing to copy; they do not pull α to 0.
    fresh = generate_lookup(T, T.encode(["alice"]), 30, 4, np.random.default_rng(0))
    s = fresh.stats()
    if any(fresh.checked[:30]):
        assert s["alpha"] == pytest.approx(np.mean([o for o, ok in zip(fresh.overlaps[:30], fresh.checked[:30]) if ok]))
    else:
        assert s["alpha"] is None


def test_the_alpha_section_says_why_a_greedy_run_keeps_more_than_the_pairs_alpha(app):
    """Under greedy decoding the run is the target's greedy loop: its count is far from Eq. 1 with
    the pair's α, and the section blames the loop, not uneven stretches of varied text."""
    from views.sections import live_html
    with app.test_request_context("/en/specdec/"):
        a = answer("alpha", "en", {**DEFAULTS, "greedy": True})
        html = "".join(live_html("alpha", a).values())
    assert a["alpha"] == pair.alpha("en", "bigram", True) < a["run"]["alpha"]
    assert a["check"]["agree"] is False
    assert "greedy loop" in html and "easy and hard stretches" not in html
    assert "sampled text" in html and "own greedy text" not in html
