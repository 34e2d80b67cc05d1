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
