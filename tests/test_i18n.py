"""The Chinese catalog is complete and the Chinese pages read as Chinese.

Checks, each of which fails on a concrete defect:
- every entry of translations/zh/.../messages.po has a non-empty, non-fuzzy msgstr;
- every msgid the code and templates use (extracted afresh with Babel's API, the same mapping
  and keywords as the committed catalog) is in the zh catalog, and the catalog has no entry the
  code no longer uses (a key in one language only);
- placeholders (%(name)s, {name}) and HTML tags are the same in msgid and msgstr;
- the strings handed to scripts (data-i18n attributes and the page catalog) have the same keys
  in English and Chinese;
- the rendered Chinese page, the whole-plate embed and each one-section embed show no English
  sentence (a run of four or more English words), once tags, scripts, URLs, citations and
  names on the allow-list are set aside;
- / and /specdec/ follow Accept-Language; the language switch keeps the settings;
- API errors come back in Chinese for lang=zh.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from views.sections import ANCHORS

# The Chinese pages that test_i18n, test_glossary and test_depths all read are rendered once per
# test process (conftest.page_html); on one worker, they are rendered once in all.
pytestmark = pytest.mark.xdist_group("zh-pages")

ROOT = Path(__file__).resolve().parents[1]
PO = ROOT / "translations" / "zh" / "LC_MESSAGES" / "messages.po"

# Four English words in a row (letters, apostrophes, hyphens; separated by spaces or light
# punctuation) make a sentence fragment no Chinese reader should meet. Three or fewer are
# allowed: model and product names such as "LLaMA2-Chat", "Witten–Bell", "MT-bench".
ENGLISH_RUN = re.compile(r"[A-Za-z][A-Za-z’'\-]*(?:[ ,;:]+[A-Za-z][A-Za-z’'\-]*){3,}")
# Names that are English by nature and may appear in Chinese text: the title of a source, which a
# Chinese author gives as published (the words around it are Chinese). Adding one is deliberate.
ALLOWED_ENGLISH: set[str] = {"How Speculative Decoding Boosts vLLM Performance by up to"}
URL = re.compile(r"https?://\S+")
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|\{\w+\}")
TAG = re.compile(r"</?[a-zA-Z][^>]*>")


def _catalog():
    with PO.open("rb") as f:
        return read_po(f)


def _ids(message) -> list[str]:
    return list(message.id) if isinstance(message.id, (list, tuple)) else [message.id]


def _strs(message) -> list[str]:
    return list(message.string) if isinstance(message.string, (list, tuple)) else [message.string]


@pytest.fixture(scope="module")
def catalog():
    return _catalog()


@pytest.fixture(scope="module")
def source_ids() -> set[str]:
    """Every msgid the code uses, extracted now with babel.cfg's mapping."""
    with (ROOT / "babel.cfg").open() as f:
        method_map, options_map = parse_mapping_cfg(f)
    keywords = {**DEFAULT_KEYWORDS, "_l": None, "lazy_gettext": None}
    ids = set()
    for _file, _line, msg, _comments, _ctx in extract_from_dir(
            str(ROOT), method_map, options_map, keywords=keywords):
        ids.add(msg if isinstance(msg, str) else msg[0])
    return ids


# ---- the catalog --------------------------------------------------------------------------
def test_every_entry_translated_and_not_fuzzy(catalog):
    bad = [(m.id, "fuzzy" if m.fuzzy else "empty") for m in catalog
           if m.id and (m.fuzzy or not all(s.strip() for s in _strs(m)))]
    assert not bad, f"{len(bad)} zh entries untranslated or fuzzy, e.g. {bad[:3]}"


def test_catalog_matches_the_code(catalog, source_ids):
    in_catalog = {i for m in catalog if m.id for i in _ids(m)[:1]}
    missing = sorted(source_ids - in_catalog)
    assert not missing, ("msgids used by the code but not in the zh catalog (run pybabel "
                         f"extract/update and translate): {missing[:5]}")
    stale = sorted(in_catalog - source_ids)
    assert not stale, f"zh entries no longer used by the code (key in one language only): {stale[:5]}"


def test_placeholders_and_markup_kept(catalog):
    bad = []
    for m in catalog:
        if not m.id:
            continue
        for mid, mstr in zip(_ids(m), _strs(m)):
            if Counter(PLACEHOLDER.findall(mid)) != Counter(PLACEHOLDER.findall(mstr)):
                bad.append(("placeholders", mid[:60], mstr[:60]))
            tags = lambda s: Counter(re.sub(r"\s+", " ", t) for t in TAG.findall(s))  # noqa: E731
            if tags(mid) != tags(mstr):
                bad.append(("markup", mid[:60], mstr[:60]))
    assert not bad, bad[:5]


def test_chinese_entries_are_chinese(catalog):
    """A msgstr copied from its msgid (or left in English) is caught even if not rendered."""
    copied = [m.id for m in catalog if m.id and isinstance(m.id, str)
              and english_runs([PLACEHOLDER.sub("", m.string or "")])]
    assert not copied, copied[:5]
    # Almost every entry contains Chinese; the exceptions are names and symbols like "GPU".
    # Entries of punctuation alone (", " is "、", "%(name)s: %(value)s" joins with "：") are
    # Chinese by their full-width marks. (Plural entries hold a tuple of forms; Chinese has one.)
    chinese = re.compile(r"[\u4e00-\u9fff\u3000-\u303f\uff00-\uffef]")
    without_han = [m.id for m in catalog if m.id and not all(chinese.search(x or "") for x in _strs(m))]
    assert len(without_han) <= 3, without_han


def test_terms_are_consistent(catalog):
    """One name for the method (推测解码); the other common one (投机解码) only ever beside it, as
    the name a reader may know it by, and where a reader looks first (issue 24): the page's
    title, its description, the lede and the Story that first tells the method."""
    text = "\n".join(m.string for m in catalog if m.id and isinstance(m.string, str))
    assert "推测解码" in text
    by_id = {m.id: m.string for m in catalog if m.id and isinstance(m.id, str)}
    with_other = [i for i, s in by_id.items() if "投机解码" in s]
    assert with_other and all("推测解码" in by_id[i] for i in with_other), with_other
    for msgid in ("Speculative decoding · an interactive plate",
                  "An interactive plate: a small model guesses, a large one checks, and the text keeps exactly the large model’s distribution.",
                  "Writing one token at a time leaves a GPU waiting on memory, not on arithmetic. A small model guesses a few tokens, the large one checks them in a single pass, and every token still comes with exactly the large model’s odds."):
        assert "投机解码" in by_id[msgid], msgid
    assert any(i.startswith("Now the teacher gets help") for i in with_other), "the Story of section 3"
    # The Story depth says what a 词元 is, and gives "token", in section 1's story.
    story = next(s for i, s in by_id.items() if i.startswith("A large language model writes text one token"))
    assert "词元" in story and "token" in story and "汉字" in story
    for wrong in ("令牌", "标记化", "草案模型"):  # other renderings of token / draft we did not choose
        assert wrong not in text, wrong


# ---- rendered pages -----------------------------------------------------------------------
class _Reader(HTMLParser):
    """Collects text a reader sees or hears: text nodes, labelling attributes and the strings
    handed to scripts. Skips scripts' code, styles, code samples, citations (links to other
    sites, <cite>) and anything marked lang="en" (the "English" link of the switch)."""

    SKIP = {"script", "style", "code", "pre", "cite", "kbd", "samp"}
    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
            "track", "wbr"}
    ATTRS = ("title", "aria-label", "alt", "placeholder", "aria-valuetext")

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.texts: list[str] = []
        self.i18n: dict[str, dict] = {}   # data-i18n JSON, by widget name and position
        self.page_i18n: dict = {}
        self._stack: list[tuple[str, bool]] = []  # open elements: tag, starts a skipped subtree
        self._skip = 0
        self._json_script = None

    def handle_starttag(self, tag, attrs):
        a = {k: (v or "") for k, v in attrs}
        if tag == "meta" and a.get("name") == "description":
            self.texts.append(a.get("content", ""))
        if not self._skip:
            for k in self.ATTRS:
                if a.get(k):
                    self.texts.append(a[k])
            if a.get("data-i18n"):
                strings = json.loads(a["data-i18n"])
                self.i18n[f"{a.get('data-widget')}#{len(self.i18n)}"] = strings
                self.texts.extend(_leaves(strings))
        if tag == "script" and a.get("type") == "application/json" and a.get("id") == "i18n":
            self._json_script = []
        if tag in self.VOID:
            return
        skip = (tag in self.SKIP or (tag != "html" and a.get("lang", "").startswith("en"))
                or (tag == "a" and a.get("href", "").startswith(("http://", "https://"))))
        self._stack.append((tag, skip))
        self._skip += skip

    def handle_endtag(self, tag):
        if tag == "script" and self._json_script is not None:
            self.page_i18n = json.loads("".join(self._json_script))
            self.texts.extend(_leaves(self.page_i18n))
            self._json_script = None
        if tag in self.VOID or tag not in (t for t, _s in self._stack):
            return
        # Close implicitly closed elements too (<p>, <li> without their end tags).
        while self._stack:
            t, skip = self._stack.pop()
            self._skip -= skip
            if t == tag:
                break

    def handle_data(self, data):
        if self._json_script is not None:
            self._json_script.append(data)
        elif not self._skip:
            self.texts.append(data)


def _leaves(obj) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for v in obj.values() for s in _leaves(v)]
    if isinstance(obj, list):
        return [s for v in obj for s in _leaves(v)]
    return []


def english_runs(texts) -> list[str]:
    runs = []
    for t in texts:
        t = URL.sub(" ", t)
        runs += [r for r in ENGLISH_RUN.findall(t) if r not in ALLOWED_ENGLISH]
    return runs


def _read(page_html, url) -> _Reader:
    """What a reader meets on the page at url (rendered once per test process: conftest.page_html)."""
    r = _Reader()
    r.feed(page_html(url))
    return r


def test_detector_catches_english(page_html):
    """The English page must trip the detector, or the Chinese checks below prove nothing."""
    r = _read(page_html, "/en/specdec/")
    assert len(english_runs(r.texts)) > 100
    assert not english_runs(["在“%(easy)s”之后 GPU 与 KV 缓存", "LLaMA2-Chat 70B 上 MT-bench"])


ZH_URLS = (["/zh/specdec/", "/embed/zh/specdec/"]
           + [f"/embed/zh/specdec/{a}/" for a in ANCHORS]
           + ["/zh/specdec/?draft=unigram&gamma=8&greedy=1&rule=keep-draft&batch=512&ctx=131072",
              "/zh/specdec/?gamma=99&draft=nope",  # the notice for bad values, in Chinese
              "/zh/specdec/?depth=story", "/zh/specdec/?depth=frontier",
              "/embed/zh/specdec/rule/?depth=story", "/embed/zh/specdec/alpha/?depth=frontier"])


@pytest.mark.parametrize("url", ZH_URLS)
def test_chinese_page_has_no_english_sentence(page_html, url):
    r = _read(page_html, url)
    runs = english_runs(r.texts)
    assert not runs, f"English on {url}: {runs[:8]}"


@pytest.mark.parametrize("url", ["/zh/specdec/", "/embed/zh/specdec/bench/"])
def test_chinese_page_lang_and_title(page_html, url):
    html = page_html(url)
    assert re.search(r'<html lang="zh-CN"', html)
    title = re.search(r"<title>(.*?)</title>", html, re.S).group(1)
    assert "推测解码" in title


@pytest.mark.parametrize("path", ["/zh/specdec/", "/embed/zh/specdec/"]
                         + [f"/embed/zh/specdec/{a}/" for a in ANCHORS])
def test_script_strings_have_the_same_keys_in_both_languages(page_html, path):
    zh = _read(page_html, path)
    en = _read(page_html, path.replace("/zh/", "/en/"))
    assert set(zh.page_i18n) == set(en.page_i18n)
    assert list(zh.i18n) == list(en.i18n), "the same widgets, in the same order"
    for name in en.i18n:
        assert set(zh.i18n[name]) == set(en.i18n[name]), name
        for key, en_s in en.i18n[name].items():
            zh_s = zh.i18n[name][key]
            if isinstance(en_s, str):
                assert Counter(PLACEHOLDER.findall(en_s)) == Counter(PLACEHOLDER.findall(zh_s)), (name, key)


def test_chinese_examples_come_from_the_chinese_data(page_html):
    """Sections 6 and 7 show contexts chosen by sim.examples from the Chinese counts."""
    from sim import examples
    html = page_html("/zh/specdec/")
    ctx = "".join(examples.tubes_context("zh"))
    assert re.search(r"[\u4e00-\u9fff]", ctx)
    assert ctx in html
    ex = examples.easy_and_hard("zh")
    easy = ex["easy"] if isinstance(ex, dict) else ex[0]
    easy_ctx = "".join(easy["tokens"] if isinstance(easy, dict) else easy.tokens)
    assert f"“{easy_ctx}”" in re.sub(r"<[^>]+>", "", html)   # the context is a live field
    assert "Mock" not in html and "Turtle" not in html


# ---- language choice and the switch -------------------------------------------------------
@pytest.mark.parametrize("path", ["/", "/specdec/"])
@pytest.mark.parametrize("accept,lang", [("zh-CN,zh;q=0.9,en;q=0.8", "zh"), ("zh", "zh"),
                                         ("en-GB,en;q=0.9,zh;q=0.5", "en"), ("fr-FR", "en"),
                                         (None, "en")])
def test_root_follows_accept_language(client, path, accept, lang):
    headers = {"Accept-Language": accept} if accept else {}
    resp = client.get(path, headers=headers)
    assert resp.status_code in (301, 302, 303, 307, 308)
    assert resp.headers["Location"].endswith(f"/{lang}/specdec/")


def _switch_href(html: str) -> str:
    m = re.search(r'<a[^>]*id="lang-switch"[^>]*>', html)
    assert m, "no language switch"
    return re.search(r'href="([^"]*)"', m.group(0)).group(1).replace("&amp;", "&")


@pytest.mark.parametrize("frm,to", [("/zh/specdec/", "/en/specdec/"),
                                    ("/en/specdec/", "/zh/specdec/"),
                                    ("/embed/zh/specdec/", "/embed/en/specdec/"),
                                    ("/embed/en/specdec/tape/", "/embed/zh/specdec/tape/"),
                                    ("/embed/zh/specdec/exact/", "/embed/en/specdec/exact/")])
def test_language_switch_keeps_settings(client, frm, to):
    query = "gamma=6&draft=unigram&seed=7&batch=128&depth=story"
    href = _switch_href(client.get(f"{frm}?{query}").get_data(as_text=True))
    path, _, q = href.partition("?")
    assert path == to
    assert set(q.split("&")) == set(query.split("&"))


# ---- API errors ---------------------------------------------------------------------------
@pytest.mark.parametrize("url,param", [("/api/run?lang=zh&gamma=99", "gamma"),
                                       ("/api/run?lang=zh&draft=fourgram", "draft"),
                                       ("/api/tubes?lang=zh&rounds=0", "rounds"),
                                       ("/api/theory?alpha=abc", "alpha"),
                                       ("/api/roofline?batch=0", "batch")])
def test_api_errors_in_chinese(client, url, param):
    # The page's scripts send Accept-Language: zh (static/js/main.js); lang=zh also selects it.
    resp = client.get(url, headers={"Accept-Language": "zh"})
    assert resp.status_code == 400
    err = resp.get_json()["error"]
    assert err["param"] == param
    assert re.search(r"[\u4e00-\u9fff]", err["message"]), err
    assert not english_runs([err["message"], err["allowed"]]), err


@pytest.mark.parametrize("url", ["/zh/specdec/no-such-page/", "/embed/zh/specdec/no-such-section/"])
def test_chinese_error_page(client, url):
    resp = client.get(url)
    assert resp.status_code == 404
    r = _Reader()
    r.feed(resp.get_data(as_text=True))
    assert any("页面不存在" in t for t in r.texts)
    assert not english_runs(r.texts), english_runs(r.texts)


@pytest.mark.parametrize("method,path", [("GET", "/api/nothing?lang=zh"), ("POST", "/api/dist?lang=zh"),
                                         ("GET", "/api/section/nope?lang=zh"), ("DELETE", "/api/run?lang=zh")])
def test_the_api_s_own_http_errors_speak_chinese(client, method, path):
    # issue 14: the API's 404 and 405 answers were English even with lang=zh.
    r = client.open(path, method=method)
    assert r.status_code in (404, 405) and r.is_json
    assert re.search(r"[\u4e00-\u9fff]", r.get_json()["error"]["message"]), r.get_json()
    en = client.open(path.replace("lang=zh", "lang=en"), method=method).get_json()["error"]["message"]
    assert not re.search(r"[\u4e00-\u9fff]", en)
