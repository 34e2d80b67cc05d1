"""Each section reads only its own parameters, and declares only what it reads (sim/params.py).

`answer()` passes a unit only the parameters sim/params.py says it reads, so reading one more fails
loudly; the other direction, a declaration the section no longer uses (the `seed` of sections that
take the pair's α, not a run), is silent: the Embed snippet then carries a parameter that changes
nothing, and a change of it marks the section stale for nothing. Here the values a unit is given
are watched while the page is rendered from them (the answer and every template that reads
`a.params`), over states that reach each conditional read, and what was read must be what is declared.
"""
from __future__ import annotations

from urllib.parse import urlencode

import pytest

import views.sections as S
from sim import params as P

SONG = ("the queen said , off with her head ! the king said , not yet ! " * 12).encode()


class Watched(dict):
    """A unit's values that remember which of them were read (by key or with .get)."""

    def __init__(self, values, seen):
        super().__init__(values)
        self.seen = seen

    def __getitem__(self, key):
        self.seen.add(key)
        return super().__getitem__(key)

    def get(self, key, default=None):
        self.seen.add(key)
        return super().get(key, default)


@pytest.fixture(scope="module")
def text_sha(app):
    r = app.test_client().post("/api/lab/text?lang=en", data=SONG, content_type="text/plain")
    assert r.status_code == 200, r.get_data(as_text=True)
    return r.get_json()["text"]


# States that reach every branch that reads a parameter: the defaults; α pinned and measured;
# greedy; every draft; a text of the reader's own (the lab reads its splitting only then); the
# tree pass's shapes; a budget that does not fit.
STATES = [
    {}, {"alpha": 0.7}, {"greedy": "1"}, {"draft": "unigram"}, {"draft": "trigram", "greedy": "1"},
    {"shape": "dynamic"}, {"shape": "chain", "sampling": "iid", "trule": "specinfer"},
    {"batch": 1024, "ctx": 131072}, {"rule": "keep-draft", "draw": 2, "tpass": 1, "tdraw": 1},
    {"ldraft": "lookup", "adapt": "hf"}, {"TEXT": True, "tlang": "en", "ldraft": "lookup"},
    {"TEXT": True, "adapt": "cost"},
]


def test_every_unit_reads_exactly_what_it_declares(app, monkeypatch, text_sha):
    seen: dict[str, set] = {u: set() for u in S.UNITS}

    def watched_answer(unit, lang, state):
        v = Watched({n: state[n] for n in P.reads(unit)}, seen[unit])
        return {"unit": unit, "lang": lang, "params": v, **S.ANSWERS[unit](lang, v)}

    monkeypatch.setattr(S, "answer", watched_answer)
    client = app.test_client()
    for lang in ("en", "zh"):
        for state in STATES if lang == "en" else STATES[:2]:
            q = {k: v for k, v in state.items() if k != "TEXT"}
            if state.get("TEXT"):
                q["text"] = text_sha
            r = client.get(f"/{lang}/specdec/?{urlencode(q)}")
            assert r.status_code == 200
            assert 'data-failed="1"' not in r.get_data(as_text=True), (lang, state)
    stale = {u: sorted(set(P.reads(u)) - seen[u]) for u in S.UNITS}
    assert {u: s for u, s in stale.items() if s} == {}, \
        "declared in sim/params.py as read by these units, never read by them"
