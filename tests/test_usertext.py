"""sim.usertext: models from a reader's text, the bad-input refusals, the bounded cache."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from corpus.snapshot import count
from corpus.text import tokenize
from serving import labtexts
from sim import usertext
from serving.labtexts import TextCache
from sim.usertext import MAX_BYTES, MIN_TOKENS, TextError, build

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
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 4, "binary"),
    (bytes(range(0x80, 0x100)) * 8, "undecodable"),  # no encoding we know reads it
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


def test_cache_is_bounded_in_bytes_lru_and_keyed_by_hash_and_language():
    texts = [(SAMPLE + f" {w}").encode() for w in ("one", "two", "three")]
    size = build(texts[0], "en").nbytes
    cache = TextCache(max_bytes=2 * size + size // 2)   # room for two such texts, not three
    a = labtexts.load(texts[0], "en", cache)
    assert labtexts.load(texts[0], "en", cache) is a           # counted once
    assert labtexts.load(texts[0], "zh", cache) is not a        # another tokenisation
    assert labtexts.lookup(a.sha256, "en", cache) is a          # still there (used last but one)
    labtexts.load(texts[1], "en", cache)                        # evicts the zh entry (oldest)
    assert labtexts.lookup(a.sha256, "zh", cache) is None
    labtexts.load(texts[2], "en", cache)
    assert len(cache) == 2 and labtexts.lookup(a.sha256, "en", cache) is None
    assert cache.nbytes <= cache.max_bytes
    assert labtexts.lookup("not a hash", "en", cache) is None
    assert a.sha256 == usertext.digest(texts[0]) and len(a.sha256) == 64


@pytest.mark.slow   # tracemalloc over counting and running a 60,000-word text: about 3 s of CPU
def test_memory_estimate_bounds_what_a_used_text_holds():
    # tracemalloc sees every allocation numpy and Python make: after counting a text with a
    # large vocabulary and using its models as the lab does (runs at γ 8, the tubes' context,
    # dense vectors), what stays allocated must be within the estimate the cache charges.
    import gc
    import tracemalloc
    from sim.speculative import generate
    rng = np.random.default_rng(5)
    words = [f"w{int(i)}" for i in rng.zipf(1.3, 60_000) % 20_000]
    raw = " ".join(words).encode()
    gc.collect()
    tracemalloc.start()
    try:
        ut = build(raw, "en")
        m = ut.models
        for seed in range(10):
            generate(m["trigram"], m["bigram"], list(ut.ids[-8:]), 200, 8, np.random.default_rng(seed))
        for i in range(0, ut.n_tokens - 2, 7):
            m["trigram"].sparse(ut.ids[i:i + 2])
        for i in range(300):
            m["trigram"].dist(ut.ids[i:i + 2])
        usertext.disagreeing_context(ut)
        gc.collect()
        held, _peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert held <= ut.nbytes, (held, ut.nbytes)
    assert ut.nbytes < 8 * held   # and not so loose that the cache holds next to nothing


def test_long_tokens_are_cut_when_counted():
    # 60 "words" of 34,000 letters each (the attack, 2 MB): each becomes a token of 32 characters.
    raw = " ".join(f"w{i}" + "a" * 34_000 for i in range(60)).encode()
    ut = build(raw, "en")
    assert ut.cut_tokens == 60 and ut.n_tokens == 60
    assert max(len(t) for t in ut.vocab) == usertext.MAX_TOKEN_CHARS
    assert all(t.endswith("…") for t in ut.vocab)


# Text written for these tests (not from the books): simplified for GB18030/GBK, traditional
# for Big5, Western European for windows-1252.
SIMPLIFIED = ("我们在山上看月亮，月亮也在山上看我们。早上起来，先去河边走一走，看看水里的鱼。"
              "老师说，读书要慢慢读，一个字一个字地想清楚。下午下了一场雨，街上的人都回家了。") * 2
TRADITIONAL = ("我們在山上看月亮，月亮也在山上看我們。早上起來，先去河邊走一走，看看水中的魚。"
               "老師說，讀書要慢慢讀，一個字一個字地想清楚。下午下了一場雨，街上的人都回家了。") * 2
WESTERN = "Café au lait, déjà vu, naïve résumé: the garçon’s crème brûlée. " * 8


@pytest.mark.parametrize("text,codec,label", [
    (SIMPLIFIED, "utf-8", "UTF-8"),
    (SIMPLIFIED, "utf-8-sig", "UTF-8"),          # with a byte-order mark
    (SIMPLIFIED, "utf-16", "UTF-16LE"),          # Python writes a mark, little-endian here
    (SIMPLIFIED, "utf-16-le", "UTF-16LE"),       # no mark
    (SIMPLIFIED, "utf-16-be", "UTF-16BE"),
    (SIMPLIFIED, "gbk", "GB18030"),              # Windows' Chinese "ANSI"; GB18030 is its superset
    (SIMPLIFIED, "gb18030", "GB18030"),
    (TRADITIONAL, "big5", "Big5"),
    (WESTERN, "cp1252", "windows-1252"),
])
def test_each_encoding_is_read_and_named(text, codec, label):
    raw = text.encode(codec)
    dec = usertext.decode(raw)
    assert dec.text == text and dec.encoding == label
    # The same text in any encoding is the same text: one hash, one set of models.
    lang = "en" if text is WESTERN else "zh"
    ut = labtexts.load_text(dec, lang, TextCache())
    assert ut.sha256 == usertext.digest(text.encode("utf-8"))
    assert ut.n_tokens == len(tokenize(lang, text))


def test_a_wrong_byte_is_counted_from_one():
    with pytest.raises(TextError) as e:
        usertext.decode(bytes(range(0x80, 0x100)) * 8)
    assert e.value.code == "undecodable" and e.value.detail["position"] == 1
    with pytest.raises(TextError) as e:
        usertext.decode(b"\xef\xbb\xbfabc\xff")   # marked UTF-8; the 7th byte (1-based) is bad
    assert e.value.detail == {"encoding": "UTF-8", "position": 7}


def test_counting_gate_lets_one_count_and_one_wait_then_refuses():
    import threading
    gate = labtexts.CountingGate(running=1, waiting=1, wait_s=5, retry_after=3)
    inside, release = threading.Event(), threading.Event()

    def hold():
        with gate:
            inside.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    inside.wait(5)
    waiter_done = []
    waiter = threading.Thread(target=lambda: gate.__enter__() and waiter_done.append(gate.__exit__()))
    waiter.start()          # takes the one waiting place
    import time
    time.sleep(0.2)
    with pytest.raises(labtexts.Busy) as e:
        gate.__enter__()    # a third: refused at once
    assert e.value.retry_after == 3
    release.set()
    holder.join(5)
    waiter.join(5)
    assert waiter_done == [False]   # the waiter got its turn once the first was done
    with gate:              # and the gate is free again
        pass


class _DictStore:
    def __init__(self):
        self.d = {}

    def get(self, sha):
        return self.d.get(sha)

    def put(self, sha, data):
        self.d[sha] = data
        return True


def test_a_text_another_process_counted_is_counted_again_from_the_store():
    store = _DictStore()
    mine, other = TextCache(), TextCache()
    ut = labtexts.load(SAMPLE.encode("utf-16"), "en", mine, store)   # sent as UTF-16
    assert store.d == {ut.sha256: SAMPLE.encode()}                  # kept as UTF-8
    again = labtexts.lookup(ut.sha256, "en", other, store)
    assert again is not ut and again.sha256 == ut.sha256
    assert np.array_equal(again.ids, ut.ids) and again.vocab == ut.vocab
    assert labtexts.lookup(ut.sha256, "en", other, store) is again   # then held here
    assert labtexts.lookup("ab" * 32, "en", other, store) is None


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
    rng = np.random.default_rng(3)
    for m in ut.models.values():
        for _ in range(300):   # read many contexts: the caches stay within their bytes
            ctx = tuple(int(i) for i in rng.integers(0, m.V, size=2))
            m.dist(ctx)
            m.sparse(ctx)
        for memo in (m.dist_memo, m.sparse_memo):
            assert memo.max_bytes == usertext.DIST_CACHE_BYTES
            assert memo.nbytes <= usertext.DIST_CACHE_BYTES or len(memo) == 1


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=600) | st.text(max_size=400).map(lambda s: s.encode("utf-8", "surrogatepass")),
       st.sampled_from(["en", "zh"]))
def test_fuzz_any_bytes_give_models_or_a_text_error(raw, lang):
    try:
        ut = build(raw, lang)
    except TextError as e:
        assert e.code in {"empty", "too_short", "one_token", "binary", "undecodable", "too_big"}
        return
    assert ut.n_tokens >= MIN_TOKENS
    assert ut.models["trigram"].dist(list(ut.ids[-2:])).sum() == pytest.approx(1.0)
