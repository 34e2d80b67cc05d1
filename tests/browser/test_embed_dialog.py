"""The Embed dialog (static/js/widgets/embed.js), as a teacher uses it: it previews the embed at the
width chosen for the course page, writes the height the embed takes there into the snippet (so a
site that strips scripts still shows it whole), says which settings the snippet carries in the
reader's language, and can start from the defaults."""
from __future__ import annotations

import html
import re
from urllib.parse import parse_qsl, urlsplit

import pytest
from tests.browser.util import load as _load

pytestmark = pytest.mark.browser

BODY_HEIGHT = """() => { const b = document.body, cs = getComputedStyle(b);
  return Math.ceil(b.getBoundingClientRect().height + parseFloat(cs.marginTop) + parseFloat(cs.marginBottom)); }"""


def open_dialog(page, selector):
    page.locator(selector).click()
    page.locator("dialog.embed-dialog").wait_for(state="visible")
    wait_measured(page)


def wait_measured(page):
    page.wait_for_selector(".embed-dialog__preview[data-measured='1']", state="attached", timeout=60_000)


def snippet(page):
    code = page.locator("#embed-dialog-code").input_value()
    src = html.unescape(re.search(r'<iframe src="([^"]+)"', code).group(1))
    height = int(re.search(r' height="(\d+)"', code).group(1))
    max_width = re.search(r"max-width:(\d+)px", code)
    return {"code": code, "src": src, "query": dict(parse_qsl(urlsplit(src).query)), "height": height,
            "max_width": int(max_width.group(1)) if max_width else None}


def same(a, b):
    """The same page and settings (the embed writes its URL's query in its own order)."""
    ua, ub = urlsplit(a), urlsplit(b)
    return (ua.netloc, ua.path, sorted(parse_qsl(ua.query))) == (ub.netloc, ub.path, sorted(parse_qsl(ub.query)))


def preview_frame(page, src):
    return next(f for f in page.frames if f.parent_frame and same(f.url, src))


def settings(page):
    return page.locator(".embed-dialog__list li").evaluate_all(
        "lis => lis.map(li => [li.dataset.param, li.textContent])")


def own_height(browser, url, width):
    """The embed's height in a frame `width` px wide, measured apart from the dialog: the greatest
    of its height before and after its charts are drawn (a tall window, so every chart draws)."""
    ctx = browser.new_context(viewport={"width": width, "height": 4000})
    page = ctx.new_page()
    _load(page, url)
    page.wait_for_timeout(300)
    before = page.evaluate(BODY_HEIGHT)
    charts = page.locator("[data-lazy-chart]").count()
    if charts:
        page.wait_for_function(f"() => document.querySelectorAll('[data-lazy-chart=drawn]').length === {charts}",
                               timeout=60_000)
        page.wait_for_timeout(1500)
    after = page.evaluate(BODY_HEIGHT)
    ctx.close()
    return max(before, after), charts


def test_dialog_previews_measures_and_names_the_settings(browser, page, live_url):
    _load(page, f"{live_url}/en/specdec/?gamma=5&draft=unigram&batch=256")
    open_dialog(page, "#tape .embed-link")
    s = snippet(page)
    # Only what section 4 reads, where it differs from the defaults; named as the page names them.
    assert s["query"] == {"gamma": "5", "draft": "unigram"}
    assert s["src"].startswith(f"{live_url}/embed/en/specdec/tape/?")
    assert settings(page) == [["gamma", "Guesses per pass, γ: 5"], ["draft", "Draft model: unigram: reads nothing"]]
    assert page.locator(".embed-dialog__carries").inner_text() == "Settings this snippet carries:"
    # The preview is the embed itself, with the same settings, at the chosen width (800 px).
    frame = page.locator(".embed-dialog__preview iframe")
    assert html.unescape(frame.get_attribute("src")) == s["src"]
    assert s["max_width"] == 800 and page.locator("#embed-dialog-width").input_value() == "800"
    inner = preview_frame(page, s["src"])
    assert "Until the first wrong guess" in inner.locator(".embed-title").inner_text()
    assert inner.evaluate("() => innerWidth") == 800
    # The snippet's height is the embed's at that width, measured apart (2% over, to tens of px).
    need, _charts = own_height(browser, s["src"], 800)
    assert need <= s["height"] <= need * 1.03 + 10, (need, s["height"])
    # A phone's width: measured again, taller.
    page.locator("#embed-dialog-width").select_option("390")
    wait_measured(page)
    phone = snippet(page)
    need_phone, _ = own_height(browser, phone["src"], 390)
    assert phone["max_width"] == 390 and need_phone <= phone["height"] <= need_phone * 1.03 + 10
    assert phone["height"] > s["height"]
    # From the defaults: no settings in the snippet or the preview, and the dialog says so.
    page.locator("#embed-dialog-defaults").check()
    wait_measured(page)
    bare = snippet(page)
    assert bare["query"] == {} and settings(page) == []
    assert page.locator(".embed-dialog__carries").inner_text() == "No settings: the frame opens with the defaults."
    assert html.unescape(frame.get_attribute("src")) == bare["src"]
    page.keyboard.press("Escape")
    page.locator("dialog.embed-dialog").wait_for(state="hidden")
    assert frame.get_attribute("src") is None   # the preview stops when the dialog closes
    assert page.console_errors == [] and page.foreign_requests == []


def test_dialog_in_chinese_measures_a_section_with_charts_drawn(browser, page, live_url):
    _load(page, f"{live_url}/zh/specdec/?batch=256&c=0.3&depth=frontier")
    open_dialog(page, "#idle .embed-link")
    s = snippet(page)
    assert s["query"] == {"batch": "256", "c": "0.3", "depth": "frontier"}
    got = dict(settings(page))
    assert got == {"batch": "批大小（序列数）：256", "c": "草稿开销 c：0.3", "depth": "讲解深度：前沿"}, got
    assert page.locator(".embed-dialog__carries").inner_text() == "这段代码带上的设置："
    # Its two charts were drawn in the preview, and the height counts them.
    inner = preview_frame(page, s["src"])
    assert inner.locator("[data-lazy-chart=drawn]").count() == 2
    need, charts = own_height(browser, s["src"], 800)
    assert charts == 2 and need <= s["height"] <= need * 1.03 + 10, (need, s["height"])
    assert "像素" in page.locator(".embed-dialog__height").inner_text()


def test_whole_plate_dialog_carries_every_changed_setting(page, live_url):
    _load(page, f"{live_url}/en/specdec/?gamma=6&rule=keep-draft&lanes=16")
    open_dialog(page, ".embed-link--page")
    s = snippet(page)
    assert s["src"].startswith(f"{live_url}/embed/en/specdec/?")
    assert s["query"] == {"gamma": "6", "rule": "keep-draft", "lanes": "16"}
    assert dict(settings(page)) == {"gamma": "Guesses per pass, γ: 6", "rule": "Rule for passing: wrong: keep every guess",
                                    "lanes": "Lanes lit (positions per read): 16"}
    assert s["height"] > 10_000   # every section, one under another


@pytest.mark.parametrize("lang, width", [("en", 1280), ("zh", 390)])
def test_dialog_is_accessible_and_fits_the_screen(browser, live_url, lang, width):
    from tests.browser.test_a11y import AXE, serious_violations
    if not AXE.exists():
        pytest.skip("axe-core is not installed: run `npm ci` (install.sh does)")
    ctx = browser.new_context(viewport={"width": width, "height": 844})
    page = ctx.new_page()
    _load(page, f"{live_url}/{lang}/specdec/?gamma=3")
    open_dialog(page, "#rule .embed-link")
    found = serious_violations(page, AXE.read_text())
    assert not found, "\n".join(found)
    box = page.locator("dialog.embed-dialog").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= width
    assert page.locator("dialog.embed-dialog").evaluate("d => d.scrollWidth <= d.clientWidth + 1")
    # Focus starts on the snippet, ready to copy; the preview takes no focus.
    assert page.evaluate("document.activeElement.id") == "embed-dialog-code"
    assert page.locator(".embed-dialog__viewport").evaluate("v => v.inert")
    ctx.close()


def test_dialog_says_what_a_section_embed_leaves_out_and_gives_a_fixed_snippet(page, live_url):
    _load(page, f"{live_url}/en/specdec/")
    open_dialog(page, "#exact .embed-link")
    note = page.locator(".embed-dialog__prose")
    assert note.is_visible() and "not the section's prose" in note.inner_text()
    s = snippet(page)
    assert 'allow="fullscreen" allowfullscreen' in s["code"]
    # Without scripts: the same frame, exactly as wide as chosen and as high as measured there.
    for w in ("800", "390"):
        page.locator("#embed-dialog-width").select_option(w)
        wait_measured(page)
        s = snippet(page)
        fixed = page.locator("#embed-dialog-fixed").input_value()
        assert "<script" not in fixed and "allowfullscreen" in fixed
        assert f'width="{w}" height="{s["height"]}"' in fixed
        assert f"width:{w}px;height:{s['height']}px" in fixed
        assert f"{int(w):,} px wide and {s['height']:,} px high" in page.locator(".embed-dialog__fixed-help").inner_text()
    page.keyboard.press("Escape")
    # The whole plate carries its prose: no such note.
    open_dialog(page, ".embed-link--page")
    assert not page.locator(".embed-dialog__prose").is_visible()
    assert page.console_errors == []


@pytest.mark.parametrize("lang, sections", [("en", "Sections shown: {tape}, {exact}"), ("zh", "显示的小节：{tape}、{exact}")])
def test_whole_plate_snippet_carries_how_the_page_is_shown(page, live_url, lang, sections):
    # A lesson's page as the teacher's page links it: two sections, locked, paused, projected,
    # at the Story depth, γ 6. Its whole-plate snippet carries all of it, as that link does.
    lesson = {"gamma": "6", "depth": "story", "sections": "tape,exact", "controls": "locked", "paused": "1", "view": "projector"}
    query = "&".join(f"{k}={v}" for k, v in lesson.items())
    _load(page, f"{live_url}/{lang}/specdec/?{query}")
    # Without scripts the link itself carries it too.
    href = page.locator(".embed-link--page").get_attribute("href")
    assert dict(parse_qsl(urlsplit(href).query)) == lesson
    open_dialog(page, ".embed-link--page")
    s = snippet(page)
    assert urlsplit(s["src"]).path == f"/embed/{lang}/specdec/" and s["query"] == lesson
    nums = {a: f'{int(page.locator(f"#{a}").get_attribute("data-num")):02d}' for a in ("tape", "exact")}
    named = dict(settings(page))
    assert named["sections"] == sections.format(**nums)
    assert named["paused"].endswith("on" if lang == "en" else "开") and named["view"].endswith("on" if lang == "en" else "开")
    # The dialog's own choices are the teacher's: not locked with the sections' settings.
    assert page.locator("#embed-dialog-width").is_enabled()
    assert page.locator("label[for=embed-dialog-width]").evaluate("l => getComputedStyle(l).opacity") == "1"
    # The preview is that lesson: its two sections, locked, in projector view.
    frame = preview_frame(page, s["src"])
    assert frame.locator(".plate-section").evaluate_all("ss => ss.map(s => s.id)") == ["tape", "exact"]
    assert frame.locator("html").get_attribute("data-controls") == "locked"
    assert frame.locator("html").get_attribute("data-view") == "projector"
    # From the defaults: the settings moved go, how the teacher shows the page stays.
    page.locator("#embed-dialog-defaults").check()
    wait_measured(page)
    assert snippet(page)["query"] == {k: v for k, v in lesson.items() if k not in ("gamma", "depth")}
    assert page.console_errors == []
