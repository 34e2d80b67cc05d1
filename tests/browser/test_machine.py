"""The bench as a moving three.js machine (static/js/machine.js, machine3d.js), in headless Chromium
with SwiftShader's WebGL: it mounts only near its view, a step changes exactly the parts the traced
pass names (read back from the scene graph), one moment renders to the same pixels every time, and
without WebGL, with reduced motion and in print the 2D diagram of section 13 stands in for it."""
from __future__ import annotations

import json
import math
from contextlib import contextmanager

import pytest

from tests.browser.util import FRAMES, load
from bench import chromium
from tests.conftest import CHROMIUM, _origin, guard

# One worker runs the whole file (pytest-xdist's loadgroup), so the module's Chromium with
# software WebGL is started once, not once on each worker.
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("machine")]

THREE = ("/vendor/three.min.js",)
LIVE = ".machine[data-machine=live]"
TAU = 2 * math.pi


@pytest.fixture(scope="module")
def gl_browser(playwright):
    b = playwright.chromium.launch(executable_path=CHROMIUM, args=chromium.SWIFTSHADER, headless=True)
    yield b
    b.close()


def open_page(browser, live_url, path, width=1280, height=900, init_script=None, **ctx):
    context = browser.new_context(viewport={"width": width, "height": height}, **ctx)
    if init_script:
        context.add_init_script(init_script)
    page = context.new_page()
    guard(page, {_origin(live_url)})
    page.requested = []
    page.on("request", lambda r: page.requested.append(r.url))
    load(page, live_url + path)
    return context, page


def wait_live(page, scope):
    page.locator(scope).first.scroll_into_view_if_needed()
    page.wait_for_selector(f"{scope} {LIVE}", state="attached", timeout=60_000)


@contextmanager
def machine_page(browser, live_url, path, scope="#bench", **kw):
    """The page at ``path``, its machine in ``scope`` live (None: not waited for); closed after."""
    context, page = open_page(browser, live_url, path, **kw)
    try:
        if scope:
            wait_live(page, scope)
        yield page
    finally:
        context.close()


def fetched_three(page) -> bool:
    return any(u.endswith(THREE) for u in page.requested)


def answer(page, unit="bench"):
    return json.loads(page.locator(f'script[data-answer="{unit}"]').first.text_content())


def readback(page, scope="#bench"):
    return page.evaluate(f"() => document.querySelector('{scope} .machine').machine.readback()")


def finish_pass(page, scope="#bench"):
    """The pass the bench just started, run to its end through step(dt) alone."""
    return page.evaluate(f"() => document.querySelector('{scope} .machine').machine.step(100)")


def step(page, scope="#bench"):
    """One press of Step, the pass run to its end; the machine's readback after it."""
    page.click(f"{scope} [data-act=step]")
    return finish_pass(page, scope)


def test_mounts_near_its_view_only(gl_browser, live_url):
    # 800 px high, so no section's small view is in sight at the top: one in sight for 0.7 s loads
    # the scene by design, and under load the page took that long to be ready (flaky at 900 px).
    with machine_page(gl_browser, live_url, "/en/specdec/", None, height=800) as page:
        # At the top of the plate nothing of three.js or the scene has been asked for.
        page.wait_for_timeout(500)
        assert not fetched_three(page)
        assert not any("/machine3d.js" in u for u in page.requested)
        wait_live(page, "#bench")
        assert fetched_three(page)
        canvases = page.locator("canvas.machine-canvas")
        assert canvases.count() == 1  # one WebGL context for the page
        assert page.locator("#bench .machine-stage canvas").count() == 1
        assert not page.console_errors, page.console_errors
        assert not page.foreign_requests, page.foreign_requests


def test_one_step_changes_exactly_the_parts_it_names(gl_browser, live_url):
    with machine_page(gl_browser, live_url, "/en/specdec/?batch=1&gamma=4#bench") as page:
        a = answer(page)
        gamma = a["params"]["gamma"]
        steps = a["run"]["steps"]
        before = readback(page)
        assert before["pass"] == 0 and before["bigDrumAngle"] == 0 and before["lanesLit"] == 0
        assert before["gauges"] == [0] * gamma
        context_cells = len(a["run"]["context"])
        assert before["tapeCells"] == context_cells
        for n in (1, 2):
            after = step(page)
            traced = steps[n - 1]
            assert after["pass"] == n and after["f"] == 1
            # The big drum turns once per pass; the small drum once per guess.
            assert after["bigDrumAngle"] == pytest.approx(n * TAU, abs=1e-9)
            drafted = sum(len(s["guesses"]) for s in steps[:n])
            assert after["smallDrumAngle"] == pytest.approx(drafted * TAU, abs=1e-9)
            # γ + 1 lanes lit at batch 1.
            assert after["lanes"] == gamma + 1 and after["lanesLit"] == gamma + 1
            # Each checked guess's gauge stands at min(1, p/q); the rest stay empty.
            want = [min(1.0, p["ratio"]) for p in traced["proposals"]] + [0] * (gamma - len(traced["proposals"]))
            assert after["gauges"] == pytest.approx(want, abs=1e-6)
            assert after["r"][:len(traced["proposals"])] == pytest.approx([p["r"] for p in traced["proposals"]])
            verdicts = ["kept" if p["accepted"] else "refused" for p in traced["proposals"]]
            assert after["caps"][:len(verdicts)] == verdicts
            # The type head printed the pass's tokens onto the tape.
            assert after["tapeCells"] == context_cells + sum(len(s["written"]) for s in steps[:n])
            # What the step does not name stays as it was: the cabinet (one drawer, none
            # spilled, closed again), the number of lanes and gauges, the view.
            for key in ("drawers", "spilled", "lanes", "gamma", "batch", "fits", "explode", "headY"):
                assert after[key] == before[key], key
            assert abs(after["drawerOpen"]) < 1e-9
            before = after
        # The live region says the pass in words.
        said = page.locator("#bench [data-out=said]").text_content()
        assert said.startswith("Pass 2:"), said


def test_the_slider_scrubs_within_the_pass(gl_browser, live_url):
    with machine_page(gl_browser, live_url, "/en/specdec/?batch=1#bench") as page:
        step(page)
        slider = page.locator("#bench [data-machine-time]")
        assert slider.is_enabled()
        # Halfway: the draft has guessed, the big drum is turning, no gauge has risen yet.
        slider.fill("450")
        mid = readback(page)
        assert mid["pass"] == 1 and mid["f"] == pytest.approx(0.45)
        assert 0 < mid["bigDrumAngle"] < TAU
        assert mid["gauges"] == [0] * len(mid["gauges"])
        slider.fill("0")
        start = readback(page)
        assert start["bigDrumAngle"] == 0 and start["lanesLit"] == 0


def test_same_moment_same_pixels(gl_browser, live_url):
    with machine_page(gl_browser, live_url, "/en/specdec/#bench") as page:
        px = "(a) => { const m = document.querySelector('#bench .machine').machine; m.seek(a[0], a[1]); return m.pixels(); }"
        first = page.evaluate(px, [3, 0.5])
        page.evaluate(px, [5, 0.2])
        again = page.evaluate(px, [3, 0.5])
        later = page.evaluate(px, [3, 0.9])
        assert first == again
        assert first != later  # the frame does change with t


def test_cabinet_overflows_when_the_batch_does_not_fit(gl_browser, live_url):
    with machine_page(gl_browser, live_url, "/en/specdec/?batch=1024&ctx=32768#bench") as page:
        a = answer(page)
        assert a["machine"]["fits"] is False
        rb = readback(page)
        assert rb["fits"] is False and rb["spilled"] > 0
        note = page.locator("#bench .machine-note").text_content()
        assert "does not fit" in note and str(a["machine"]["max_batch"]) in note


@pytest.mark.parametrize("lang, name", [("en", "The slow writer"), ("zh", "又大又慢的写手")])
def test_story_names_at_the_story_depth_in_the_embed(gl_browser, live_url, lang, name):
    with machine_page(gl_browser, live_url, f"/embed/{lang}/specdec/bench/?depth=story", None) as page:
        page.wait_for_selector(LIVE, state="attached", timeout=60_000)
        item = page.locator('.machine-legend [data-part="bigdrum"] .machine-name:visible')
        assert item.count() == 1 and item.text_content() == name
        assert page.locator("[data-act=step]").count() == 1


def test_exploded_view_in_section_13(gl_browser, live_url):
    with machine_page(gl_browser, live_url, "/zh/specdec/#parts", "#parts") as page:
        rb = readback(page, "#parts")
        assert rb["explode"] == 1
        # The 2D diagram gives way to the machine; each part's label is placed on the stage.
        assert not page.locator("#parts .parts-svg--wide").is_visible()
        assert page.locator("#parts .machine-tag").count() == 10


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_fits_and_plays_at_390(gl_browser, live_url, lang):
    with machine_page(gl_browser, live_url, f"/{lang}/specdec/?batch=1#bench", width=390, height=844) as page:
        box = page.locator("#bench .machine-stage").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= 390
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        assert step(page)["bigDrumAngle"] == pytest.approx(TAU)


NO_WEBGL = """HTMLCanvasElement.prototype.getContext = ((get) => function (kind, ...rest) {
  return /webgl/i.test(kind) ? null : get.call(this, kind, ...rest);
})(HTMLCanvasElement.prototype.getContext);"""


def fallback_shown(page):
    page.locator("#parts .widget").first.scroll_into_view_if_needed()
    page.evaluate(FRAMES)
    page.wait_for_timeout(300)
    assert page.locator("#parts .parts-svg--wide").is_visible()
    assert not page.locator(".machine-stage canvas").count()
    assert not page.locator("#parts .machine").is_visible()
    assert not fetched_three(page)


def test_without_webgl_the_2d_diagram_stays(gl_browser, live_url):
    with machine_page(gl_browser, live_url, "/en/specdec/#parts", None, init_script=NO_WEBGL) as page:
        assert page.locator("#parts .machine").get_attribute("data-machine") == "no-webgl"
        fallback_shown(page)


def test_reduced_motion_keeps_the_2d_diagram(gl_browser, live_url):
    with machine_page(gl_browser, live_url, "/zh/specdec/#parts", None, reduced_motion="reduce") as page:
        assert page.locator("#parts .machine").get_attribute("data-machine") == "reduced-motion"
        fallback_shown(page)
        # The bench still steps its tape and says each pass in words.
        page.locator("#bench [data-act=step]").click()
        assert page.locator("#bench [data-out=said]").text_content().startswith("第 1 次前向")


def test_printed_page_shows_the_2d_diagram(gl_browser, live_url):
    with machine_page(gl_browser, live_url, "/en/specdec/#parts", "#parts") as page:
        page.emulate_media(media="print")
        assert page.locator("#parts .parts-svg--wide").is_visible()
        assert not page.locator("#parts .machine").is_visible()


# ---- the carriage's text and the sections' small views ------------------------------------------

def test_the_carriage_writes_each_guess_and_the_gauges_ink_it(gl_browser, live_url):
    context, page = open_page(gl_browser, live_url, "/zh/specdec/?batch=1&gamma=4#bench")
    try:
        wait_live(page, "#bench")
        steps = answer(page)["run"]["steps"]
        assert readback(page)["carriage"] == [None] * 4  # nothing written before a pass
        for n in (1, 2):
            page.click("#bench [data-act=step]")
            step = steps[n - 1]
            guesses = [g["token"] for g in step["guesses"]]
            # Halfway through the draft's turns, the guesses drawn so far are on the slip, unjudged.
            mid = page.evaluate("(f) => document.querySelector('#bench .machine').machine.seek(%d, f)" % n, 0.34 * 0.5)
            half = len(guesses) // 2
            assert [c and c[0] for c in mid["carriage"][:half]] == guesses[:half]
            assert all(c is None or c[1] == "written" for c in mid["carriage"])
            # At the pass's end every guess is written in the reader's language and judged.
            end = finish_pass(page)
            want = [[g, "kept" if p["accepted"] else "refused"] for g, p in zip(guesses, step["proposals"])]
            want += [[g, "unchecked"] for g in guesses[len(step["proposals"]):]]
            assert end["carriage"][:len(guesses)] == want
            assert end["marks"] == len(guesses)
    finally:
        context.close()


SECTION_PARTS = {"onebyone": "bigdrum", "batch": "cabinet", "reader": "reader", "draft": "smalldrum carriage",
                 "tape": "tape typehead", "rule": "gauges", "exact": "tubes", "idle": "mill"}


def test_each_section_that_hangs_on_a_part_shows_it_lit(gl_browser, live_url):
    # 800 px high: the first section's view (in its heading's row) starts just below the fold,
    # so no part view is in sight until the test scrolls to one.
    context, page = open_page(gl_browser, live_url, "/en/specdec/", height=800)
    try:
        links = page.locator(".machine-part")
        found = {links.nth(i).evaluate("l => l.closest('.plate-section').id"): links.nth(i).get_attribute("data-parts")
                 for i in range(links.count())}
        assert found == SECTION_PARTS
        for i in range(links.count()):
            assert links.nth(i).get_attribute("href") == "#bench"
            # Its name holds its visible label (axe's label-content-name-mismatch).
            assert links.nth(i).get_attribute("aria-label").startswith("On the bench of section")
        # Coming near does not load the scene; staying in sight of a part view does.
        page.wait_for_timeout(300)
        assert not fetched_three(page)
        page.locator("#reader .machine-part").scroll_into_view_if_needed()
        page.wait_for_selector("#reader .machine-part.is-drawn", state="attached", timeout=90_000)
        assert fetched_three(page)
        assert page.locator("#reader .machine-part").get_attribute("data-still") == "reader"
        # One WebGL context for the page (its canvas out of the page until a large view holds it):
        # the stills are 2D copies of its frames.
        assert page.locator("canvas.machine-canvas").count() <= 1
        assert page.evaluate("""() => [...document.querySelectorAll('.machine-part__still')]
            .every(c => c.getContext('webgl2') === null && c.getContext('webgl') === null)""")
        assert page.evaluate("""() => { const c = document.querySelector('#reader .machine-part__still');
            const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
            const seen = new Set(); for (let i = 0; i < d.length; i += 97 * 4) seen.add(d[i] >> 3 << 10 | d[i + 1] >> 3 << 5 | d[i + 2] >> 3);
            return seen.size; }""") > 20  # a picture, not a blank
        # A neighbour within a screen gets its still too, the part it names lit.
        page.wait_for_selector("#batch .machine-part.is-drawn, #draft .machine-part.is-drawn", state="attached", timeout=60_000)
        # The still of a lit part differs from another part's.
        page.locator("#draft .machine-part").scroll_into_view_if_needed()
        page.wait_for_selector("#draft .machine-part.is-drawn", state="attached", timeout=60_000)
        a, b = (page.evaluate(f"() => document.querySelector('#{s} .machine-part__still').toDataURL()") for s in ("reader", "draft"))
        assert a != b
        assert not page.console_errors, page.console_errors
        assert not page.foreign_requests, page.foreign_requests
    finally:
        context.close()


def test_part_views_cost_no_height_beside_the_prose_at_1280(gl_browser, live_url):
    context = gl_browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(NO_WEBGL)
    page = context.new_page()
    try:
        load(page, live_url + "/en/specdec/")
        heights = """() => [...document.querySelectorAll('.machine-part')].map(l => l.closest('.plate-section').getBoundingClientRect().height)"""
        with_views = page.evaluate(heights)
        page.add_style_tag(content=".machine-part { display: none !important; }")
        without = page.evaluate(heights)
        assert len(with_views) == len(SECTION_PARTS)
        assert with_views == pytest.approx(without, abs=1)
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_without_webgl_part_views_keep_the_2d_picture(gl_browser, live_url, lang):
    context = gl_browser.new_context(viewport={"width": 390, "height": 844})
    context.add_init_script(NO_WEBGL)
    page = context.new_page()
    page.requested = []
    page.on("request", lambda r: page.requested.append(r.url))
    try:
        load(page, live_url + f"/{lang}/specdec/#rule")
        page.wait_for_timeout(1500)
        view = page.locator("#rule .machine-part")
        assert view.is_visible() and page.locator("#rule .machine-part__pic").is_visible()
        assert not page.locator(".machine-part__still").count()
        box = view.bounding_box()
        assert box["width"] <= 100 and box["height"] <= 64 and box["x"] + box["width"] <= 390
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        assert not fetched_three(page)
        # An embed of the section has no heading, and no small view.
        load(page, live_url + f"/embed/{lang}/specdec/rule/")
        assert not page.locator(".machine-part").count()
    finally:
        context.close()


def part_still(page, anchor):
    """What the part view of section ``anchor`` was last drawn for: the state key it records
    (data-still-state), the scene graph as its still posed it, and how many times it was drawn."""
    return page.evaluate("""(a) => { const l = document.querySelector(`#${a} .machine-part`), s = l.machineStill;
        return s ? { ...s, attr: l.dataset.stillState, png: l.querySelector('.machine-part__still').toDataURL() } : null; }""", anchor)


def test_part_views_are_drawn_again_for_a_changed_state_when_next_near(gl_browser, live_url):
    height = 800
    context, page = open_page(gl_browser, live_url, "/en/specdec/?batch=1&gamma=4", height=height)
    try:
        # Section 10's view drawn first, for γ = 4; then section 4's, far above it.
        page.locator("#idle .machine-part").scroll_into_view_if_needed()
        page.wait_for_selector("#idle .machine-part.is-drawn", state="attached", timeout=90_000)
        page.locator("#draft .machine-part").scroll_into_view_if_needed()
        page.wait_for_selector("#draft .machine-part.is-drawn", state="attached", timeout=60_000)
        idle, draft = part_still(page, "idle"), part_still(page, "draft")
        for s in (idle, draft):
            assert "&gamma=4&" in s["state"] and s["attr"] == s["state"]
            assert s["scene"]["gamma"] == 4 and len(s["scene"]["carriage"]) == 4
        # Section 10's view is more than a screen below the view: not near, so not drawn yet.
        top = page.evaluate("() => document.querySelector('#idle .machine-part').getBoundingClientRect().top")
        assert top > 2 * height

        # γ = 7 on section 4's slider: the view in sight is drawn again, for the new state.
        page.locator("#draft-gamma").fill("7")
        page.wait_for_selector('#draft .machine-part[data-still-state*="&gamma=7&"]', state="attached", timeout=60_000)
        after = part_still(page, "draft")
        assert after["draws"] == draft["draws"] + 1
        want = page.request.get(live_url + "/api/section/bench?lang=en&batch=1&gamma=7").json()["data"]
        guesses = [g["token"] for g in want["run"]["steps"][0]["guesses"]]
        scene = after["scene"]
        assert scene["gamma"] == 7 and scene["lanesPerStream"] == 8 and len(scene["carriage"]) == 7
        # Pass 1 of the new run, its guesses written so far on the carriage's slip.
        written = [c[0] for c in scene["carriage"] if c]
        assert written and written == guesses[:len(written)]
        assert after["png"] != draft["png"]

        # The view out of sight is left as it was, however long the page waits.
        page.wait_for_timeout(1500)
        page.evaluate(FRAMES)
        assert part_still(page, "idle") == idle
        # Brought into view, it is drawn again for the state as it is now.
        page.locator("#idle .machine-part").scroll_into_view_if_needed()
        page.wait_for_selector('#idle .machine-part[data-still-state*="&gamma=7&"]', state="attached", timeout=60_000)
        again = part_still(page, "idle")
        assert again["draws"] == idle["draws"] + 1 and again["scene"]["gamma"] == 7
        assert not page.console_errors, page.console_errors
    finally:
        context.close()
