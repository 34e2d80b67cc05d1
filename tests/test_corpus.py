"""corpus: cleaning rules, tokens, and the committed snapshots against a rebuild from the books."""
import json

import pytest

import corpus
from corpus import snapshot, text

SOURCE = text.default_source()
needs_books = pytest.mark.skipif(
    not (SOURCE / "alice.txt").is_file() or not (SOURCE / "nahan").is_dir(),
    reason=f"the book texts are not at {SOURCE} (they are never committed; see ../shared/corpus/SOURCES.md)",
)


def test_english_tokens_keep_case_words_and_marks():
    # Word-internal apostrophes and hyphens stay in the word; every other mark is its own token.
    assert text.tokenize_en("“Mock Turtle’s mock-turtle soup,” said—she.") == [
        "“", "Mock", "Turtle’s", "mock-turtle", "soup", ",", "”", "said", "—", "she", "."]


def test_chinese_tokens_are_characters_without_whitespace():
    assert text.tokenize_zh("\ufeff社 戏\n\n我，“好”。") == ["社", "戏", "我", "，", "“", "好", "”", "。"]


def test_count_uses_everygrams_within_documents():
    # Two documents: "a b a" and "b a". Unigrams a:3 b:2; bigrams (a,b) (b,a) (b,a); one trigram.
    data = snapshot.count("en", [["a", "b", "a"], ["b", "a"]])
    assert data["vocab"] == ["a", "b"]
    assert data["unigrams"] == [3, 2]
    assert data["bigrams"] == [[0, 1, 1], [1, 0, 2]]
    assert data["trigrams"] == [[0, 1, 0, 1]]


@pytest.mark.parametrize("lang", corpus.LANGS)
def test_snapshot_is_consistent(lang):
    snap = corpus.load(lang)
    assert len(snap.vocab) == len(set(snap.vocab)) == len(snap.unigrams)
    assert all(c > 0 for c in snap.unigrams)
    # Every bigram count is covered by its first token's unigram count.
    assert sum(n for _, _, n in snap.bigrams) == snap.n_tokens - snap.documents
    assert sum(n for *_, n in snap.trigrams) == snap.n_tokens - 2 * snap.documents


def test_snapshots_do_not_hold_running_text():
    # The snapshot stores counts, never the book's sentences.
    raw = (corpus.snapshot.snapshot_path("en")).read_text(encoding="utf-8")
    assert "Alice was beginning" not in raw
    assert len(json.loads(raw)["vocab"]) < 5000


@needs_books
def test_cleaning_drops_gutenberg_matter_and_markup():
    chapters = text.clean_alice((SOURCE / "alice.txt").read_text(encoding="utf-8"))
    assert len(chapters) == 12
    body = "\n".join(chapters)
    assert body.startswith("CHAPTER I.") and body.rstrip().endswith("THE END")
    for gone in ("Gutenberg", "[Illustration]", "_", "Contents"):
        assert gone not in body


@needs_books
@pytest.mark.parametrize("lang", corpus.LANGS)
def test_committed_snapshot_equals_a_rebuild(lang):
    assert snapshot.build(lang) == snapshot.snapshot_path(lang).read_text(encoding="utf-8")


@needs_books
def test_snapshot_records_source_hashes():
    # Hashes from ../shared/corpus/SOURCES.md.
    en = {s["file"]: s["sha256"] for s in corpus.load("en").sources}
    assert en["alice.txt"] == "b81146c82ae8d0f4aa74f589d5e1258d4ac8dc0094edd351bd78a1bd5744982d"
    zh = {s["file"]: s["sha256"] for s in corpus.load("zh").sources}
    assert zh["nahan/kong_yiji.txt"] == "c4b566482db063a427ad15e6314865b36ba03e36808032f48873c88ffe468dee"


def test_tokens_command_fails_clearly_without_texts(tmp_path, capsys):
    from corpus.__main__ import main
    assert main(["tokens", "--lang", "zh", "--source", str(tmp_path)]) == 2
    assert "book text not found" in capsys.readouterr().err


@needs_books
def test_tokens_command_prints_one_token_a_line(capsys):
    from corpus.__main__ import main
    assert main(["tokens", "--lang", "en"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:4] == ["CHAPTER", "I", ".", "Down"]
    assert len(lines) == corpus.load("en").n_tokens
