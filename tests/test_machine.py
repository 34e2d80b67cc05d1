"""The bench's machine on the server side: what the bench answer tells it (the mill's busy share,
whether the batch fits), the overflow note, and three.js served from our own origin through
serving/vendor.py: one minified bundle (vendor/three.min.js) built from the versions
package-lock.json pins."""
from __future__ import annotations

import json
import re
import shlex
import subprocess
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


def test_three_served_as_one_minified_bundle_of_the_locked_version(client):
    lock = json.loads((ROOT / "package-lock.json").read_text())
    pinned = lock["packages"]["node_modules/three"]["version"]
    assert json.loads((ROOT / "package.json").read_text())["dependencies"]["three"] == pinned
    # Only the bundle is served: three's own build files are not in the table.
    assert not [rel for rel in vendor.FILES.values() if rel.startswith("three/")]
    assert "three.min.js" in vendor.BUILT
    path = vendor.source("three.min.js", app_module.SITE)
    r = client.get("/vendor/three.min.js")
    assert r.status_code == 200 and r.mimetype == "text/javascript"
    assert r.data == path.read_bytes()
    assert "max-age=31536000" in r.headers["Cache-Control"] and r.headers.get("ETag")
    text = r.get_data(as_text=True)
    # Built from the pinned three, its licence kept, and with no import of its own left.
    assert "Three.js Authors" in text and "SPDX-License-Identifier: MIT" in text
    assert not re.search(r"\bimport\s*[\"'{*]|\bimport\(", text)
    assert len(r.data) < 700_000


def test_the_bundle_exports_every_name_the_machine_uses():
    src = (ROOT / "static/js/machine3d.js").read_text()
    used = set(re.findall(r"\bTHREE\.(\w+)", src))
    entry = (ROOT / "vendor/three.entry.js").read_text()
    exported = set(re.search(r"export \{([^}]*)\} from \"three\"", entry).group(1).replace(" ", "").split(","))
    assert used == exported
    tail = (ROOT / "vendor/three.min.js").read_text()[-3000:]
    names = re.findall(r"\bas (\w+)\b", tail.split("export{")[-1].split("}")[0])
    assert set(names) == exported


def test_the_committed_bundle_is_what_the_pinned_esbuild_builds(tmp_path):
    esbuild = ROOT / "node_modules/.bin/esbuild"
    if not esbuild.exists():
        pytest.skip("node_modules/ not installed (npm ci)")
    lock = json.loads((ROOT / "package-lock.json").read_text())
    for pkg in ("three", "esbuild"):
        installed = json.loads((ROOT / f"node_modules/{pkg}/package.json").read_text())["version"]
        assert installed == lock["packages"][f"node_modules/{pkg}"]["version"], pkg
    script = json.loads((ROOT / "package.json").read_text())["scripts"]["build:three"]
    out = tmp_path / "three.min.js"
    args = shlex.split(script.replace("--outfile=vendor/three.min.js", f"--outfile={out}"))
    assert args[0] == "esbuild" and str(out) in " ".join(args)
    subprocess.run([str(esbuild), *args[1:], "--log-level=warning"], cwd=ROOT, check=True, timeout=120)
    assert out.read_bytes() == (ROOT / "vendor/three.min.js").read_bytes(), "run `npm run build:three`"


@pytest.mark.parametrize("name", ["three.webgpu.js", "..%2Fpackage.json", "axe.min.js", "nothing.js"])
def test_only_the_tables_files_are_served(client, name):
    assert client.get(f"/vendor/{name}").status_code == 404


def test_machine_module_imports_only_our_origin():
    src = (ROOT / "static/js/machine3d.js").read_text()
    imports = [line for line in src.splitlines() if line.startswith("import ")]
    # three.js from our /vendor/, and our own modules beside it (the language record's reader).
    assert imports == ['import * as THREE from "/vendor/three.min.js";',
                       'import { languageOf, pageLang } from "./language.js";']
