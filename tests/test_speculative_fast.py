"""sim.speculative's fast loop gives the very run its definition gives: the same tokens, trace,
statistics and generator state, seed for seed, against the loop written plainly
(``generate_steps``) on models that compute every trigram distribution context by context, as
before the precomputed table (``sim.ngram``'s ``TRIGRAM_TABLE_BYTES`` = 0)."""
import numpy as np
import pytest

import corpus
import sim.ngram as ngram
from sim import usertext
from sim.dist import Draws, overlap, residual
from sim.ngram import load_models, models_from_counts
from sim.speculative import RULES, _Passes, _Uniforms, generate, generate_steps

# One worker runs the whole file (pytest-xdist's loadgroup), so the reference models (the slow
# path, built without the trigram table) are built once, not once on each worker.
pytestmark = pytest.mark.xdist_group("speculative-fast")

LANGS = ("en", "zh")


@pytest.fixture(scope="module")
def reference():
    """Each language's models without the trigram table: the slow path, context by context."""
    old = ngram.TRIGRAM_TABLE_BYTES
    ngram.TRIGRAM_TABLE_BYTES = 0
    try:
        out = {}
        for lang in LANGS:
            snap = corpus.load(lang)
            out[lang] = models_from_counts(snap.vocab, snap.unigrams, snap.bigrams, snap.trigrams)
            assert out[lang]["trigram"].counts.tri_val is None
        return out
    finally:
        ngram.TRIGRAM_TABLE_BYTES = old


def same_run(fast_models, ref_models, target, draft, ctx, n, gamma, seed, **kw):
    vocab = fast_models[target].vocab
    r1, r2 = np.random.default_rng(seed), np.random.default_rng(seed)
    a = generate(fast_models[target], fast_models[draft], ctx, n, gamma, r1, **kw)
    b = generate_steps(ref_models[target], ref_models[draft], ctx, n, gamma, r2, **kw)
    assert a.tokens == b.tokens
    assert a.overlaps == b.overlaps and a.agreements == b.agreements
    assert a.to_json(vocab) == b.to_json(vocab)
    # The generator is left where the single draws leave it: what the caller draws next agrees.
    assert r1.random(4).tolist() == r2.random(4).tolist()
    return a


@pytest.mark.parametrize("lang", LANGS)
def test_the_books_trigram_table_holds_what_each_context_computes(lang, reference):
    fast, ref = load_models(lang)["trigram"], reference[lang]["trigram"]
    assert fast.counts.tri_val is not None
    V = fast.V
    for key in fast.counts.pair_row:
        a, b = divmod(key, V)
        p, q = fast._trigram(a, b), ref._trigram(a, b)
        assert p.sup.idx.tolist() == q.sup.idx.tolist()
        assert p.s == q.s and p.val.tolist() == q.val.tolist()


@pytest.mark.parametrize("lang", LANGS)
def test_the_tables_sums_of_min_p_q_are_each_contexts_own(lang, reference):
    # Σ min(p, q) against the bigram at b, taken from the table's sums, is the sum computed for
    # the context alone, bit for bit; against any other q it is computed.
    fast, ref = load_models(lang), reference[lang]
    V = fast["trigram"].V
    for key in list(fast["trigram"].counts.pair_row)[::7]:
        a, b = divmod(key, V)
        p, q = fast["trigram"]._trigram(a, b), fast["bigram"]._bigram(b)
        assert p._tie_q is q and p._tie is not None
        assert overlap(p, q) == overlap(ref["trigram"]._trigram(a, b), ref["bigram"]._bigram(b))
        u = fast["unigram"].sparse(())
        assert overlap(p, u) == overlap(ref["trigram"]._trigram(a, b), u)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("draft", ["bigram", "unigram", "trigram"])
def test_every_mode_gives_the_plain_loops_run(lang, draft, reference):
    fast, ref = load_models(lang), reference[lang]
    t = fast["trigram"]
    contexts = [[], [t.index[t.vocab[5]]], [7, 11], [ngram.UNK, 3], [3, ngram.UNK]]
    for seed, ctx in enumerate(contexts):
        for gamma in (0, 1, 4, 8):
            rule = RULES[(seed + gamma) % len(RULES)]    # each rule at every γ across the contexts
            same_run(fast, ref, "trigram", draft, ctx, 120, gamma, seed, rule=rule)
            same_run(fast, ref, "trigram", draft, ctx, 60, gamma, seed, greedy=True)


def test_a_bigram_target_gives_the_plain_loops_run(reference):
    for seed in range(4):
        same_run(load_models("en"), reference["en"], "bigram", "unigram", [5, 9], 200, 4, seed)


# The benchmark's run (10,000 tokens, γ 4, the bigram draft), both loops: about 4 s of CPU each,
# so the whole suite runs it and the fast loop leaves it to the shorter runs above.
@pytest.mark.slow
@pytest.mark.parametrize("lang", LANGS)
def test_a_long_run_is_the_plain_loops_run_token_for_token(lang, reference):
    fast = load_models(lang)
    t = fast["trigram"]
    for seed in (1,):
        run = same_run(fast, reference[lang], "trigram", "bigram", t.encode([t.vocab[0]]),
                       10_000, 4, seed)
        assert len(run.tokens) == 10_000


def test_a_readers_text_gives_the_plain_loops_run():
    rng = np.random.default_rng(3)
    text = " ".join(f"w{int(i)}" for i in rng.zipf(1.5, 6000) % 400)
    fast = usertext.count_text(text, "en").models
    old = ngram.TRIGRAM_TABLE_BYTES
    ngram.TRIGRAM_TABLE_BYTES = 0
    try:
        ref = usertext.count_text(text, "en").models
    finally:
        ngram.TRIGRAM_TABLE_BYTES = old
    for seed in range(3):
        same_run(fast, ref, "trigram", "bigram", [], 500, 4, seed)
        same_run(fast, ref, "trigram", "bigram", [], 300, 2, seed, greedy=True)


def test_draws_give_what_a_distribution_draws():
    m = load_models("en")
    t, d = m["trigram"], m["bigram"]
    dists = [d.sparse([t.index["the"]]), d.sparse([t.index[","]]), t.sparse([t.index["said"], t.index["the"]]),
             m["unigram"].sparse(()), residual(t.sparse([t.index[","], t.index["when"]]), d.sparse([t.index["when"]]))]
    rng = np.random.default_rng(0)
    for dist in dists:
        draws = Draws(dist)
        total = dist.val.sum() + dist.off
        # Uniform draws, the two ends, and the very points where the running sum steps.
        edges = np.concatenate([dist.val.cumsum() / total, [0.0, np.nextafter(1.0, 0.0)]])
        for u in np.concatenate([rng.random(3000), edges, np.nextafter(edges, 0.0), np.nextafter(edges, 1.0)]):
            u = float(min(max(u, 0.0), np.nextafter(1.0, 0.0)))
            x, j = draws(u)
            assert (x, j) == dist.draw(u)
            assert x == dist.sample(u)
            if j >= 0:
                assert dist.sup.idx[j] == x and draws.val[j] == dist[x]
            else:
                assert not dist.sup.has(x)


def test_uniforms_in_blocks_are_the_single_draws_and_leave_the_generator_as_they_would():
    for used in (0, 1, 5, 64, 65, 200):
        a, b = np.random.default_rng(9), np.random.default_rng(9)
        u = _Uniforms(a, 64)
        got = [u() for _ in range(used)]
        u.close()
        assert got == [b.random() for _ in range(used)]
        assert a.random() == b.random()


def test_a_fast_runs_passes_are_counted_without_making_steps_and_read_as_the_plain_loops(reference):
    fast, ref = load_models("en"), reference["en"]
    t = fast["trigram"]
    for rule in RULES:
        a = generate(t, fast["bigram"], [7, 11], 300, 4, np.random.default_rng(5), rule=rule)
        b = generate_steps(ref["trigram"], ref["bigram"], [7, 11], 300, 4, np.random.default_rng(5),
                           rule=rule)
        assert isinstance(a.steps, _Passes)
        # The statistics and a head of the run come from the columns: no Step is made for them.
        assert a.stats() == b.stats()
        assert a.head(120).to_json(t.vocab) == b.head(120).to_json(t.vocab)
        assert a.steps._steps is None
        assert len(a.steps) == len(b.steps)
        # Read, they are the plain loop's Steps, pass by pass, the first and the last by index.
        assert [s.to_json(t.vocab) for s in a.steps] == [s.to_json(t.vocab) for s in b.steps]
        assert a.steps[-1].written == b.steps[-1].written
        assert a.steps[0].context == b.steps[0].context == (7, 11)
        assert a.steps == list(a.steps) and a.steps != list(a.steps)[1:]
