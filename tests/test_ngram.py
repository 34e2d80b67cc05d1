"""sim.ngram: distributions sum to 1 and equal NLTK's WittenBellInterpolated to 1e-12."""
import numpy as np
import pytest
from nltk.lm import WittenBellInterpolated
from nltk.util import everygrams

import corpus
from corpus import snapshot
from sim.ngram import UNK, NGramModel, load_models
from tests.test_corpus import needs_books


def nltk_model(documents, order):
    lm = WittenBellInterpolated(order)
    lm.fit([list(everygrams(doc, max_len=order)) for doc in documents],
           vocabulary_text=[tok for doc in documents for tok in doc])
    return lm


def ours(documents, order):
    data = snapshot.count("en", documents)
    return NGramModel(data["vocab"], data["unigrams"], data["bigrams"], data["trigrams"], order)


def sample_contexts(model, rng, n):
    """Seen contexts (pairs from the counts), half-seen ones (random pairs) and unknown tokens."""
    pairs = [divmod(k, model.V) for k in list(model._pair_row)[:n]] if model.order == 3 else []
    random_pairs = [tuple(rng.integers(0, model.V, 2)) for _ in range(n)]
    return pairs + random_pairs + [(UNK, 0), (0, UNK), (), (3,)]


TOY = [["the", "cat", "sat", "on", "the", "mat", "."], ["the", "cat", "ate", "."], ["a", "cat", "sat", "."]]


@pytest.mark.parametrize("order", [1, 2, 3])
def test_toy_corpus_matches_nltk_everywhere(order):
    lm, m = nltk_model(TOY, order), ours(TOY, order)
    contexts = [(), ("the",), ("the", "cat"), ("cat", "sat"), ("mat", "the"), ("dog",), ("the", "dog")]
    for ctx in contexts:
        p = m.dist(m.encode(list(ctx)))
        ref = np.array([lm.score(w, ctx) for w in m.vocab])
        assert p.sum() == pytest.approx(1.0, abs=1e-12)
        np.testing.assert_allclose(p, ref, rtol=0, atol=1e-12)


def test_toy_trigram_by_hand():
    # After ("the", "cat"): seen once each with "sat" and "ate" -> c=2, N1+=2, γ=1/2.
    # Bigram after "cat": sat×2, ate×1 -> c=3, N1+=2, γ=2/5; unigram P(sat) = 2/15 (15 tokens).
    # P2(sat|cat) = 3/5·2/3 + 2/5·2/15 = 0.4 + 0.0533333 = 0.4533333
    # P3(sat|the,cat) = 1/2·1/2 + 1/2·0.4533333 = 0.4766667
    m = ours(TOY, 3)
    p = m.dist(m.encode(["the", "cat"]))
    assert p[m.index["sat"]] == pytest.approx(0.25 + 0.5 * (0.4 + 0.4 * 2 / 15), abs=1e-15)


@pytest.mark.parametrize("lang", corpus.LANGS)
@pytest.mark.parametrize("name", ["unigram", "bigram", "trigram"])
def test_every_distribution_sums_to_one(lang, name):
    model = load_models(lang)[name]
    rng = np.random.default_rng(0)
    for ctx in sample_contexts(load_models(lang)["trigram"], rng, 200):
        p = model.dist(list(ctx))
        assert p.shape == (model.V,)
        assert p.min() > 0  # full support: p/q is always defined
        assert p.sum() == pytest.approx(1.0, abs=1e-12)


# NLTK counts each book again for every order (its fit: 2-4 s of CPU a language), so the whole
# suite runs this and the fast loop leaves it to the small texts above.
@pytest.mark.slow
@needs_books
@pytest.mark.parametrize("lang", corpus.LANGS)
def test_book_models_match_nltk(lang):
    documents = corpus.read_documents(lang)
    models = load_models(lang)
    rng = np.random.default_rng(1)
    for order, name in [(3, "trigram"), (2, "bigram")]:
        lm, m = nltk_model(documents, order), models[name]
        for ctx in sample_contexts(models["trigram"], rng, 12):
            words = [m.vocab[i] if i != UNK else "never-seen-token" for i in ctx]
            ref = np.array([lm.score(w, tuple(words)) for w in m.vocab])
            np.testing.assert_allclose(m.dist(list(ctx)), ref, rtol=0, atol=1e-12)


def test_models_read_only_their_order():
    m = load_models("en")
    ctx = m["trigram"].encode(["the", "Mock", "Turtle"])
    assert np.array_equal(m["trigram"].dist(ctx), m["trigram"].dist(ctx[-2:]))
    assert np.array_equal(m["bigram"].dist(ctx), m["bigram"].dist(ctx[-1:]))
    assert np.array_equal(m["unigram"].dist(ctx), m["unigram"].dist([]))


def test_sample_follows_the_distribution():
    m = load_models("en")["bigram"]
    ctx = m.encode(["Mock"])
    rng = np.random.default_rng(3)
    draws = [m.sample(ctx, rng) for _ in range(2000)]
    # "Turtle" follows "Mock" in nearly every occurrence.
    share = draws.count(m.index["Turtle"]) / len(draws)
    assert share == pytest.approx(m.dist(ctx)[m.index["Turtle"]], abs=0.03)
