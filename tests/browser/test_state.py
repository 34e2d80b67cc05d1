"""One state, one renderer (issue 11) in a real browser: loading asks nothing; a control asks only
for the sections that read it, each answer once; every live text follows its controls and says
what the server renders for the new state; a failing answer fails its section alone; Embed
snippets carry only what their section reads."""
import html
import re
from urllib.parse import parse_qsl, urlsplit

import pytest
from bs4 import BeautifulSoup

from sim import params as P
from views.sections import ANCHORS, BY_ANCHOR, SECTIONS, reads
from tests.browser.util import load, open_fold, settle

pytestmark = pytest.mark.browser


def api_requests(page):
    log = []
    page.on("request", lambda r: log.append(r.url) if "/api/" in r.url else None)
    return log


def units_of(urls):
    return [urlsplit(u).path.rsplit("/", 1)[1] for u in urls if "/api/section/" in u]


def other_value(control):
    """A value the control does not show now, and how to set it."""
    info = control.evaluate("""c => ({tag: c.tagName, type: c.type, value: c.value, min: c.min, max: c.max,
        options: c.tagName === 'SELECT' ? [...c.options].map(o => o.value) : []})""")
    if info["tag"] == "SELECT":
        return "select", next(v for v in reversed(info["options"]) if v != info["value"])
    if info["type"] == "checkbox":
        return "click", None
    lo, hi = float(info["min"]), float(info["max"])
    if info["type"] == "range":
        return "fill", str(int(lo + (hi - lo) * 0.7)) if hi > 1 else "0.37"
    # a number box (typed value or seed)
    v = float(info["value"] or lo)
    new = hi * 0.3 if hi > 1 else 0.37
    new = new if abs(new - v) > 1e-9 else (lo + hi) / 2
    return "type", (str(int(new)) if hi > 1 else str(new))


def change(control, how, value):
    if how == "select":
        control.select_option(value)
    elif how == "click":
        control.click()
    elif how == "fill":
        control.fill(value)
    else:
        control.fill(value)
        control.press("Enter")


@pytest.mark.parametrize("path", ["/en/specdec/", "/zh/specdec/", "/embed/en/specdec/",
                                  *[f"/embed/zh/specdec/{a}/" for a in ANCHORS]])
def test_loading_asks_the_api_nothing(page, live_url, path):
    log = api_requests(page)
    load(page, live_url + path)
    page.wait_for_timeout(800)
    assert log == [], log


def test_each_control_asks_only_for_the_sections_that_read_it(browser, live_url):
    # issue 11: one γ change sent 11 requests, one preset 17. Now: only the units that read the
    # changed parameter, each once. (A window as tall as the page: every section is near the view,
    # so every reader asks at once; the next test checks that far sections wait.)
    ctx = browser.new_context(viewport={"width": 1280, "height": 32000})
    page = ctx.new_page()
    load(page, live_url + "/en/specdec/")
    log = api_requests(page)
    on_page = [u for s in SECTIONS for u in s.units]
    seen_params = set()
    for i in range(page.locator("[data-param]").count()):
        control = page.locator("[data-param]").nth(i)
        name = control.get_attribute("data-param")
        if name in seen_params or not control.is_visible() or name == "text":
            continue
        seen_params.add(name)
        settle(page)
        log.clear()
        how, value = other_value(control)
        change(control, how, value)
        settle(page)
        asked = units_of(log)
        readers = {u for u in on_page if name in P.reads(u)}
        assert set(asked) == readers, (name, sorted(readers - set(asked)), sorted(set(asked) - readers))
        assert len(asked) == len(set(asked)), (name, asked)   # nothing asked twice
    assert {"gamma", "draft", "seed", "batch", "gpu", "rule", "c", "alpha", "eff"} - seen_params <= {"eff"}
    ctx.close()


def test_sections_far_from_the_view_ask_when_they_come_near(page, live_url):
    load(page, live_url + "/en/specdec/#tape")
    log = api_requests(page)
    page.locator("#tape-gamma").fill("6")
    settle(page)
    first = set(units_of(log))
    assert first and first <= {"draft", "tape", "rule", "alpha"}, first   # the tape and its neighbours
    assert "idle" not in first and not any(u.startswith("lab") for u in first)
    page.locator("#idle").scroll_into_view_if_needed()
    settle(page)
    assert "idle" in units_of(log)
    page.locator("#lab").scroll_into_view_if_needed()
    settle(page)
    asked = units_of(log)
    assert {"lab.run", "lab.drafts", "lab.map"} <= set(asked)
    assert "lab.tubes" not in asked          # the tubes do not read γ
    assert len(asked) == len(set(asked))


def _section_text(el) -> str:
    return " ".join(BeautifulSoup(el, "html.parser").get_text(" ").split())


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("anchor", [s.anchor for s in SECTIONS if s.units])
def test_live_text_follows_every_control_of_a_section(page, live_url, client, lang, anchor):
    # For each control of the section: after a change, every live block says what the server
    # renders for the new state, and a number shown twice (prose and widget) is the same twice.
    load(page, f"{live_url}/embed/{lang}/specdec/{anchor}/")
    sec = BY_ANCHOR[anchor]
    n = page.locator(f"#{anchor} [data-param]").count()
    assert n or set(reads(sec)) <= {"gpu", "model", "depth", "eff"}, anchor  # nothing to change here
    for i in range(n):
        control = page.locator(f"#{anchor} [data-param]").nth(i)
        if not control.is_visible() or control.get_attribute("data-param") == "text":
            continue
        how, value = other_value(control)
        change(control, how, value)
        settle(page)
        query = dict(parse_qsl(urlsplit(page.url).query))
        for unit in sec.units:
            q = {k: v for k, v in query.items() if k in P.reads(unit)}
            want = client.get(f"/api/section/{unit}", query_string={"lang": lang, **q}).get_json()["html"]
            # Each block's markup read in one go: a chart may take a fallback table's place meanwhile.
            shown = page.evaluate("(a) => [...document.querySelectorAll(`#${a} [data-live]`)]"
                                  ".map(b => [b.dataset.live, b.innerHTML])", anchor)
            for name, markup in want.items():
                for _, block in (x for x in shown if x[0] == name):
                    assert _section_text(block) == _section_text(markup), \
                        (anchor, control.get_attribute("id"), name)
        shown = {}
        # Read in one go: a locator per field would race with the widgets' own redrawing.
        for field, fmt, text in page.evaluate(
                "(a) => [...document.querySelectorAll(`#${a} [data-field]:not([data-fmt=case])`)]"
                ".map(f => [f.dataset.field, f.dataset.fmt ?? null, f.textContent])", anchor):
            shown.setdefault((field, fmt), set()).add(" ".join(text.split()))
        assert all(len(v) == 1 for v in shown.values()), {k: v for k, v in shown.items() if len(v) > 1}


def test_a_failing_answer_fails_its_section_alone(page, live_url):
    load(page, live_url + "/zh/specdec/#tape")
    page.route("**/api/section/tape?**", lambda route: route.fulfill(
        status=500, content_type="application/json",
        body='{"error": {"param": null, "allowed": null, "message": "服务器出了点问题。", "status": 500}}'))
    # Section 4's sentence on γ is in its "Go further" fold.
    open_fold(page, "draft-more")
    before = page.locator("#draft [data-live=more]").inner_text()
    page.locator("#tape-gamma").fill("7")
    settle(page)
    err = page.locator("#tape > .widget-error")
    assert err.count() == 1 and err.get_attribute("role") == "alert"
    assert re.search(r"[\u4e00-\u9fff]", err.inner_text())
    # Its neighbours took the new γ; the failing one kept its old numbers and says why.
    page.locator("#draft").scroll_into_view_if_needed()
    settle(page)
    assert page.locator("#draft [data-live=more]").inner_text() != before
    assert page.locator("#draft > .widget-error").count() == 0
    page.unroute("**/api/section/tape?**")
    page.locator("#tape-gamma").fill("6")
    settle(page)
    assert page.locator("#tape > .widget-error").count() == 0   # the next good answer clears it


def test_embed_snippets_carry_only_what_their_section_reads(page, live_url):
    # issue 11: after touching sections 4, 6 and 9, section 9's snippet carried α from section
    # 7's run and the rule from section 6.
    load(page, live_url + "/en/specdec/")
    page.locator("#tape-gamma").fill("6")
    page.locator("#tape-draft").select_option("unigram")
    page.locator("#tape-seed").fill("7")
    page.locator("#tape-seed").press("Enter")
    page.locator("#exact-rule").select_option("resample-target")
    page.locator("#idle-batch-typed").fill("256")
    page.locator("#idle-batch-typed").press("Enter")
    settle(page)
    for anchor in ("idle", "onebyone", "exact", "tape"):
        page.locator(f"#{anchor} .embed-link").click()
        code = page.locator("#embed-dialog-code").input_value()
        page.keyboard.press("Escape")
        src = html.unescape(re.search(r'src="([^"]+)"', code).group(1))
        got = dict(parse_qsl(urlsplit(src).query))
        assert set(got) <= set(reads(BY_ANCHOR[anchor])), (anchor, got)
        want = {k: v for k, v in {"gamma": "6", "draft": "unigram", "seed": "7", "rule": "resample-target",
                                  "batch": "256"}.items() if k in reads(BY_ANCHOR[anchor])}
        assert got == want, (anchor, got)
