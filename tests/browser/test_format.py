"""static/js/format.js writes what views/format.py writes: the scripts draw numbers (a tape being
stepped, gauges, charts) in the same forms as every number the server renders."""
import random

import pytest

from views import format as F

pytestmark = pytest.mark.browser

rng = random.Random(11)
VALUES = ([0, 1, -1, 0.5, 0.125, 2.675, 1.005, 0.0005, 6.7e-5, 0.0043, 0.01, 0.0099995, 1e-9, 0.999999,
           0.003, 0.9996, 0.99996, 0.00004, 2e-7, 1e-6,
           13350.4, 8030261248, 99_960_000, 9999, 10_000, 1.5e12, -13350, None]
          + [rng.uniform(0, 1) ** 3 for _ in range(60)] + [rng.uniform(1, 10) * 10 ** rng.randint(-6, 13) for _ in range(60)])
SPECS = ["num:0", "num:1", "num:2", "num:3", "pct:0", "pct:1", "x:2", "big", "prob", "pvalue"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_scripts_and_server_write_numbers_alike(page, live_url, app, lang):
    page.goto(f"{live_url}/embed/{lang}/specdec/parts/")
    page.wait_for_selector("html[data-ready='1']", state="attached", timeout=30000)
    js = page.evaluate("""async ([values, specs]) => {
        const f = await import('/static/js/format.js');
        return specs.map(s => values.map(v => f.format(v, s)));
    }""", [VALUES, SPECS])
    with app.test_request_context(f"/{lang}/specdec/"):
        py = [[F.fmt(v, s) for v in VALUES] for s in SPECS]
    diffs = [(s, v, a, b) for s, row_js, row_py in zip(SPECS, js, py)
             for v, a, b in zip(VALUES, row_js, row_py) if a != b]
    assert diffs == [], diffs[:10]


TIDY_SAMPLES = ["Medusa-2 为 2.3–2.8 倍", '<span class="num">2.7</span>–<span class="num">3.5</span> 倍',
                "有 85% 到 90% 的时候", "γ 从 1 到 16、c", "每步读 50.4 GB", "配 700亿 参数", "首选“”” 不是",
                "每次前向的 γ： 4 7 7", "– 没有数字", "第 1–3 个猜测", "调到 3 倍"]


def test_scripts_tidy_chinese_as_the_server_does(page, live_url):
    """What a script writes on the Chinese page gets the typography the server gives its own text
    (format.js tidy, views/format.py tidy_zh): a range of figures, a number and its unit or 万/亿
    kept on one line, a quote-mark token in corner brackets, no space after a full-width mark."""
    page.goto(f"{live_url}/embed/zh/specdec/parts/")
    page.wait_for_selector("html[data-ready='1']", state="attached", timeout=30000)
    js = page.evaluate("""async (samples) => {
        const f = await import('/static/js/format.js');
        return samples.map(s => f.tidy(s));
    }""", TIDY_SAMPLES)
    assert js == [F.tidy_zh(s) for s in TIDY_SAMPLES]
    assert "2.3\u2060–\u20602.8\u00a0倍" in js[0] and "85%\u00a0到\u00a090%" in js[2]
