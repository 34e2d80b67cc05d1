"""The roofline sections as a reader meets them (issue 12): memory capacity, published
measurements beside the ideal, the engine efficiency, section 11's step time, the best γ at the
search's edges, grammar from live numbers, the bench's parts and the takeaways, in both languages.
Each test fails on a defect the issue names: rendered pages and /api/section answers, no browser."""
from __future__ import annotations

import html
import re

import pytest

from sim import params as P
from sim import published, roofline
from views.sections import answer

DEFAULTS = {n: p.default for n, p in P.PAGE.items()}


def _state(**values):
    return {**DEFAULTS, **values}


def _page(page_html, query="", lang="en"):
    # Rendered once per test process and URL (conftest.page_html): these tests only read the
    # page, and a third of them read it at its defaults.
    return page_html(f"/{lang}/specdec/?{query}" if query else f"/{lang}/specdec/")


def _balanced(fragment: str, start: re.Match) -> str:
    """The inner HTML of the element whose start tag ``start`` matched (nested tags balanced)."""
    tag, depth, pos = start.group(1), 1, start.end()
    for m in re.finditer(r"<(/?)%s\b[^>]*>" % tag, fragment[pos:]):
        depth += -1 if m.group(1) else 1
        if depth == 0:
            return fragment[pos:pos + m.start()]
    raise AssertionError("unclosed element")


def _section(page: str, anchor: str) -> str:
    """One section's HTML (its answers' JSON left out, so only what a reader sees is searched)."""
    inner = _balanced(page, re.search(r'<(section)\b[^>]*\bid="%s"[^>]*>' % anchor, page))
    return re.sub(r'<script type="application/json".*?</script>', "", inner, flags=re.S)


def _text(fragment: str) -> str:
    """What a reader reads: inline tags vanish, block and cell boundaries become spaces."""
    t = re.sub(r"</?(?:p|div|td|th|tr|dt|dd|li|caption|figcaption|text|br|table|thead|tbody)\b[^>]*>", " ", fragment)
    t = html.unescape(re.sub(r"<[^>]+>", "", t))
    return re.sub(r"\s+", " ", t)


def _live(fragment: str, name: str) -> str:
    """The inner HTML of a section's first [data-live=name] block."""
    start = re.search(r'<(\w+)[^>]*\bdata-live="%s"[^>]*>' % re.escape(name), fragment)
    assert start, name
    return _balanced(fragment, start)


def _reads(section: str) -> str:
    """A section's prose as a reader reads it: its first point and, after it, the rest of its
    prose in its "Go further" fold (issue 22), where a section has one."""
    more = _text(_live(section, "more")) if 'data-live="more"' in section else ""
    return _text(_live(section, "prose")) + " " + more


def _fields(fragment: str, path: str) -> list[str]:
    return [html.unescape(t) for t in re.findall(r'data-field="%s"[^>]*>([^<]*)<' % re.escape(path), fragment)]


def _api(client, unit, query="", lang="en"):
    r = client.get(f"/api/section/{unit}?lang={lang}&{query}")
    assert r.status_code == 200, r.get_data(as_text=True)
    return r.get_json()


# ---- memory capacity ----------------------------------------------------------------------------

def test_every_gpu_preset_shows_its_memory(page_html):
    sec = _section(_page(page_html), "onebyone")
    for i, g in enumerate(roofline.GPUS.values()):
        # The datasheet's GB: 80, 80, 141, 180, 192.
        assert _fields(sec, f"presets.{i}.memory_gb") == [f"{g.memory / 1e9:.0f}"]
    # The GPU pickers name each preset with its memory, everywhere they appear.
    page = _page(page_html)
    assert page.count(">NVIDIA H200 SXM · 141 GB<") >= 3 and ">AMD Instinct MI300X · 192 GB<" in page
    zh = _page(page_html, lang="zh")
    # (In Chinese a number keeps its unit on the line: a no-break space, views/format.py.)
    assert ">NVIDIA H200 SXM · 显存 141\u00a0GB<" in zh


@pytest.mark.parametrize("lang, overflow, split", [
    ("en", "more than the 80 GB an NVIDIA H100 SXM holds", "split over 2 of them"),
    ("zh", "超过了一块 NVIDIA H100 SXM 的 80 GB 显存", "拆到 2 块上")])
def test_70b_on_one_h100_no_longer_reads_as_if_it_fit(page_html, lang, overflow, split):
    sec = _section(_page(page_html, "model=llama-3.1-70b", lang), "onebyone")
    prose = _text(_live(sec, "prose"))
    # 141.1 GB of weights in an 80 GB GPU: the page says so, and quotes the speed of the two GPUs
    # the weights need (141.1e9 / (2 × 3.35e12) = 21.06 ms, 47.5 tokens/s), never 24 tokens/s.
    assert overflow in prose and split in prose
    assert "24 tokens a second" not in prose and "每秒 24 个词元" not in prose
    assert _fields(sec, "onebyone.ideal_tokens_per_s")[0] == "47"
    assert "21.06" in _fields(sec, "onebyone.ideal_ms_per_token")
    # What the split assumes, in the reader's language.
    assert ("tensor parallelism" in prose) if lang == "en" else ("张量并行" in prose)
    # The presets' table: H100, A100 and H200 need 2 GPUs for it, B200 and MI300X hold it alone.
    presets = _text(_live(sec, "presets"))
    assert presets.count("need 2 GPUs" if lang == "en" else "需要 2 块") == 3


def test_streams_that_do_not_fit_are_said_to(page_html):
    # 64 streams of 4,096 tokens of the 70B: 141.1 + 85.9 = 227.0 GB; on the two H100s its weights
    # need (160 GB) at most 18.9e9 // (4,096 × 327,680 B) = 14 fit; four GPUs would hold them.
    sec = _section(_page(page_html, "model=llama-3.1-70b"), "batch")
    prose = _reads(sec)
    assert "these streams do not fit" in prose and "227.0 GB" in prose and "160 GB" in prose
    assert "at most 14 streams fit" in prose and "Split over 4 GPUs by tensor parallelism" in prose
    assert "do not fit in one NVIDIA H100 SXM (80 GB), so this section splits the model over 2" in prose
    readouts = _live(sec, "readouts")
    assert 'class="is-over"' in readouts and "does not fit" in _text(readouts)
    # Beyond what tensor parallelism splits evenly (8 key/value heads): 1,024 streams of 128K
    # tokens of the 8B would need 1,024 × 17.18 GB = 17,608 GB, 221 GPUs of 80 GB.
    prose = _reads(_section(_page(page_html, "batch=1024&ctx=131072"), "batch"))
    assert "They would need 221 GPUs, more than tensor parallelism alone splits this model over" in prose


def test_curves_end_where_the_streams_stop_fitting_without_scripts(page_html):
    page = _page(page_html)
    for anchor in ("batch", "idle"):
        table = _text(_live(_section(page, anchor), "chart_table"))
        # 119 streams of 4,096 tokens fit an H100 beside the 8B's weights: a row at the limit,
        # and the stops beyond it (256, 1,024) do not fit.
        assert "119 (memory full)" in table, anchor
        assert re.search(r"256 .*does not fit.* 1,024 .*does not fit", table), anchor
    # Section 9's speed-up by context: the limit per context, no flat 1.78× run to 1,024 streams.
    contexts = _text(_live(_section(page, "idle"), "contexts_table"))
    assert re.search(r"4,096 .*? 119 ", contexts) and re.search(r"32,768 .*? 14 ", contexts)
    a = answer("idle", "en", _state(alpha=0.6))
    assert a["idle"]["curve"]["n_fit"] == 13 and a["idle"]["curve"]["max_batch"] == 119


def test_leave_out_names_only_what_is_still_left_out(page_html):
    page = _page(page_html)
    i = page.index('id="leaveout"')
    leave = _text(page[i:page.index("</section>", i)])
    assert "Memory is checked" in leave
    assert "draft model's own weights and cache" in leave and "pipeline parallelism" in leave


# ---- beside reality -----------------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["en", "zh"])
def test_published_measurements_beside_the_ideal_without_scripts(page_html, lang):
    page = _page(page_html, lang=lang)
    one = _section(page, "onebyone")
    reality = _live(one, "reality")
    # The ideal (208.6) and the three SGLang figures measured on an H100 with Llama 3.1 8B.
    for key, figure in (("sglang-8b-h100", "158.3"), ("sglang-eagle2-8b-h100", "244.1"),
                        ("sglang-eagle3-8b-h100", "373.3")):
        assert re.search(r'data-key="%s".*?>%s<' % (key, re.escape(figure)), reality, re.S), key
    assert "208.6" in _fields(reality, "onebyone.ideal_tokens_per_s")
    # Each with its source (a link) and date, in sections 1, 2 and 9.
    for anchor, keys in (("onebyone", 3), ("batch", 1), ("idle", 7)):
        table = re.search(r'<table class="rf-published">.*?</table>', _section(page, anchor), re.S).group(0)
        assert table.count("<tr data-key=") == keys, anchor
        for m in published.MEASUREMENTS:
            if f'data-key="{m.key}"' in table:
                row = table.split(f'data-key="{m.key}"')[1].split("</tr>")[0]
                assert f'href="{m.url}"' in row and f'datetime="{m.date}"' in row, (anchor, m.key)
    # The slow-down under load as its source states it: 1.4× and 1.8× slower.
    idle = _text(_section(page, "idle"))
    assert ("1.4× slower" in idle and "1.8× slower" in idle) if lang == "en" else ("1/1.4" in idle)


def test_engine_efficiency_reaches_every_section_that_reads_it(page_html, app):
    # eff scales every speed of sections 1, 2, 9 and 13 and none of their speed-ups.
    with app.test_request_context("/"):
        ideal = {u: answer(u, "en", _state(alpha=0.6)) for u in ("onebyone", "batch", "idle", "bench")}
        real = {u: answer(u, "en", _state(alpha=0.6, eff=0.76)) for u in ("onebyone", "batch", "idle", "bench")}
    # 208.586 × 0.76 = 158.5 tokens/s, beside SGLang's measured 158.34.
    assert real["onebyone"]["onebyone"]["shown_tokens_per_s"] == pytest.approx(158.525, rel=1e-4)
    assert real["onebyone"]["onebyone"]["ideal_tokens_per_s"] == pytest.approx(208.586, rel=1e-4)
    assert real["batch"]["batch"]["with_cache"]["tokens_per_s"] == pytest.approx(
        0.76 * ideal["batch"]["batch"]["with_cache"]["tokens_per_s"])
    assert real["idle"]["idle"]["tokens_per_s_spec"] == pytest.approx(0.76 * ideal["idle"]["idle"]["tokens_per_s_spec"])
    assert real["idle"]["idle"]["speedup"] == pytest.approx(ideal["idle"]["idle"]["speedup"])
    assert real["bench"]["plain"] == pytest.approx(0.76 * ideal["bench"]["plain"])
    assert real["bench"]["speedup"] == pytest.approx(ideal["bench"]["speedup"])
    # Off by default: the page's figures are the ideal's; set, the page says so.
    assert "An engine at" not in _text(_section(_page(page_html), "onebyone"))
    sec = _section(_page(page_html, "eff=0.76"), "onebyone")
    assert "An engine at 76% of the ideal" in _text(_live(sec, "readouts"))
    assert re.search(r'id="obo-eff"[^>]*value="0.76"', sec)


@pytest.mark.parametrize("lang, words", [
    ("en", ("15.0 GB", "4.48 ms", "223 tokens a second")),
    ("zh", ("15.0 GB", "4.48 毫秒", "每秒可写 223 个词元"))])
def test_frontier_note_reads_one_row_of_the_embedding(page_html, lang, words):
    # 8,030,261,248 × 2 B − (128,256 − 1) × 4,096 × 2 B = 15.010 GB; / 3.35 TB/s = 4.48 ms: 223/s.
    frontier = _text(_live(_section(_page(page_html, "depth=frontier", lang), "onebyone"), "frontier"))
    for w in words:
        assert w in frontier, w
    assert ("keeps the simple count" in frontier) if lang == "en" else ("仍然沿用这个简单估算" in frontier)
    # Llama 3.2 1B ties its output head to the table: nothing to leave out.
    tied = _text(_live(_section(_page(page_html, "depth=frontier&model=llama-3.2-1b"), "onebyone"), "frontier"))
    assert "is exact for Llama 3.2 1B" in tied


# ---- section 11 ---------------------------------------------------------------------------------

def test_more_lanes_label_follows_the_slider_both_ways(client):
    def more(lanes):
        figure = _api(client, "reader", f"lanes={lanes}")["html"]["figure"]
        m = re.search(r'class="rf-svg-small rf-more"[^>]*>(.*?)</text>', figure, re.S)
        return _text(m.group(1)).strip() if m else None
    # Up: 16 are drawn, so 17 adds "+ 1 more lane", 40 "+ 24 more lanes"; back down, it goes.
    assert more(9) is None and more(16) is None
    assert more(17) == "+ 1 more lane"
    assert more(40) == "+ 24 more lanes" and more(512) == "+ 496 more lanes"
    assert more(12) is None
    figure = _api(client, "reader", "lanes=12")["html"]["figure"]
    assert figure.count('class="rf-lane is-lit"') == 12


def test_reader_shows_the_step_time_and_no_busy_only_100(page_html):
    # 9 lanes: the step is the read, 16.06e9 / 3.35e12 = 4.79 ms; 512 lanes past the ridge
    # (295.37): 512 / 295.37 × 4.79 = 8.31 ms, 1.73 times as long.
    flat = _section(_page(page_html, "lanes=9"), "reader")
    assert "4.79" in _fields(_live(flat, "readouts"), "reader.ms_per_step")
    assert "no longer than the read alone" in _reads(flat)
    steep = _section(_page(page_html, "lanes=512"), "reader")
    prose = _reads(steep)
    assert "busy only" not in prose and "can no longer keep up" in prose
    assert "8.31 ms" in prose and "1.73 times the 4.79 ms" in prose
    # The step-time drawing marks the lanes lit and its time.
    assert "512 lanes: 8.31 ms" in _text(_live(steep, "steptime"))
    zh = _reads(_section(_page(page_html, "lanes=512", "zh"), "reader"))
    assert "只有 100" not in zh and "8.31 毫秒" in zh


# ---- the best γ at the search's edges -----------------------------------------------------------

@pytest.mark.parametrize("lang, rising, plain", [
    ("en", "still rising at γ = 16", "plain decoding (γ = 0) is fastest"),
    ("zh", "到 γ = 16 仍在上升", "普通解码（γ = 0）最快")])
def test_best_gamma_at_the_edges(page_html, lang, rising, plain):
    # c = 0: the speed-up (1 − α^(γ+1)) / (1 − α) grows with every γ, so 16 is only where the
    # search stops. c = 1: at γ = 1 the cycle costs 2 target runs for 1.6 tokens: 0.8 < 1.
    for anchor, query in (("speedup", "c=0&alpha=0.9"), ("idle", "c=0&alpha=0.9&batch=1")):
        sec = _text(_section(_page(page_html, query, lang), anchor))
        assert rising in sec, anchor
        assert "best is γ = 16" not in sec and "Best γ16" not in sec.replace(" ", "")
    for anchor in ("speedup", "idle"):
        sec = _text(_section(_page(page_html, "c=1&alpha=0.6", lang), anchor))
        assert plain in sec, anchor
        assert "γ = 1 (0.80×)" not in sec and "best is γ = 1" not in sec


# ---- grammar from live numbers ------------------------------------------------------------------

def test_no_plural_of_one_and_no_streams_of_zero_tokens(page_html):
    page = _page(page_html, "batch=1&ctx=0&lanes=1&gamma=1&c=1&alpha=0.3&depth=frontier")
    text = " ".join(_text(_section(page, a)) for a in ("onebyone", "batch", "idle", "reader"))
    for wrong in ("1 streams", "0 tokens", "1 lanes", "1 guesses", "a batch of 1:", "from a batch of 1 "):
        assert wrong not in text, wrong
    assert "a batch of 1 stream with no cache yet" in text
    assert "γ = 1 guess a pass" in text and "1 lane lit" in text
    assert "it does not pay even for one stream" in text
    # One stream of 4,096 tokens: "adds", singular.
    text = _text(_section(_page(page_html, "batch=1&ctx=4096"), "batch"))
    assert "1 stream of 4,096 tokens adds" in text


# ---- section 8 ties Chen et al. to section 1's ceiling -------------------------------------------

def test_chen_beat_the_single_stream_ceiling(page_html):
    # 14.1 ms a token: 70.9 tokens/s; × 2.46 = 174.5. Section 1's ceiling for the page's model
    # and GPU follows them: 209 for the 8B on an H100, 47 for the 70B on two.
    prose = _reads(_section(_page(page_html), "speedup"))
    assert "at most 71 tokens a second" in prose and "that is 174" in prose
    assert "section 1's ceiling for Llama 3.1 8B on one NVIDIA H100 SXM is 209 tokens a second" in prose
    prose = _reads(_section(_page(page_html, "model=llama-3.1-70b"), "speedup"))
    assert "Llama 3.1 70B on 2 × NVIDIA H100 SXM is 47 tokens a second" in prose


# ---- the bench's parts and the takeaways ---------------------------------------------------------

@pytest.mark.parametrize("lang, parts", [
    ("en", {"onebyone": ("big drum", "pin"), "batch": ("lane of the reader", "cache cabinet"),
            "reader": ("reader beneath the big drum", "small mill")}),
    ("zh", {"onebyone": ("大滚筒", "销钉"), "batch": ("读取器", "缓存柜"), "reader": ("读取器", "小磨坊")})])
def test_each_section_introduces_its_parts_of_the_bench(page_html, lang, parts):
    page = _page(page_html, lang=lang)
    for anchor, words in parts.items():
        prose = _reads(_section(page, anchor))
        for w in words:
            assert w in prose, (anchor, w)


def test_takeaways_follow_the_answer(page_html, client, app):
    page = _page(page_html, "lanes=40")
    with app.test_request_context("/"):
        st = _state(lanes=40)
        obo, bat, rd = (answer(u, "en", st) for u in ("onebyone", "batch", "reader"))
    takeaways = {a: _live(_section(page, a), "takeaway") for a in ("onebyone", "batch", "idle", "selfdraft", "reader")}
    assert all(_text(t).strip() for t in takeaways.values())
    assert _fields(takeaways["onebyone"], "onebyone.ideal_ms_per_token") == [f"{obo['onebyone']['ideal_ms_per_token']:.2f}"]
    assert _fields(takeaways["batch"], "batch.max_batch") == [str(bat["batch"]["max_batch"])] == ["119"]
    assert _fields(takeaways["reader"], "reader.lanes") == ["40"]
    assert "Llama 3.1 8B · 16.1 GB of weights · at least 4.79 ms a token" in _text(takeaways["onebyone"])
    # And the API renders the same block for a new state.
    html_ = _api(client, "reader", "lanes=512")["html"]["takeaway"]
    assert "the arithmetic sets the pace" in _text(html_)


def test_reader_step_time_of_a_split_model_matches_section_1(page_html):
    # The 70B's single lane on the two H100s its weights need: 141.1e9 / 6.7e12 = 21.06 ms, the
    # time section 1 quotes (one 80 GB H100 cannot hold it, so its 42.12 ms is not shown).
    sec = _section(_page(page_html, "model=llama-3.1-70b&lanes=1"), "reader")
    readouts = _live(sec, "readouts")
    assert _fields(readouts, "reader.ms_per_step") == ["21.06"] and "split over 2 GPUs" in _text(readouts)
    assert _fields(_section(_page(page_html, "model=llama-3.1-70b"), "onebyone"), "onebyone.ideal_ms_per_token")[0] == "21.1"
