"""Sections 1, 2, 8, 9 and 11 in headless Chromium, driving issue 12's controls: the engine
efficiency, a model that does not fit one GPU, curves that end at the memory's limit with the
published measurements drawn beside them, the lanes' "+ N more" label sliding both ways with the
step time, and the best γ at the search's edges. No console errors, nothing from another origin."""
import re

import pytest

from tests.browser.util import open_fold

pytestmark = pytest.mark.browser


def _ready(page, url, widget=None):
    page.goto(url)
    page.wait_for_selector("html[data-ready='1']", state="attached", timeout=20000)
    if widget:
        page.wait_for_selector(f"[data-widget={widget}][data-state=mounted]", state="attached", timeout=20000)


def _visible_text(page, sel):
    return page.locator(f"{sel} >> visible=true").first.inner_text()


def _type(page, sel, value):
    """Type into a slider's number box and commit it (Enter), as a reader would."""
    box = page.locator(sel)
    box.fill(str(value))
    box.press("Enter")


def _plot(page, name):
    """The traces plotly drew in a chart, once it has drawn (x, y, name, mode, text of each)."""
    page.locator(f'[data-plot="{name}"]').scroll_into_view_if_needed()
    page.wait_for_selector(f'[data-plot="{name}"] .main-svg', timeout=20000)
    return page.evaluate(f"""() => document.querySelector('[data-plot="{name}"]').data.map(
        (t) => ({{x: Array.from(t.x || []), y: Array.from(t.y || []), name: t.name, mode: t.mode,
                  text: t.text || null}}))""")


def _clean(page):
    assert page.console_errors == [] and page.foreign_requests == []


def test_efficiency_buttons_and_box_set_the_state_and_every_speed(page, live_url):
    # Starts at 0.9, not at the default: going back to a page's first state does not re-render
    # its text yet (see test_returning_to_the_first_state_renders_it_again).
    _ready(page, f"{live_url}/en/specdec/?eff=0.9", "onebyone")
    engine = "#onebyone [data-live=readouts] .is-engine"
    assert "90%" in page.locator(engine).inner_text()
    batch_tps = '#batch [data-field="batch.with_cache.tokens_per_s"]'
    # 4,252.26 × 0.9 = 3,827.
    assert _visible_text(page, batch_tps) == "3,827"
    # The engine's efficiency is set in section 1's "Go further" fold.
    open_fold(page, "onebyone-measured")
    page.locator("#onebyone [data-act=eff-measured]").click()
    page.wait_for_function(f"() => /76%/.test(document.querySelector('{engine}').textContent)", timeout=20000)
    assert "eff=0.76" in page.url
    # 208.586 × 0.76 = 158.5 tokens/s; the bars set it beside SGLang's 158.3.
    assert re.search(r"76%.*159 tokens/s", page.locator(engine).inner_text(), re.S)
    assert page.locator("#onebyone .rf-bars tr.is-engine").count() == 1
    # Section 2 follows (4,252.26 × 0.76 = 3,231.7), and section 9's speed-up does not move.
    speedup = '#idle dd [data-field="idle.speedup"]'
    sp_before = page.locator(speedup).first.text_content()
    page.locator("#batch").scroll_into_view_if_needed()
    page.wait_for_function(f"() => document.querySelector('{batch_tps}').textContent === '3,232'", timeout=20000)
    page.locator("#idle").scroll_into_view_if_needed()
    page.wait_for_function("() => document.querySelector('#idle [data-field=\"idle.tokens_per_s_plain\"]').textContent !== '4,252'")
    assert page.locator(speedup).first.text_content() == sp_before
    # The typed box takes any share; the ideal button takes the parameter out of the URL.
    page.locator("#onebyone").scroll_into_view_if_needed()
    _type(page, "#obo-eff-typed", "0.5")
    page.wait_for_function("() => location.search.includes('eff=0.5')")
    page.wait_for_function("() => /104 tokens\\/s/.test(document.querySelector('#onebyone [data-live=readouts] .is-engine')?.textContent || '')")
    page.locator("#onebyone [data-act=eff-ideal]").click()
    page.wait_for_function("() => !location.search.includes('eff=')")
    page.wait_for_function(f"() => !document.querySelector('{engine}')")
    _clean(page)


def test_a_model_too_big_for_one_gpu_is_split_and_its_curves_end(page, live_url):
    _ready(page, f"{live_url}/en/specdec/", "onebyone")
    page.select_option("#obo-model", "llama-3.1-70b")
    prose = "#onebyone [data-live=prose]"
    page.wait_for_function(f"() => /split over 2 of them/.test(document.querySelector('{prose}').textContent)", timeout=20000)
    text = page.locator(prose).inner_text()
    assert "more than the 80 GB an NVIDIA H100 SXM holds" in text and "47 tokens a second" in text
    assert "24 tokens a second" not in text
    # Section 2: split over the two GPUs, the 64 streams of 4,096 tokens do not fit; the line
    # with caches ends at 14 streams, where the limit is marked.
    page.locator("#batch").scroll_into_view_if_needed()
    page.wait_for_selector("#batch .rf-limit-note", timeout=20000)
    assert "At most 14 streams of this length fit" in page.locator("#batch .rf-limit-note").inner_text().replace("\n", " ")
    traces = _plot(page, "batch")
    with_cache = next(t for t in traces if t["name"] == "With each stream's cache")
    assert with_cache["x"][-1] == 14
    assert page.locator('[data-plot="batch"] .annotation-text', has_text="Memory limit: 14").count() == 1
    # Measured on the 8B: no point is drawn for the 70B.
    assert not any(t["mode"] == "markers+text" for t in traces)
    _clean(page)


def test_curves_end_at_the_limit_with_the_measurements_beside_them(page, live_url):
    # The 8B on an H100 at 4,096 tokens a stream: 119 streams fit.
    _ready(page, f"{live_url}/embed/en/specdec/batch/", "batch")
    traces = _plot(page, "batch")
    names = {t["name"]: t for t in traces}
    assert names["With each stream's cache"]["x"][-1] == 119
    assert names["Weights only"]["x"][-1] == 1024            # no cache, no limit
    measured = next(t for t in traces if t["mode"] == "markers+text")
    assert measured["x"] == [1] and measured["y"] == [158.34]
    # Lengthening the context moves the end: 131,072 tokens leave room for 3 streams.
    _type(page, "#batch-ctx-typed", "131072")
    page.wait_for_function("""() => { const d = document.querySelector('[data-plot="batch"]').data;
        return d && d[1].x[d[1].x.length - 1] === 3; }""", timeout=20000)
    _ready(page, f"{live_url}/embed/en/specdec/idle/?alpha=0.6", "idle")
    traces = _plot(page, "idle")
    assert all(t["x"][-1] == 119 for t in traces[:2])           # plain and speculative
    # Section 9 labels its measured points with annotations, off the curves (issue 24).
    eagle = next(t for t in traces if t["name"] == "SGLang, measured")
    assert eagle["y"] == [244.1, 373.25]
    labels = page.locator('[data-plot="idle"] .annotation-text')
    assert labels.filter(has_text="EAGLE-3").count() == 1 and labels.filter(has_text="EAGLE-2").count() == 1
    open_fold(page, "idle-more")     # the speed-up by context is in the "Go further" fold
    contexts = _plot(page, "idle-contexts")
    ends = {t["name"]: t["x"][-1] for t in contexts if t["mode"] == "lines"}
    # No flat speed-up run out to 1,024 streams where they do not fit.
    assert ends == {"no cache (weights only)": 1024, "1,024 tokens per stream": 476,
                    "4,096 tokens per stream": 119, "32,768 tokens per stream": 14}
    points = next(t for t in contexts if t["name"] == "SGLang, measured")
    assert points["x"] == [1, 1, 64] and [round(y, 2) for y in points["y"]] == [1.54, 2.36, 1.38]
    _clean(page)


def test_more_lanes_label_slides_up_and_down_with_the_step_time(page, live_url):
    # Starts at 5 lanes so that every value below differs from the first state (see
    # test_returning_to_the_first_state_renders_it_again).
    _ready(page, f"{live_url}/embed/en/specdec/reader/?lanes=5", "reader")
    more = "#reader .rf-more"
    step = '#reader dd [data-field="reader.ms_per_step"]'
    assert page.locator(more).count() == 0 and _visible_text(page, step) == "4.79"
    page.locator("#reader-lanes").focus()
    page.keyboard.press("End")                                   # 512 lanes
    page.wait_for_selector(more, timeout=20000)
    assert page.locator(more).is_visible() and page.locator(more).text_content().strip() == "+ 496 more lanes"
    # Past the ridge the step takes longer: 512 / 295.37 × 4.79 = 8.31 ms.
    page.wait_for_function(f"() => document.querySelector('{step}').textContent === '8.31'")
    assert "1.73× the read alone" in page.locator("#reader [data-live=readouts]").inner_text()
    page.keyboard.press("Home")                                  # back to 1 lane
    page.wait_for_function(f"() => !document.querySelector('{more}')", timeout=20000)
    page.wait_for_function(f"() => document.querySelector('{step}').textContent === '4.79'")
    assert page.locator("#reader .rf-lane.is-lit").count() == 1
    _type(page, "#reader-lanes-typed", "17")
    page.wait_for_function(f"() => document.querySelector('{more}')?.textContent.trim() === '+ 1 more lane'", timeout=20000)
    _type(page, "#reader-lanes-typed", "9")
    page.wait_for_function(f"() => !document.querySelector('{more}')", timeout=20000)
    assert page.locator("#reader .rf-lane.is-lit").count() == 9
    _clean(page)


def test_best_gamma_at_the_edges_live(page, live_url):
    _ready(page, f"{live_url}/embed/en/specdec/speedup/?alpha=0.6", "speedup")
    best = "#speedup [data-live=readouts] [data-field='theory.best.edge']"
    _type(page, "#speedup-c-typed", "1")
    page.wait_for_function(f"() => document.querySelector(\"{best}\")?.dataset.case === 'plain'", timeout=20000)
    assert page.locator(best).inner_text() == "plain decoding (γ = 0) is fastest"
    traces = _plot(page, "speedup") if page.locator('[data-plot="speedup"]').count() else None
    if traces is None:   # the section's chart container is .speedup-chart
        page.locator("#speedup .speedup-chart").scroll_into_view_if_needed()
        page.wait_for_selector("#speedup .speedup-chart .main-svg", timeout=20000)
        traces = page.evaluate("() => document.querySelector('#speedup .speedup-chart').data.map((t) => ({mode: t.mode, text: t.text}))")
    # No star at γ = 1 with 0.8×: the label says plain decoding is fastest.
    assert not any(t["mode"] == "markers+text" for t in traces)
    assert any(t["mode"] == "text" and t["text"] == ["plain decoding (γ = 0) is fastest"] for t in traces)
    _type(page, "#speedup-c-typed", "0")
    page.wait_for_function(f"() => document.querySelector(\"{best}\")?.dataset.case === 'rising'", timeout=20000)
    assert page.locator(best).inner_text().startswith("still rising at γ = 16")
    _clean(page)


def test_chinese_section_2_for_a_split_model(page, live_url):
    _ready(page, f"{live_url}/embed/zh/specdec/batch/?model=llama-3.1-70b", "batch")
    note = page.locator("#batch .rf-limit-note").inner_text()
    assert "这些序列放不下" in note and "最多放得下 14 条" in note
    traces = _plot(page, "batch")
    assert traces[1]["x"][-1] == 14
    assert page.locator('[data-plot="batch"] .annotation-text', has_text="显存上限：14").count() == 1
    _clean(page)


def test_returning_to_the_first_state_renders_it_again(page, live_url):
    # sections.js keeps the page's own rendering of its first answers, so coming back to the
    # first state swaps that live text in again ("+ 24 more lanes" went at 9 lanes).
    _ready(page, f"{live_url}/embed/en/specdec/reader/", "reader")
    _type(page, "#reader-lanes-typed", "40")
    page.wait_for_function("() => document.querySelector('#reader .rf-more')?.textContent.trim() === '+ 24 more lanes'",
                           timeout=20000)
    _type(page, "#reader-lanes-typed", "9")
    page.wait_for_function("() => location.search === ''")
    page.wait_for_function("() => !document.querySelector('#reader .rf-more')", timeout=5000)


# Every label of a drawing: rendered size in px, and the pairs whose boxes overlap or that leave
# the drawing.
LABELS = """(svg) => {
  const box = svg.getBoundingClientRect();
  const ts = [...svg.querySelectorAll('text')].filter((t) => t.textContent.trim());
  const rects = ts.map((t) => t.getBoundingClientRect());
  const out = { small: [], outside: [], overlaps: [] };
  ts.forEach((t, i) => {
    const px = parseFloat(getComputedStyle(t).fontSize) * box.width / svg.viewBox.baseVal.width;
    if (px < 11) out.small.push([t.textContent.trim(), px]);
    const r = rects[i];
    if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
      out.outside.push(t.textContent.trim());
    for (let k = i + 1; k < ts.length; k++) {
      const q = rects[k];
      if (r.left < q.right - 1 && q.left < r.right - 1 && r.top < q.bottom - 1 && q.top < r.bottom - 1)
        out.overlaps.push(`${t.textContent.trim()} / ${ts[k].textContent.trim()}`);
    }
  });
  return out;
}"""


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("width", [390, 1280])
def test_step_time_drawing_is_legible(browser, live_url, lang, width):
    ctx = browser.new_context(viewport={"width": width, "height": 844}, reduced_motion="reduce")
    pg = ctx.new_page()
    for lanes in (1, 9, 296, 512):
        pg.goto(f"{live_url}/embed/{lang}/specdec/reader/?model=llama-3.1-70b&lanes={lanes}")
        pg.wait_for_selector("html[data-ready='1']", state="attached", timeout=20000)
        open_fold(pg, "reader-steptime")     # the step-time drawing is in the "Go further" fold
        labels = pg.locator("#reader .rf-stepfig svg").evaluate(LABELS)
        assert labels == {"small": [], "outside": [], "overlaps": []}, (lanes, labels)
    ctx.close()
