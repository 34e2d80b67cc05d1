"""Section 11 (token trees) on the server: the three parts' answers agree with sim and with each
other, every state of the page's controls gives an answer within the caps, and the section renders
readable without scripts (the tree, the mask, every check, the tubes, the fallback tables)."""
from __future__ import annotations

import itertools
import re

import pytest
from bs4 import BeautifulSoup

from sim import params as P
from sim.tree.rules import EXACT, WRONG
from views.sections import trees as st
from views.sections import answer


def data(app, unit, lang="en", **values):
    """The unit's answer for the defaults changed by ``values``, as the page computes it."""
    with app.test_request_context(f"/{lang}/specdec/"):
        return answer(unit, lang, {**{n: p.default for n, p in P.PAGE.items()}, **values})


def test_caps_by_hand():
    # Fixed shapes: tokens × (n + 8) ≤ 2000, so 2000 // 16 = 125 at n = 8 and 2000 // 72 = 27 at
    # n = 64. EAGLE-2: tokens × (k + (d − 1)k²) ≤ 2400: k 4, d 5 makes 4 + 4 × 16 = 68
    # candidates a pass (35 tokens); k 8, d 16 makes 8 + 15 × 64 = 968 (2 tokens).
    assert st.tokens_cap("kary", 8, 4, 5) == 125 and st.tokens_cap("best", 64, 8, 16) == 27
    assert st.tokens_cap("dynamic", 64, 4, 5) == 35 and st.tokens_cap("dynamic", 8, 8, 16) == 2
    assert all(st.tokens_cap(s, n, k, d) >= 1 for s in P.SHAPES for n in (1, 64)
               for k in range(1, P.TREE_K_MAX + 1) for d in range(1, P.TREE_D_MAX + 1))


def test_what_runs():
    # EAGLE-2's tree takes the likeliest tokens; the exact check of the chosen filling goes with
    # it (the pass stays exact, as its tubes say), while a wrong rule chosen on purpose stays.
    r = st.resolve("dynamic", 8, 4, "wor", "sequoia")
    assert r["sampling"] == "top" and r["sampling_forced"] and r["rule"] == "pointmass"
    assert st.resolve("dynamic", 8, 4, "wor", "specinfer")["rule"] == "specinfer"
    assert st.resolve("kary", 8, 4, "iid", None)["rule"] == "specinfer"
    cut = st.resolve("sequences", 3, 6, "wor", None)
    assert cut["k"] == 3 and cut["k_cut"] and cut["rule"] == "sequoia"
    assert st.exactness("top", "specinfer", False) == {"exact": False, "why": "top-specinfer", "chain": False}
    assert st.exactness("wor", "stale", True)["exact"]          # one child a node: Leviathan's rule
    assert st.exactness("top", "sequoia", False)["why"] == "other"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_pass_answer_follows_the_run(app, lang):
    a = data(app, "trees.pass", lang)
    pj = a["pass"]
    nodes = pj["tree"]["nodes"]
    assert a["n_nodes"] == len(nodes) - 1 == P.TREE_N.default and a["exact"]
    assert a["plan"]["shape"] == "best" and a["plan"]["rule"] == "sequoia"
    # The mask: row i sees node j iff j is i or an ancestor of i.
    for nd in nodes:
        anc, v = {nd["id"]}, nd["id"]
        while nodes[v]["parent"] is not None:
            v = nodes[v]["parent"]
            anc.add(v)
        assert {j for j, x in enumerate(pj["tree"]["mask"][nd["id"]]) if x} == anc
    # Events: the walk's checks in order, each check's R before it is the previous refusal's R
    # after (p at the node for the first), and the written tokens are the kept ones, then one more.
    checks = [c for w in pj["walk"] for c in w["checks"]]
    ev = [e for e in pj["events"] if e["kind"] == "check"]
    assert [(e["node"], e["r"], e["accepted"]) for e in ev] == [(c["node"], c["r"], c["accepted"]) for c in checks]
    assert pj["events"][0]["kind"] == "draft" and pj["events"][-1]["kind"] == "done"
    for w in pj["walk"]:
        before = w["p_top"]
        for c, e in zip(w["checks"], [e for e in ev if e["at"] == w["node"]]):
            assert e["before"] == before
            before = c["residual_top"] or before
    kept = [e["token"] for e in ev if e["accepted"]]
    assert [x["token"] for x in pj["written"]] == kept + [pj["written"][-1]["token"]]
    assert a["n_written"] == len(pj["written"]) == pj["n_accepted"] + 1
    # The page opens on a pass that refuses a guess and keeps one, when the run has one.
    assert a["n_refused"] >= 1 and pj["n_accepted"] >= 1
    # Engine metrics by hand from the run's passes: 1 + kept / drafts.
    drafts = [w for w in a["written_per_pass"]]
    assert a["num_drafts"] == a["passes"] == len(drafts)
    assert a["mean_acceptance_length"] == pytest.approx(1 + a["num_accepted_tokens"] / a["num_drafts"])
    assert a["tokens_per_pass"] == pytest.approx(sum(drafts) / len(drafts))
    assert a["num_draft_tokens"] == P.TREE_N.default * a["passes"]
    assert a["log_line"].startswith(f"SpecDecoding metrics: Mean acceptance length: {a['mean_acceptance_length']:.2f}, "
                                    f"Accepted: {a['num_accepted_tokens']} tokens, Drafted: {a['num_draft_tokens']} tokens")
    rates = re.search(r"Per-position acceptance rate: ([\d., ]+), Avg", a["log_line"]).group(1).split(", ")
    assert len(rates) == a["positions"] and float(rates[0]) == pytest.approx(a["acceptance_per_position"][0], abs=5e-4)
    # The chain of γ = n from the same α: 1 + α + … + α^n.
    al = a["chain"]["alpha"]
    assert a["chain"]["tokens_per_pass"] == pytest.approx(sum(al ** i for i in range(a["chain"]["gamma"] + 1)))


def test_the_layout_puts_parents_between_their_children(app):
    pj = data(app, "trees.pass", n=40, k=3, d=4, shape="kary")["pass"]
    nodes, lay = pj["tree"]["nodes"], pj["layout"]
    assert lay["small"]                                          # 27 leaves: the compact drawing
    leaves = sorted(nd["py"] for nd in nodes if not nd["children"])
    assert len(set(leaves)) == len(leaves)
    for nd in nodes:
        assert nd["px"] == st.PAD + nd["depth"] * st.COL_W
        if nd["children"]:
            ys = [nodes[c]["py"] for c in nd["children"]]
            assert nd["py"] == pytest.approx((ys[0] + ys[-1]) / 2, abs=0.1)
    assert lay["width"] >= max(nd["px"] for nd in nodes) + lay["box_w"]
    assert lay["height"] >= max(nd["py"] for nd in nodes) + lay["box_h"]


COMBOS = list(itertools.product(P.SHAPES, P.SAMPLINGS, P.TREE_RULES))


@pytest.mark.parametrize("shape,sampling,trule", COMBOS)
def test_every_choice_of_the_page_gives_an_answer_within_the_caps(app, shape, sampling, trule):
    a = data(app, "trees.pass", shape=shape, sampling=sampling, trule=trule, n=5, k=3, d=3, draft="unigram")
    used = "top" if shape == "dynamic" else sampling
    from sim.tree.rules import NATURAL
    if shape == "dynamic" and trule == NATURAL[sampling]:
        trule = NATURAL["top"]      # the filling's exact check follows the forced filling
    assert a["plan"]["sampling"] == used and a["plan"]["rule"] == trule
    chain = shape == "chain"
    assert a["exact"] == ((used, trule) in EXACT or (chain and used != "top" and trule != "naive"
                                                     and trule != "pointmass"))
    assert a["tokens_asked"] <= st.tokens_cap(shape, 5, 3, 3) and len(a["tokens"]) == a["tokens_asked"]
    assert (a["why_text"] == "") == a["exact"]
    if (used, trule) in WRONG and not chain:
        assert a["why"] == f"{used}-{trule}"


def test_the_largest_trees_stay_within_the_caps(app):
    a = data(app, "trees.pass", shape="dynamic", n=64, k=8, d=16)
    assert a["tokens_asked"] == 2 and len(a["tokens"]) == 2
    b = data(app, "trees.pass", shape="kary", n=64, k=8, d=16, sampling="iid", trule="specinfer")
    assert b["tokens_asked"] == 27 and b["pass"]["tree"]["n"] == 64 and len(b["pass"]["tree"]["mask"]) == 65


def test_the_tubes_count_what_they_drew_and_catch_the_blatant_mistake(app):
    a = data(app, "trees.tubes")
    t = a["tubes"]
    assert a["check"]["exact"] and t["rule"] == "sequoia" and t["sampling"] == "wor" and t["k"] == st.STAR
    n = t["rounds"] * t["trials"] == a["draws"] == P.TREE_TUBE_TRIALS
    assert sum(c["plain"] for c in a["cols"]) == a["draws"] == sum(c["kept"] + c["put_in"] for c in a["cols"])
    assert t["tree"]["kept"] == sum(c["kept"] for c in a["cols"])
    assert sum(c["p"] for c in a["cols"]) == pytest.approx(1.0) and n
    # The draft's likeliest tokens checked as if drawn from q: the first token's distribution is
    # 0.49 from p in total variation at "it ." (sim.tree.tubes), so 200 passes reject it.
    for seed in (1, 2, 3):
        w = data(app, "trees.tubes", sampling="top", trule="specinfer", trounds=4, seed=seed)
        assert not w["check"]["exact"] and w["check"]["why"] == "top-specinfer" and w["draws"] == 200
        assert w["tubes"]["tree"]["pvalue"] < 1e-3 and w["tubes"]["plain"]["pvalue"] > 1e-3


def test_the_budget_answer_agrees_with_itself(app):
    a = data(app, "trees.budget")
    v = a["verdict"]
    trees = max(("topk", "dynamic", "best", "sequoia"), key=lambda m: a["methods"][m]["best_speedup"])
    assert v["best_tree"]["method"] == trees
    assert v["best_tree"]["speedup"] == pytest.approx(a["methods"][trees]["best_speedup"])
    assert v["tree_over_chain"] == pytest.approx(v["best_tree"]["speedup"] / v["best_chain"]["speedup"])
    assert a["methods"]["dynamic"]["at_n"]["tokens"] == pytest.approx(a["methods"]["dynamic"]["tokens"][7], abs=1e-4)
    assert [r["n"] for r in a["table_rows"]] == [1, 2, 4, 8, 16, 32, 64]
    assert [r["n"] for r in data(app, "trees.budget", n=40)["table_rows"]] == [1, 2, 4, 8, 16, 32, 40, 64]
    # Llama 3.1 8B on an H100 at 4,096 tokens: 119 streams fit (tests/test_tree_cost.py), so the
    # batch scan ends after 64 and trees still pay there.
    assert a["scan"]["stops_fitting"] == 128 and a["scan"]["last"] == 64 and a["scan"]["case"] == "memory"
    # No cache (context 0): every batch up to 1024 fits, and trees stop paying in a large batch.
    z = data(app, "trees.budget", ctx=0)
    assert z["scan"]["case"] == "stop" and 1 < z["scan"]["trees_stop"] <= 1024
    # The 70B model does not fit one H100 at all: no speed-ups, no verdict.
    # The 70B runs on the two GPUs its weights need (as sections 1, 2, 9); one stream of 131,072
    # tokens does not fit beside them.
    big = data(app, "trees.budget", model="llama-3.1-70b", ctx=131072)
    assert not big["fits"] and big["verdict"] is None and big["scan"]["case"] == "none"
    assert all(s is None for m in big["methods"].values() for s in m["speedup"])


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_section_reads_without_scripts(page_html, client, lang):
    html = client.get(f"/embed/{lang}/specdec/trees/?seed=4").get_data(as_text=True)
    soup = BeautifulSoup(html, "html.parser")
    sec = soup.select_one("#trees")
    assert sec is not None and not sec.select(".unavailable")
    import json
    pa = json.loads(sec.select_one('script[data-answer="trees.pass"]').string)
    pj = pa["pass"]
    # The tree: one node per guess and the root; statuses as the walk left them.
    nodes = sec.select("svg.trees-tree g.tnode")
    assert len(nodes) == pj["tree"]["n"] + 1
    for g, nd in zip(nodes[1:], pj["tree"]["nodes"][1:]):
        assert f"tnode--{nd['status']}" in g["class"] and nd["token"][:10] in g.get_text()
    # The mask: one cell per pair (i sees j); every check, draw and final token in the list.
    assert len(sec.select("svg.trees-mask-svg rect.tmask-cell")) == sum(map(sum, pj["tree"]["mask"]))
    items = sec.select("ol.trees-walk li")
    assert len(items) == sum(e["kind"] in ("check", "draw", "final") for e in pj["events"])
    assert [c.select_one(".tape-tok").get_text() for c in sec.select("ol.trees-written li")] == \
        [w["token"] for w in pj["written"]]
    # The tubes, the fallback tables and the live text.
    assert len(sec.select("svg.trees-tube--plain .ball--plain")) == len(sec.select("svg.trees-tube--tree .ball--kept"))
    assert sec.select('[data-live="budget_table"] table') and sec.select('[data-live="budget_scan"] table')
    for name in ("budget_takeaway", "pass_plan", "pass_metrics", "tubes_rule", "budget_readouts",
                 "budget_frontier", "pass_answer"):
        assert sec.select(f'[data-live="{name}"]'), name
    # The page (not the embed) has the prose, each part's sentences a live block of that part:
    # the section's first point, then the pass's and the budget's in their "Go further" folds.
    page = BeautifulSoup(page_html(f"/{lang}/specdec/?seed=4"), "html.parser")
    assert page.select_one('#trees [data-live="prose"]').get_text(strip=True)
    assert page.select('#trees #trees-tubes [data-live="more"] [data-live="pass_prose"]')
    assert page.select('#trees #trees-budget .further__prose [data-live="budget_prose"]')
    text = sec.get_text(" ")
    assert (re.search(r"[\u4e00-\u9fff]", text) is not None) == (lang == "zh")


def test_the_plate_numbers_the_sections(page_html):
    html = page_html("/en/specdec/")
    nums = re.findall(r'<section id="(\w+)" class="plate-section" data-num="(\d+)"', html)
    # Inside the reader is section 3 (issue 22: it follows the batch).
    assert nums[2] == ("reader", "3")
    assert nums[10:] == [("selfdraft", "11"), ("trees", "12"), ("parts", "13"), ("bench", "14"), ("lab", "15")]
