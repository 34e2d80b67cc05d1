"""The teacher's page as a teacher uses it: build a lesson (sections, depth, a starting state set
by moving a control in the live preview, locked or hidden settings, paused), then open its link
and its snippets and find them as chosen."""
import html
import re
from urllib.parse import parse_qsl, urlsplit

import pytest

from tests.browser.util import READY, load

pytestmark = pytest.mark.browser


def test_build_a_lesson_and_open_its_link_and_snippets(page, live_url):
    load(page, f"{live_url}/en/specdec/teach/")
    # Sections 4 and 6 (section 1 is picked to begin with).
    page.uncheck('input[name="pick"][value="onebyone"]')
    page.check('input[name="pick"][value="tape"]')
    page.check('input[name="pick"][value="exact"]')
    page.check('input[name="depth"][value="story"]')
    page.check('input[name="controls"][value="locked"]')
    page.check('input[name="paused"]')
    # Section 4's start: γ 6, set by its own control in the preview, not typed as a key.
    page.select_option("#teach-edit", "tape")
    frame = page.frame_locator(".teach-preview__frame")
    page.wait_for_selector('.teach-preview__frame[data-ready="1"][data-anchor="tape"]', state="attached", timeout=30_000)
    frame.locator("#tape-gamma").fill("6")  # a slider
    page.wait_for_function("() => document.getElementById('teach-link').value.includes('gamma=6')", timeout=15_000)
    assert "gamma=6" in page.locator(".teach-preview__carries").inner_text()
    link = page.locator("#teach-link").input_value()
    q = dict(parse_qsl(urlsplit(link).query))
    assert urlsplit(link).path == "/en/specdec/"
    assert q == {"gamma": "6", "depth": "story", "sections": "tape,exact", "controls": "locked", "paused": "1"}
    # The QR code is of this link (drawn by the server once the choices rest).
    page.wait_for_function(
        "() => { const b = document.getElementById('teach-qr'); return b.dataset.link && "
        "document.getElementById('teach-link').value.endsWith(b.dataset.link) && b.querySelector('img.qr'); }",
        timeout=15_000)
    svg = page.request.get(live_url + page.locator("#teach-qr img").get_attribute("src"))
    assert svg.status == 200 and svg.headers["content-type"].startswith("image/svg+xml") and b"<path" in svg.body()
    # Only the chosen sections have snippets; each carries its own start.
    shown = page.locator("#teach-snippets li:not([hidden])").evaluate_all("ls => ls.map(l => l.dataset.anchor)")
    assert shown == ["tape", "exact"]
    tape_snip = page.locator("#teach-snippet-tape").input_value()
    src = html.unescape(re.search(r'<iframe src="([^"]+)"', tape_snip).group(1))
    assert urlsplit(src).path == "/embed/en/specdec/tape/"
    assert dict(parse_qsl(urlsplit(src).query)) == {"gamma": "6", "depth": "story", "controls": "locked", "paused": "1"}
    assert "allowfullscreen" in tape_snip
    exact_src = html.unescape(re.search(r'<iframe src="([^"]+)"', page.locator("#teach-snippet-exact").input_value()).group(1))
    assert "gamma" not in exact_src   # section 6 does not read γ

    # The link: only the two sections, at the Story depth, γ 6, every setting shown but locked.
    lesson = page.context.new_page()
    load(lesson, link)
    ids = lesson.locator(".plate-section").evaluate_all("ss => ss.map(s => s.id)")
    assert ids == ["tape", "exact"]
    assert lesson.locator("main").get_attribute("data-depth") == "story"
    assert lesson.locator("#tape-gamma").input_value() == "6"
    controls = lesson.locator(".plate-section [data-param]")
    assert controls.count() > 3
    assert controls.evaluate_all("cs => cs.every(c => c.disabled)")
    assert lesson.locator("#tape-gamma").is_visible()
    assert lesson.locator("html").get_attribute("data-paused") == "1"
    # Stepping still works in a locked lesson.
    lesson.locator("#tape [data-act=step]").click()
    assert lesson.locator("#tape [data-out=passes]").inner_text() == "1"
    lesson.close()

    # Hidden settings: the snippet's frame shows no control at all.
    page.check('input[name="controls"][value="hidden"]')
    hidden_src = html.unescape(re.search(r'<iframe src="([^"]+)"', page.locator("#teach-snippet-tape").input_value()).group(1))
    assert dict(parse_qsl(urlsplit(hidden_src).query))["controls"] == "hidden"
    emb = page.context.new_page()
    load(emb, hidden_src)
    assert emb.locator("[data-param]").count() > 0
    assert emb.locator("[data-param]").evaluate_all("cs => cs.every(c => c.disabled && !c.checkVisibility())")
    assert emb.locator(".tape-strip, [data-act=step]").first.is_visible()
    emb.close()
    assert page.console_errors == []


def test_teacher_page_without_scripts_is_a_form(browser, live_url):
    ctx = browser.new_context(java_script_enabled=False)
    pg = ctx.new_page()
    pg.goto(f"{live_url}/zh/specdec/teach/?pick=rule&pick=alpha&controls=hidden&for=zh")
    link = pg.locator("#teach-link").input_value()
    assert dict(parse_qsl(urlsplit(link).query)) == {"sections": "rule,alpha", "controls": "hidden"}
    assert urlsplit(link).path == "/zh/specdec/"
    assert pg.locator("#teach-qr svg.qr").count() == 1
    assert "老师" in pg.locator("h1").inner_text() or "教师" in pg.locator("h1").inner_text()
    ctx.close()


def test_a_class_counts_students_choices_live(browser, live_url):
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    teacher = ctx.new_page()
    load(teacher, f"{live_url}/en/specdec/teach/?sections=tape,exact")
    with ctx.expect_page() as opened:
        teacher.click("[data-act=open-class]")
    board = opened.value
    board.wait_for_selector("html[data-ready='1']", state="attached", timeout=30_000)
    code = board.locator("main").get_attribute("data-code")
    assert "key=" in board.url and teacher.locator(".teach-class__status").get_attribute("data-code") == code
    board.wait_for_function("() => +document.querySelector('main').dataset.polled >= 1", timeout=15_000)
    student_link = board.locator("#class-link").get_attribute("href")
    assert f"class={code}" in student_link
    # Two students (two tabs) choose; one of them changes her mind: still one answer from her tab.
    for choice in ("2", "1"):
        s = ctx.new_page()
        load(s, student_link)
        assert code in s.locator(".class-banner").inner_text()
        s.locator('#tape input[name="predict-tape"][value="%s"]' % choice).check()
        s.wait_for_selector("#tape .predict__class:has-text('Counted for the class.')", timeout=15_000)
        if choice == "1":
            s.locator('#tape input[name="predict-tape"][value="3"]').check()
            s.wait_for_timeout(500)
        s.close()
    board.wait_for_function("() => document.querySelector('[data-q=tape]').dataset.total === '2'", timeout=15_000)
    n = board.locator("[data-q=tape] [data-n]").all_inner_texts()
    assert n == ["1", "1", "0"]
    assert not board.locator("[data-q=tape] [data-right] .classboard-mark").is_visible()
    board.click("[data-q=tape] [data-act=reveal]")
    assert board.locator("[data-q=tape] [data-right] .classboard-mark").is_visible()
    # Closed: a student's link now says so, in her language.
    board.click("[data-act=close-class]")
    board.wait_for_selector("main[data-closed='1']", state="attached")
    late = ctx.new_page()
    load(late, student_link.replace("/en/", "/zh/"))
    late.wait_for_selector(".class-banner--closed", timeout=15_000)
    assert "没有开放" in late.locator(".class-banner").inner_text()
    ctx.close()


@pytest.mark.parametrize("path", ["/en/specdec/teach/", "/zh/specdec/teach/?sections=tape,exact",
                                  "/zh/specdec/?view=projector&sections=tape,idle", "/en/specdec/?controls=locked&sections=rule",
                                  "/embed/en/specdec/tape/?controls=hidden"])
def test_no_serious_axe_violations_on_the_teachers_pages(page, live_url, path):
    from tests.browser.test_a11y import AXE, open_ready, serious_violations
    if not AXE.exists():
        pytest.skip("axe-core is not installed: run `npm ci` (install.sh does)")
    open_ready(page, live_url + path)
    found = serious_violations(page, AXE.read_text())
    assert not found, "\n".join(found)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_class_screen_has_no_serious_axe_violations(page, live_url, lang):
    from tests.browser.test_a11y import AXE, open_ready, serious_violations
    if not AXE.exists():
        pytest.skip("axe-core is not installed: run `npm ci` (install.sh does)")
    made = page.request.post(f"{live_url}/api/class").json()
    open_ready(page, f"{live_url}/{lang}/specdec/class/{made['code']}/?sections=tape,alpha#key={made['key']}")
    found = serious_violations(page, AXE.read_text())
    assert not found, "\n".join(found)
    page.screenshot(path=f"/tmp/class-{lang}.png", full_page=True)


def test_paused_lesson_moves_nothing_until_started(page, live_url):
    load(page, f"{live_url}/en/specdec/?sections=onebyone&paused=1")
    states = page.evaluate("() => document.getAnimations().map(a => a.playState)")
    assert states and set(states) == {"paused"}
    # In view, it still waits (off screen it would rest anyway).
    page.locator("#onebyone .rf-figure").scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    assert set(page.evaluate("() => document.getAnimations().map(a => a.playState)")) == {"paused"}
    # The reader starts that interactive: it moves.
    page.locator("#onebyone .rf-figure svg").click(position={"x": 5, "y": 5})
    page.wait_for_function("() => document.getAnimations().some(a => a.playState === 'running')")
    # Without paused=1 it moves from the start.
    load(page, f"{live_url}/en/specdec/?sections=onebyone")
    page.locator("#onebyone .rf-figure").scroll_into_view_if_needed()
    page.wait_for_function("() => document.getAnimations().some(a => a.playState === 'running')")
