"""/api/lab/*: upload, runs on a text, the unknown-hash 404, tubes, the map, and 400s (fuzzed)."""
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from sim import theory, usertext

REFRAIN = ("Round the hill and back again , round the hill we go ; the hill is wide and the night is long . "
           "Round the mill and back again , round the mill we go ; the mill is wide and the night is long . ") * 6


def upload(client, raw, lang="en"):
    return client.post(f"/api/lab/text?lang={lang}", data=raw, content_type="text/plain")


def test_upload_then_run_on_the_text(client):
    r = upload(client, REFRAIN.encode())
    assert r.status_code == 200
    info = r.get_json()
    assert info["text"] == usertext.digest(REFRAIN.encode()) and info["tokens"] == len(REFRAIN.split())
    run = client.get(f"/api/lab/run?text={info['text']}&draft=lookup&gamma=4").get_json()
    assert run["source"]["tokens"] == info["tokens"]
    assert run["lookup"]["match_rate"] > 0.8
    # On a refrain the copy draft beats the unigram by far, and (c = 0) its speed-up is its
    # tokens per pass.
    d = client.get(f"/api/lab/drafts?text={info['text']}&gamma=4").get_json()["drafts"]
    assert d["lookup"]["tokens_per_pass"] > 2 * d["unigram"]["tokens_per_pass"]
    assert d["lookup"]["speedup"] == pytest.approx(d["lookup"]["tokens_per_pass"])
    assert {c["kind"] for c in run["tape"]} <= {"kept", "replaced", "bonus"}


def test_book_is_the_default_and_lookup_is_useless_on_prose(client):
    run = client.get("/api/lab/run?draft=lookup").get_json()
    assert run["source"] == {"book": "en"}
    drafts = client.get("/api/lab/drafts").get_json()["drafts"]
    assert drafts["lookup"]["tokens_per_pass"] < drafts["bigram"]["tokens_per_pass"]


def test_drafts_table_holds_the_run_of_the_same_draft(client):
    # The table's row for a draft is that draft's run at the same γ, seed and length.
    for draft in ("bigram", "lookup"):
        run = client.get(f"/api/lab/run?draft={draft}&gamma=3&seed=4&c=0.2").get_json()
        row = client.get("/api/lab/drafts?gamma=3&seed=4&c=0.2").get_json()["drafts"][draft]
        for key in ("alpha", "tokens_per_pass", "passes", "speedup"):
            assert row[key] == pytest.approx(run[key]), (draft, key)


@pytest.mark.parametrize("path,param,allowed", [
    ("/api/lab/drafts?gamma=8&tokens=101", "tokens", "an integer from 1 to 100"),
    ("/api/lab/drafts?gamma=2&tokens=200", "tokens", "integer 1..200"),
    ("/api/lab/compare?tokens=61", "tokens", None),
    ("/api/lab/compare?draft=lookup", "draft", None),
    ("/api/lab/compare?adapt=off", "adapt", None),
    ("/api/lab/drafts?draft=bigram", "draft", None),
])
def test_lab_caps_and_choices(client, path, param, allowed):
    r = client.get(path)
    if allowed == "integer 1..200":  # 200 × 3 = 600 ≤ 900 positions: within the cap
        assert r.status_code == 200
        return
    assert r.status_code == 400
    err = r.get_json()["error"]
    assert err["param"] == param
    if allowed:
        assert err["allowed"] == allowed


def test_unknown_hash_is_a_404_naming_text(client):
    r = client.get("/api/lab/run?text=" + "ab" * 32)
    assert r.status_code == 404
    assert r.get_json()["error"]["param"] == "text"
    for route in ("tubes", "drafts", "compare"):
        r = client.get(f"/api/lab/{route}?text=" + "ab" * 32)
        assert r.status_code == 404 and r.get_json()["error"]["param"] == "text", route


def test_adaptive_comparison(client):
    q = "draft=bigram&adapt=hf&gamma=2&c=0.05&seed=3"
    cmp = client.get("/api/lab/compare?" + q).get_json()
    assert cmp["tokens"] == 60  # nine runs: shorter than the lab's run, and it says how long
    j = client.get(f"/api/lab/run?{q}&tokens={cmp['tokens']}").get_json()
    assert cmp["best_fixed"]["speedup"] == max(cmp["fixed"].values())
    assert cmp["adaptive"]["speedup"] == pytest.approx(j["speedup"])  # the run the lab shows
    assert j["gammas"][0] == 2 and max(j["gammas"]) <= 8
    assert "compare" not in j
    # The fixed γ = 2 entry is the drafts table's bigram run (same seed, γ and length).
    row = client.get("/api/lab/drafts?gamma=2&c=0.05&seed=3&tokens=60").get_json()["drafts"]["bigram"]
    assert cmp["fixed"]["2"] == pytest.approx(row["speedup"])


def test_tubes_and_map(client):
    tb = client.get("/api/lab/tubes?seed=2").get_json()
    assert tb["tv"] >= 0.2 and len(tb["bars"]) == 8
    m = client.get("/api/lab/breakeven?gamma=3&c=0.2").get_json()
    assert m["break_even_alpha"] == pytest.approx(theory.break_even_alpha(3, 0.2))
    # Row c = 0.1, column γ = 1: 1 + α = 1.1, so α = 0.1.
    assert m["alpha"][m["cs"].index(0.1)][0] == pytest.approx(0.1)


@pytest.mark.parametrize("raw", [b"", b"hello", b"\x00\x01\x02" * 50, b"caf\xe9 " * 100, b"la " * 100])
def test_bad_texts_are_400_naming_text(client, raw):
    r = upload(client, raw)
    assert r.status_code == 400
    err = r.get_json()["error"]
    assert err["param"] == "text" and err["message"]


def test_too_big_is_refused(client):
    r = upload(client, b"a " * (usertext.MAX_BYTES // 2 + 10))
    assert r.status_code == 400 and "2 MB" in r.get_json()["error"]["message"]


@pytest.mark.parametrize("query,param", [("gamma=9", "gamma"), ("draft=fivegram", "draft"), ("adapt=yes", "adapt"),
                                         ("c=2", "c"), ("tokens=500", "tokens"), ("text=xyz", "text"),
                                         ("lang=fr", "lang"), ("bogus=1", "bogus")])
def test_bad_parameters_are_400(client, query, param):
    r = client.get(f"/api/lab/run?{query}")
    assert r.status_code == 400 and r.get_json()["error"]["param"] == param


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.binary(max_size=800) | st.text(max_size=600).map(lambda s: s.encode("utf-8", "surrogatepass")),
       lang=st.sampled_from(["en", "zh", "xx"]))
def test_fuzz_upload_never_500(client, raw, lang):
    r = upload(client, raw, lang)
    assert r.status_code in (200, 400)
    body = r.get_json()
    if r.status_code == 200:
        run = client.get(f"/api/lab/run?text={body['text']}&lang={lang}&draft=lookup&tokens=20")
        assert run.status_code == 200
    else:
        assert body["error"]["param"] in ("text", "lang")


def test_tubes_note_writes_the_context_as_the_language_does(client):
    # English tokens are words and marks, joined by spaces (", when"); Chinese characters run on.
    import re
    note = re.compile(r'data-live="tubes_note">[^“]*“([^”]*)”')
    strip = lambda html: re.sub(r"<(?!/?p|div)[^>]+>", "", html)  # the context is a live field
    en = strip(client.get("/embed/en/specdec/lab/").get_data(as_text=True))
    zh = strip(client.get("/embed/zh/specdec/lab/").get_data(as_text=True))
    assert note.search(en).group(1) == ", when"
    assert " " not in note.search(zh).group(1)


def test_drafts_table_reuses_the_run_it_holds(client, monkeypatch):
    # The lab's run (bigram, γ fixed) is also the table's bigram row: made once, not twice. By
    # hand: the run makes 1; the table adds unigram and trigram (the lookup has its own loop).
    import sim.speculative
    from views import sections_lab
    sections_lab.clear_caches()
    made = []
    real = sim.speculative.generate
    monkeypatch.setattr(sim.speculative, "generate", lambda *a, **k: made.append(1) or real(*a, **k))
    client.get("/api/lab/run?draft=bigram&gamma=3&seed=21&c=0.3")
    client.get("/api/lab/drafts?gamma=3&seed=21&c=0.3")
    assert len(made) == 3
    # c only changes the speed-up on paper: a new c makes no new run.
    client.get("/api/lab/drafts?gamma=3&seed=21&c=0.6")
    assert len(made) == 3
