"""sim.usertext: models from a reader's text, the bad-input refusals, the bounded cache."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from corpus.snapshot import count
from corpus.text import tokenize
from sim import usertext
from sim.usertext import MAX_BYTES, MIN_TOKENS, TextCache, TextError, build

SAMPLE = ("The cat sat on the mat . The dog sat on the log . The cat saw the dog , "
          "and the dog saw the cat . ") * 4


def test_models_are_the_books_models_of_the_same_tokens():
    ut = build(SAMPLE.encode(), "en")
    snap = count("en", [tokenize("en", SAMPLE)])
    T = ut.models["trigram"]
    assert T.vocab == snap["vocab"] and ut.n_tokens == sum(snap["unigrams"])
    assert T.decode(ut.ids[:4]) == ["The", "cat", "sat", "on"]
    # By hand: "the" is followed by cat ×4 … ; p_ML(cat | "saw the") = 4/8 (cat 4, dog 4), and
    # "saw the" has 2 distinct followers, so γ_h = 2 / (2 + 8) = 0.2 and
    # p(cat | saw the) = 0.8 · 0.5 + 0.2 · P_2(cat | the).
    h = T.encode(["saw", "the"])
    p2 = ut.models["bigram"].dist(h)[T.index["cat"]]
    assert T.dist(h)[T.index["cat"]] == pytest.approx(0.8 * 0.5 + 0.2 * p2)
    for name in ("trigram", "bigram", "unigram"):
        assert ut.models[name].dist(h).sum() == pytest.approx(1.0)


def test_chinese_is_counted_by_character():
    text = "我们在山上看月亮，月亮也在山上看我们。" * 5
    ut = build(text.encode(), "zh")
    assert ut.n_tokens == 19 * 5 and "月" in ut.vocab


@pytest.mark.parametrize("raw,code", [
    (b"", "empty"),
    (b"   \n\t ", "empty"),
    (b"word " * 10, "too_short"),
    (b"hello", "too_short"),                       # one token long
    (b"la " * 200, "one_token"),
    (b"\xff\xfe\x00a" * 40, "binary"),
    (b"caf\xe9 " * 100, "not_utf8"),                # Latin-1, not UTF-8
    (b"\x01\x02text " * 60, "binary"),
])
def test_bad_input_is_refused_with_a_reason(raw, code):
    with pytest.raises(TextError) as e:
        build(raw, "en")
    assert e.value.code == code


def test_too_big_is_refused_before_decoding():
    with pytest.raises(TextError) as e:
        build(b"a " * (MAX_BYTES // 2 + 1), "en")
    assert e.value.code == "too_big" and e.value.detail["max"] == MAX_BYTES


def test_a_bom_and_windows_newlines_are_fine():
    ut = build(("\ufeff" + SAMPLE.replace(" . ", " .\r\n")).encode(), "en")
    assert ut.n_tokens == len(tokenize("en", SAMPLE))


def test_cache_is_bounded_lru_and_keyed_by_hash_and_language():
    cache = TextCache(size=2)
    texts = [(SAMPLE + f" {w}").encode() for w in ("one", "two", "three")]
    a = usertext.load(texts[0], "en", cache)
    assert usertext.load(texts[0], "en", cache) is a           # counted once
    assert usertext.load(texts[0], "zh", cache) is not a        # another tokenisation
    assert usertext.lookup(a.sha256, "en", cache) is a          # still there (used last but one)
    usertext.load(texts[1], "en", cache)                        # evicts the zh entry (oldest)
    assert usertext.lookup(a.sha256, "zh", cache) is None
    usertext.load(texts[2], "en", cache)
    assert len(cache) == 2 and usertext.lookup(a.sha256, "en", cache) is None
    assert usertext.lookup("not a hash", "en", cache) is None
    assert a.sha256 == usertext.digest(texts[0]) and len(a.sha256) == 64


def test_disagreeing_context_is_one_where_the_draft_and_target_differ():
    ut = build(SAMPLE.encode(), "en")
    a, b = usertext.disagreeing_context(ut)
    p, q = ut.models["trigram"].dist((a, b)), ut.models["bigram"].dist((a, b))
    assert np.maximum(p - q, 0).sum() > 0.1
    assert usertext.disagreeing_context(ut) == (a, b)


def test_large_vocabularies_keep_small_distribution_caches():
    # 40,000 different words: the default 256 dense vectors would be 256 × 8 B × 40,001 = 82 MB.
    words = " ".join(f"w{i}" for i in range(40_000))
    ut = build(words.encode(), "en")
    for m in ut.models.values():
        assert m._dist_cached.cache_info().maxsize * 8 * m.V <= usertext.DIST_CACHE_BYTES
        widest = int(np.diff(m._bi.start).max())
        assert m._sparse_cached.cache_info().maxsize * 16 * widest <= usertext.DIST_CACHE_BYTES


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=600) | st.text(max_size=400).map(lambda s: s.encode("utf-8", "surrogatepass")),
       st.sampled_from(["en", "zh"]))
def test_fuzz_any_bytes_give_models_or_a_text_error(raw, lang):
    try:
        ut = build(raw, lang)
    except TextError as e:
        assert e.code in {"empty", "too_short", "one_token", "binary", "not_utf8", "too_big"}
        return
    assert ut.n_tokens >= MIN_TOKENS
    assert ut.models["trigram"].dist(list(ut.ids[-2:])).sum() == pytest.approx(1.0)
