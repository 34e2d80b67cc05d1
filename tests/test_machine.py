"""The bench's machine on the server side: what the bench answer tells it (the mill's busy share,
whether the batch fits), the overflow note, and three.js served from our own origin by the one
table of vendored npm files (serving/vendor.py), at the version package-lock.json pins."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import app as app_module
from serving import vendor
from sim import params as P
from sim import roofline
from views.sections import answer

ROOT = Path(__file__).resolve().parents[1]


def bench(app, **values):
    with app.test_request_context("/en/specdec/"):
        return answer("bench", "en", {**{n: p.default for n, p in P.PAGE.items()}, **values})


@pytest.mark.parametrize("values", [{}, {"batch": 1}, {"batch": 1024, "ctx": 32768}, {"gamma": 9, "batch": 8}])
def test_machine_figures_are_the_rooflines(app, values):
    a = bench(app, **values)
    v = a["params"]
    paper = roofline.speculative(v["gpu"], v["model"], v["batch"], v["ctx"], v["gamma"],
                                 min(1.0, max(0.0, a["run"]["alpha"])), v["c"], efficiency=v["eff"])
    m = a["machine"]
    assert m["busy"] == paper["arithmetic_busy_verify"] and 0 <= m["busy"] <= 1
    assert m["fits"] == paper["fits"] == roofline.fits(v["gpu"], v["model"], v["batch"], v["ctx"])["fits"]
    assert m["batch"] == v["batch"]
    assert m["max_batch"] == roofline.max_batch(v["gpu"], v["model"], v["ctx"])
    assert m["fits"] == (m["max_batch"] is None or v["batch"] <= m["max_batch"])


@pytest.mark.parametrize("lang, words", [("en", "does not fit"), ("zh", "放不进显存")])
def test_overflow_note_only_when_the_batch_does_not_fit(client, lang, words):
    html = client.get(f"/{lang}/specdec/?batch=1024&ctx=32768").get_data(as_text=True)
    note = html.split('data-live="machine_note"', 1)[1].split("</p>", 1)[0]
    assert words in note
    html = client.get(f"/{lang}/specdec/?batch=1").get_data(as_text=True)
    note = html.split('data-live="machine_note"', 1)[1].split("</p>", 1)[0]
    assert words not in note


def test_three_served_from_node_modules_at_the_locked_version(client):
    lock = json.loads((ROOT / "package-lock.json").read_text())
    pinned = lock["packages"]["node_modules/three"]["version"]
    assert json.loads((ROOT / "package.json").read_text())["dependencies"]["three"] == pinned
    three = [name for name, rel in vendor.FILES.items() if rel.startswith("three/")]
    assert sorted(three) == ["three.core.js", "three.module.js"]
    for name in three:
        path = vendor.source(name, app_module.SITE)
        if not path.is_file():
            pytest.skip("node_modules/ not installed (npm ci)")
        r = client.get(f"/vendor/{name}")
        assert r.status_code == 200 and r.mimetype == "text/javascript"
        assert r.data == path.read_bytes()
        assert "max-age=31536000" in r.headers["Cache-Control"] and r.headers.get("ETag")
    installed = json.loads((app_module.SITE / "node_modules/three/package.json").read_text())["version"]
    assert installed == pinned
    # three.module.js imports its core from beside it: both are in the table.
    assert "./three.core.js" in client.get("/vendor/three.module.js").get_data(as_text=True)[:5000]


@pytest.mark.parametrize("name", ["three.webgpu.js", "..%2Fpackage.json", "axe.min.js", "nothing.js"])
def test_only_the_tables_files_are_served(client, name):
    assert client.get(f"/vendor/{name}").status_code == 404


def test_machine_module_imports_only_our_origin():
    src = (ROOT / "static/js/machine3d.js").read_text()
    imports = [line for line in src.splitlines() if line.startswith("import ")]
    # three.js from our /vendor/, and our own modules beside it (the language record's reader).
    assert imports == ['import * as THREE from "/vendor/three.module.js";',
                       'import { languageOf, pageLang } from "./language.js";']
