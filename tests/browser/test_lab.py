"""Section 14 in the browser: count a pasted text, copy-from-text draft, the map, re-sending a text
the server forgot, and the no-script reading."""
import os
from pathlib import Path

import pytest

from serving import labtexts
from sim import usertext
from tests.browser.util import open_fold

pytestmark = pytest.mark.browser

REFRAIN = ("Round the hill and back again, round the hill we go; the hill is wide and the night is long. "
           "Round the mill and back again, round the mill we go; the mill is wide and the night is long. ") * 8


def open_lab(page, live_url, query="", lang="en"):
    page.goto(f"{live_url}/{lang}/specdec/{query}#lab")
    page.wait_for_selector("html[data-ready='1']")
    page.wait_for_selector("[data-widget=lab][data-state=mounted]")


def test_paste_count_and_copy_draft(page, live_url):
    open_lab(page, live_url, "?ldraft=lookup")
    page.fill("#lab-textarea", REFRAIN)
    page.click("[data-act=use-text]")
    page.wait_for_selector("[data-widget=lab][data-source=text]", timeout=60_000)
    sha = usertext.digest(REFRAIN.encode())
    assert f"text={sha}" in page.url and "tlang=en" in page.url
    assert "tokens" in page.text_content("[data-out=text-status]")
    assert "tokens" in page.text_content("#lab [data-live=run_status]")   # the server's "Your text: …"
    # The copy draft keeps most of its guesses on a refrain: several tokens per pass.
    assert float(page.text_content("#lab .lab-readout [data-field=tokens_per_pass]").replace(",", "")) > 2.0
    assert page.locator(".lab-tape .tape-cell--kept").count() > 20
    # The map is drawn, with the current (γ, c) marked, once its "Go further" fold is open.
    open_fold(page, "lab-more")
    page.locator("#lab [data-plot=map]").scroll_into_view_if_needed()
    page.wait_for_selector("#lab [data-plot=map] .main-svg", timeout=60_000)
    page.select_option("#lab-adapt", "hf")
    page.select_option("#lab-draft", "bigram")
    page.wait_for_selector("#lab .lab-compare table", timeout=60_000)
    assert "adapt=hf" in page.url
    assert page.console_errors == [] and page.foreign_requests == []


def test_forgotten_text_is_sent_again(page, live_url):
    open_lab(page, live_url)
    page.fill("#lab-textarea", REFRAIN + " Once more.")
    page.click("[data-act=use-text]")
    page.wait_for_selector("[data-widget=lab][data-source=text]", timeout=60_000)
    # Every part answered for the text first: a part still on its way would find the text gone
    # and have it sent again before the change below.
    page.wait_for_function("() => !document.querySelector('#lab[aria-busy=true]')", timeout=60_000)
    # The server forgets every text: no worker holds it and the shared store lost it too (a
    # store evicting it, or a server without one).
    labtexts.CACHE.clear()
    for f in Path(os.environ["SPECDEC_TEXT_DIR"]).glob("*.txt"):
        f.unlink()
    with page.expect_response(lambda r: "/api/lab/text" in r.url and r.status == 200, timeout=60_000):
        page.fill("#lab-gamma", "2")
    page.wait_for_function("() => !document.querySelector('#lab[aria-busy=true]') && /2/.test(document.querySelector('#lab [data-field=gammas_text]').textContent)",
                           timeout=60_000)
    assert page.locator("#lab .widget-error").count() == 0
    assert page.locator("#lab").get_attribute("data-units")  # still the lab, now at γ = 2 on the text
    assert page.locator("[data-widget=lab]").get_attribute("data-source") == "text"
    # The browser logs the deliberate 404 itself; nothing else may be logged.
    assert all("404" in e for e in page.console_errors)


@pytest.mark.parametrize("codec,label", [("gbk", "GB18030"), ("big5", "Big5"), ("utf-16", "UTF-16LE")])
def test_a_file_in_another_encoding_is_read_as_such(page, live_url, tmp_path, codec, label):
    # Issue 14: a GBK file (Windows' Chinese "ANSI") was read as UTF-8 by the browser and counted
    # as mojibake. The file's bytes go to the server, which names the encoding it read.
    text = ("我們在山上看月亮，月亮也在山上看我們。早上起來，先去河邊走一走，看看水中的魚。"
            "老師說，讀書要慢慢讀，一個字一個字地想清楚。下午下了一場雨，街上的人都回家了。") * 3
    path = tmp_path / f"text-{codec}.txt"
    path.write_bytes(text.encode(codec))
    open_lab(page, live_url, "?tlang=zh", lang="zh")
    page.set_input_files("#lab-file", str(path))
    page.click("[data-act=use-text]")
    page.wait_for_selector("[data-widget=lab][data-source=text]", timeout=60_000)
    status = page.text_content("[data-out=text-status]")
    assert f"按 {label} 编码读取。" in status and "。 " not in status
    assert f"text={usertext.digest(text.encode())}" in page.url
    tape = "".join(page.locator(".lab-tape .tape-cell").all_text_contents())
    assert "�" not in tape and any(ch in tape for ch in "我們月亮山")
    assert page.console_errors == []


def test_reads_without_scripts(browser, live_url):
    ctx = browser.new_context(java_script_enabled=False)
    pg = ctx.new_page()
    pg.goto(f"{live_url}/zh/specdec/?ldraft=lookup&adapt=cost#lab")
    assert pg.locator("#lab .lab-tape .tape-cell").count() > 50
    assert pg.locator("#lab .lab-map-table td").count() == 25
    assert pg.locator("#lab [data-live=drafts_table] tbody tr").count() == 4
    ctx.close()
