"""The app frame with Flask's test client: routes, sections, embeds, 404s, headers, API errors."""
import random
import re
from decimal import ROUND_HALF_UP, Decimal

import pytest

from views.sections import ANCHORS, SECTIONS

LANGS = ("en", "zh")


def csp(resp) -> dict:
    out = {}
    for part in resp.headers["Content-Security-Policy"].split(";"):
        name, *vals = part.split()
        out[name] = vals
    return out


# ---- redirects --------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/", "/specdec/"])
@pytest.mark.parametrize("accept,lang", [("zh-CN,zh;q=0.9,en;q=0.5", "zh"), ("en-GB", "en"),
                                         ("fr-FR", "en"), (None, "en"), ("zh-TW", "zh")])
def test_root_redirects_by_accept_language(client, path, accept, lang):
    headers = {"Accept-Language": accept} if accept else {}
    r = client.get(path, headers=headers)
    assert r.status_code == 302
    assert r.headers["Location"].endswith(f"/{lang}/specdec/")


# ---- the page -------------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_page_has_every_section_in_order(client, lang):
    r = client.get(f"/{lang}/specdec/")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    found = re.findall(r'<section id="([a-z]+)" class="plate-section" data-num="(\d+)"', html)
    assert found == [(s.anchor, str(s.num)) for s in SECTIONS]
    assert len(found) >= 13
    # Each section is the wrapper plus its partial: the partial's <h2> must be inside.
    for anchor in ANCHORS:
        body = html.split(f'<section id="{anchor}"', 1)[1].split("</section>", 1)[0]
        assert "<h2" in body, f"section {anchor} has no heading"


@pytest.mark.parametrize("lang", LANGS)
def test_page_frame(page_html, lang):
    html = page_html(f"/{lang}/specdec/")
    want_lang = "zh-CN" if lang == "zh" else "en"
    colon = '"："' if lang == "zh" else '": "'
    assert f"<html lang=\"{want_lang}\" data-lang=\"{lang}\" style='--colon: {colon}'>" in html
    for landmark in ('<header class="plate-header" role="banner">', '<main id="main"',
                     '<nav class="toc"', 'role="contentinfo"'):
        assert landmark in html
    # the table of contents links every section
    for anchor in ANCHORS:
        assert f'href="#{anchor}"' in html
    # back matter
    for bid in ("leaveout", "misconception", "faq", "sources", "data", "cite"):
        assert f'id="{bid}"' in html
    assert "https://www.gutenberg.org/ebooks/11" in html
    assert "https://arxiv.org/abs/2211.17192" in html
    # scripts only from our origin, as modules/JSON; no inline handlers
    assert not re.search(r"\son[a-z]+=", html)
    for tag in re.findall(r"<script[^>]*>", html):
        assert 'type="application/json"' in tag or 'src="/static/' in tag, tag
    assert "http://" not in re.sub(r'href="https?://[^"]+"', "", html).replace(
        "http://localhost", "")  # no foreign resources, only outbound links


def test_language_switch_keeps_query(page_html):
    html = page_html("/en/specdec/?gamma=6&draft=unigram")
    m = re.search(r'id="lang-switch"[^>]*href="([^"]+)"', html, re.S)
    assert m
    href = m.group(1).replace("&amp;", "&")
    assert href.startswith("/zh/specdec/?")
    assert "gamma=6" in href and "draft=unigram" in href


def test_faq_links_point_at_sections(page_html):
    html = page_html("/en/specdec/")
    faq = html.split('id="faq"', 1)[1].split("</section>", 1)[0]
    targets = set(re.findall(r'href="#([a-z]+)"', faq))
    assert targets and targets <= set(ANCHORS)


def test_bad_page_params_show_defaults_and_a_notice(client):
    r = client.get("/en/specdec/?gamma=99&seed=abc&draft=trigram&unknown=1")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert 'class="notice"' in html
    assert "<code>gamma</code>" in html and "<code>seed</code>" in html
    assert "<code>draft</code>" not in html and "<code>unknown</code>" not in html
    state = re.search(r'<script type="application/json" id="state">(.*?)</script>', html).group(1)
    assert '"gamma": 4' in state and '"draft": "trigram"' in state


def test_good_page_has_no_notice(page_html):
    html = page_html("/en/specdec/?gamma=2&greedy=1")
    assert 'class="notice"' not in html
    assert '"greedy": true' in html


@pytest.mark.parametrize("path", ["/fr/specdec/", "/EN/specdec/", "/en/specdec/nope",
                                  "/embed/en/specdec/nope/", "/embed/de/specdec/",
                                  "/embed/en/specdec/tape/extra/", "/nothing"])
def test_404_is_a_page(client, path):
    r = client.get(path)
    assert r.status_code == 404
    assert r.mimetype == "text/html"
    assert "Traceback" not in r.get_data(as_text=True)


# ---- embeds ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_whole_embed_has_sections_without_chrome(client, lang):
    r = client.get(f"/embed/{lang}/specdec/")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert html.count('class="plate-section"') == len(SECTIONS)
    assert 'class="plate-header"' not in html and 'class="toc"' not in html
    # No header chrome, only the small language switch in the credit line (issue 5: every embed).
    assert html.count('id="lang-switch"') == 1 and "lang-switch--embed" in html


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("anchor", ANCHORS)
def test_section_embed(client, lang, anchor):
    r = client.get(f"/embed/{lang}/specdec/{anchor}/")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert f'<div id="{anchor}" class="plate-section"' in html
    assert "data-widget=" in html, f"{anchor}: the embed has no widget"
    # one section only
    assert html.count('class="plate-section"') == 1


def _widget_html(html: str, anchor: str) -> str:
    """The markup of the element carrying data-widget="<anchor>", through its closing tag."""
    from html.parser import HTMLParser

    class Cut(HTMLParser):
        def __init__(self):
            super().__init__(convert_charrefs=False)
            self.depth, self.start, self.end = 0, None, None

        def handle_starttag(self, tag, attrs):
            if self.start is None and ("data-widget", anchor) in attrs:
                self.start, self.depth = self.getpos(), 1
            elif self.start is not None and self.end is None and tag not in VOID:
                self.depth += 1

        def handle_endtag(self, tag):
            if self.start is not None and self.end is None and tag not in VOID:
                self.depth -= 1
                if self.depth == 0:
                    self.end = self.getpos()

    VOID = {"br", "img", "input", "meta", "link", "hr", "source", "wbr", "col", "area", "path",
            "rect", "line", "circle", "stop", "use", "polygon", "polyline", "ellipse"}
    p = Cut()
    p.feed(html)
    assert p.start and p.end, f"no element with data-widget={anchor!r}"
    lines = html.splitlines(keepends=True)
    offset = lambda pos: sum(len(x) for x in lines[:pos[0] - 1]) + pos[1]  # noqa: E731
    return html[offset(p.start):offset(p.end)]


@pytest.mark.parametrize("anchor", ANCHORS)
def test_section_embed_shows_the_same_numbers_as_the_page(client, page_html, anchor):
    # A one-section embed computes only the numbers its section needs (views.plate.NEEDS); what it
    # draws must still be exactly what the page draws for the same URL state. (The page is
    # rendered once for every anchor: conftest.page_html.)
    query = "?seed=5&gamma=3&batch=128"
    page = page_html(f"/en/specdec/{query}")
    embed = client.get(f"/embed/en/specdec/{anchor}/{query}").get_data(as_text=True)
    # Links legitimately differ (an embed's links lead out to the page, in the top frame).
    links = re.compile(r'\s(href="[^"]*"|target="_top"|rel="noopener")')
    assert (_without_fold_prose(links.sub("", _widget_html(embed, anchor)))
            == _without_fold_prose(links.sub("", _widget_html(page, anchor))))


def _without_fold_prose(html: str) -> str:
    """The widget's HTML less the section's prose inside its "Go further" fold: an embed shows no
    prose, so its fold holds only the widget's part."""
    from bs4 import BeautifulSoup
    soup = BeautifulSoup(html, "html.parser")
    for el in soup.select(".further__prose"):
        el.decompose()
    return re.sub(r">\s+<", "><", str(soup))


def test_embed_dialog_links(page_html):
    html = page_html("/en/specdec/?gamma=3")
    links = re.findall(r'class="embed-link[^"]*" data-widget="embed"[^>]*href="([^"]+)"', html, re.S)
    # one per section plus one for the whole plate; each carries γ only if its section reads it
    assert len(links) == len(SECTIONS) + 1
    from sim.params import reads
    for link in links:
        anchor = re.match(r"/embed/en/specdec/(?:([a-z]+)/)?", link).group(1)
        wants = anchor is None or any("gamma" in reads(u) for u in (s.units for s in SECTIONS if s.anchor == anchor).__next__())
        assert ("gamma=3" in link) == wants, link
    assert "/embed/en/specdec/?gamma=3" in links
    assert "/embed/en/specdec/onebyone/" in links  # section 1 reads no γ: a bare link


# ---- headers --------------------------------------------------------------------------------------

def test_page_headers_forbid_framing(client):
    r = client.get("/en/specdec/")
    c = csp(r)
    assert c["frame-ancestors"] == ["'self'"]
    assert c["script-src"] == ["'self'"]
    assert r.headers["X-Frame-Options"] == "SAMEORIGIN"
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.headers["Referrer-Policy"]


@pytest.mark.parametrize("path", ["/embed/en/specdec/", "/embed/zh/specdec/rule/"])
def test_embed_headers_allow_any_frame(client, path):
    r = client.get(path)
    assert csp(r)["frame-ancestors"] == ["*"]
    assert csp(r)["script-src"] == ["'self'"]
    assert "X-Frame-Options" not in r.headers


def test_no_other_origin_in_csp(client):
    for path in ("/en/specdec/", "/embed/en/specdec/", "/api/dist"):
        policy = client.get(path).headers["Content-Security-Policy"]
        assert "http" not in policy and "unsafe-eval" not in policy


def test_plotly_served_locally_with_long_cache(client):
    r = client.get("/vendor/plotly.min.js")
    assert r.status_code == 200
    assert r.mimetype in ("text/javascript", "application/javascript")
    assert "max-age=31536000" in r.headers["Cache-Control"]
    assert r.headers.get("ETag")
    assert b"plotly" in r.data[:2000].lower()
    r2 = client.get("/vendor/plotly.min.js", headers={"If-None-Match": r.headers["ETag"]})
    assert r2.status_code == 304


def test_plotly_comes_with_its_compile_hint_once(client, tmp_path):
    # V8 compiles every function of plotly.js while it streams the file in (serving/vendor.py),
    # instead of on the main thread: the hint must be the file's first line, and only once, also
    # where a built package's copy already carries it.
    from serving import vendor
    hint = vendor.HINTS["plotly.min.js"]
    body = client.get("/vendor/plotly.min.js").data
    assert body.startswith(hint + b"/**") and body.count(hint) == 1
    (tmp_path / vendor.VENDOR_DIR).mkdir()
    (tmp_path / vendor.VENDOR_DIR / "plotly.min.js").write_bytes(body)
    assert vendor.read("plotly.min.js", tmp_path) == body
    assert vendor.HINTS.keys() <= set(vendor.NAMES)


def test_every_vendored_file_is_served_and_nothing_else_under_node_modules(client):
    from serving import vendor
    for name in vendor.NAMES:
        r = client.get(f"/vendor/{name}")
        assert r.status_code == 200 and r.mimetype == vendor.mimetype(name), name
    for name in ("package.json", "axe-core", "..%2Fpackage.json", "plotly-basic.min.js"):
        assert client.get(f"/vendor/{name}").status_code == 404, name


def test_the_plotly_bundle_draws_every_trace_type_the_widgets_use():
    # plotly.js's basic bundle registers scatter, bar and pie only: a widget asking for another
    # trace type (a heatmap, say) would draw nothing.
    import re
    from pathlib import Path
    from serving import vendor
    root = Path(__file__).resolve().parents[1]
    bundle = vendor.FILES["plotly.min.js"]
    assert "basic" in bundle
    used = set()
    for js in (root / "static" / "js").rglob("*.js"):
        used |= set(re.findall(r'\{\s*type:\s*"(\w+)",\s*(?:mode|x):', js.read_text(encoding="utf-8")))
    assert used and used <= {"scatter", "bar", "pie"}, used


def test_static_main_js_served(client):
    r = client.get("/static/js/main.js")
    assert r.status_code == 200 and b"mount" in r.data


# ---- filters ---------------------------------------------------------------------------------------

def test_num_and_pct_filters_are_locale_aware(app):
    with app.test_request_context("/en/specdec/"):
        app.preprocess_request()
        tpl = app.jinja_env.from_string("{{ 13350.4|num(0) }} {{ 0.997|pct(1) }} {{ 4.8|num(2) }} {{ none|num(1) }}")
        assert tpl.render() == "13,350 99.7% 4.80 –"


def _render_compact(app, lang, values):
    with app.test_request_context(f"/{lang}/specdec/"):
        app.preprocess_request()
        tpl = app.jinja_env.from_string("{% for v in values %}{{ v|compact }}|{% endfor %}")
        return tpl.render(values=values).split("|")[:-1]


def test_compact_filter_writes_counts_as_each_language_reads_them(app):
    values = [8030261248, 13350.4, 99_960_000, 9999, 1.5e12, -13350, 10_000, None]
    # English keeps every digit; Chinese counts in 万/亿/万亿 from 1万 on, three significant
    # digits, the unit chosen after rounding (99,960,000 is 1亿, not 9996万), and groups no digits
    # below 1万 (9999: GLOSSARY.md).
    assert _render_compact(app, "en", values) == [
        "8,030,261,248", "13,350", "99,960,000", "9,999", "1,500,000,000,000", "-13,350", "10,000", "–"]
    assert _render_compact(app, "zh", values) == [
        "80.3亿", "1.34万", "1亿", "9999", "1.5万亿", "-1.34万", "1万", "–"]
    # Over many magnitudes: the Chinese text means the number to three significant digits (half
    # away from zero, as Intl in the scripts rounds) and English means it to the unit.
    rng = random.Random(7)
    many = [rng.uniform(1, 10) * 10 ** rng.randint(4, 15) for _ in range(400)] + [rng.randint(10**4, 10**13) for _ in range(400)]
    units = {"万": 10**4, "亿": 10**8, "万亿": 10**12}
    for value, zh, en in zip(many, _render_compact(app, "zh", many), _render_compact(app, "en", many)):
        m = re.fullmatch(r"(\d+(?:\.\d+)?)(万亿|亿|万)", zh)
        assert m, (value, zh)
        digits = m.group(1).replace(".", "").lstrip("0").rstrip("0")
        assert len(digits) <= 3, (value, zh)
        exact = Decimal(str(value))
        want = exact.quantize(Decimal(1).scaleb(exact.adjusted() - 2), rounding=ROUND_HALF_UP)
        assert Decimal(m.group(1)) * units[m.group(2)] == want, (value, zh)
        # The largest unit that fits: 1.23亿, never 12300万.
        assert Decimal(m.group(1)) < 10_000, (value, zh)
        # to the unit, half away from zero as Intl rounds
        assert int(en.replace(",", "")) == int(Decimal(str(value)).quantize(Decimal(1), rounding=ROUND_HALF_UP)), (value, en)


# ---- API: errors ------------------------------------------------------------------------------------

@pytest.mark.parametrize("query,param", [
    ("top=0", "top"), ("top=101", "top"), ("top=ten", "top"), ("model=fourgram", "model"),
    ("lang=fr", "lang"), ("context=" + "a" * 201, "context"), ("colour=red", "colour"),
])
def test_api_dist_errors_are_json_400_naming_the_param(client, query, param):
    r = client.get(f"/api/dist?{query}")
    assert r.status_code == 400
    assert r.is_json
    err = r.get_json()["error"]
    assert err["param"] == param
    assert err["allowed"] and err["message"]
    assert r.headers["Cache-Control"] == "no-store"


def test_api_error_message_is_localised(client):
    en = client.get("/api/dist?top=0", headers={"Accept-Language": "en"}).get_json()["error"]
    zh = client.get("/api/dist?top=0", headers={"Accept-Language": "zh"}).get_json()["error"]
    assert en["param"] == zh["param"] == "top"
    assert en["allowed"] == "an integer from 1 to 100"
    assert zh["allowed"] == "介于 1 和 100 之间的整数"
    assert zh["message"] == "top 应为介于 1 和 100 之间的整数；0 超出了范围。"
    assert en["message"] == "top must be an integer from 1 to 100; 0 is out of range."
    # the Chinese message is translated (contains CJK characters), the English one is not
    assert any("\u4e00" <= ch <= "\u9fff" for ch in zh["message"] + zh["allowed"])
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in en["message"])


def test_unknown_api_route_is_json_404(client):
    r = client.get("/api/nothing")
    assert r.status_code == 404 and r.is_json
    assert r.get_json()["error"]["status"] == 404


def test_api_wrong_method_is_json_405(client):
    r = client.post("/api/dist")
    assert r.status_code == 405 and r.is_json


# ---- API: /api/dist ----------------------------------------------------------------------------------

def test_api_dist_answer(client):
    r = client.get("/api/dist?lang=en&model=trigram&context=,%20when&top=5")
    assert r.status_code == 200
    body = r.get_json()
    assert body["context"] == [",", "when"]
    assert body["vocab_size"] > 1000
    probs = [p for _tok, p in body["probs"]]
    assert len(probs) == 5
    assert probs == sorted(probs, reverse=True)
    assert 0 < sum(probs) <= 1 + 1e-12
    assert all(isinstance(t, str) for t, _p in body["probs"])


def test_api_dist_unknown_tokens_reported(client):
    body = client.get("/api/dist?context=zzqxv%20the").get_json()
    assert body["unknown"] == ["zzqxv"]


def test_api_dist_chinese(client):
    body = client.get("/api/dist?lang=zh&model=bigram&context=孔乙己&top=3").get_json()
    assert body["context"] == ["孔", "乙", "己"]
    assert len(body["probs"]) == 3


def test_api_dist_draft_that_reads_nothing_ignores_context(client):
    # The unigram reads no context, so any two contexts give the same list.
    a = client.get("/api/dist?model=unigram&context=the").get_json()["probs"]
    b = client.get("/api/dist?model=unigram&context=Alice").get_json()["probs"]
    assert a == b
