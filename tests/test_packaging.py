"""Installed any way, the app is whole and speaks Chinese: a plain `pip install` (and an editable
one) of the repository into a fresh virtual environment serves /zh/specdec/ in Chinese, with its
templates and static files, from the installed copy.

The source is a copy of the repository's files without any compiled catalog (.mo), as a fresh
clone has, so the Chinese can only come from the build step (setup.py) or the app's start-up
compile (views/catalogs.py). The new environment sees the test environment's packages (a .pth
file naming its site-packages) so the dependencies already installed are used, not downloaded
again; pip still builds the package in its own isolated environment with the build requirements
of pyproject.toml (setuptools, Babel), from its cache or the package index, as any user's pip does.
"""
from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
# What a clone does not have: local build output, caches, compiled catalogs, other environments.
NOT_IN_A_CLONE = shutil.ignore_patterns(
    ".git", ".venv", "node_modules", "build", "dist", "*.egg-info", "__pycache__", "*.mo",
    ".pytest_cache", ".hypothesis", "screenshots", "artifacts", ".bench")
# See tests/test_catalogs.py: ~18,000 with the catalog, 278 without it.
MIN_HAN_ON_ZH_PAGE = 10_000

SERVE = r"""
import json, re
import app
client = app.create_app().test_client()
zh = client.get("/zh/specdec/")
print(json.dumps({
    "app": app.__file__, "site": str(app.SITE), "zh": zh.status_code,
    "han": len(re.findall(r"[\u4e00-\u9fff]", zh.get_data(as_text=True))),
    "css": client.get("/static/css/plate.css").status_code,
    "plotly": client.get("/vendor/plotly.min.js").status_code,
    "embed": client.get("/embed/zh/specdec/tape/").status_code,
}))
"""


def _run(cmd, **kw):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    proc = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, env=env,
                          timeout=600, **kw)
    assert proc.returncode == 0, f"{cmd}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout


@pytest.mark.parametrize("editable", [False, True], ids=["pip-install", "pip-install-e"])
def test_fresh_install_serves_chinese(tmp_path, editable):
    src = tmp_path / "specdec"
    shutil.copytree(ROOT, src, ignore=NOT_IN_A_CLONE)
    if editable:
        # An editable install serves the browser's npm files from node_modules/, which
        # install.sh fills (`npm ci`) before it installs the package; a built package carries
        # its own copy (setup.py runs `npm ci` itself when they are missing, as here).
        shutil.copytree(ROOT / "node_modules", src / "node_modules", symlinks=True)
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv])
    py = venv / "bin" / "python"
    # The test environment's packages (pip among them) behind the new environment's own. Not
    # --system-site-packages: when the tests run in a virtual environment (install.sh's .venv/),
    # the system's site-packages are not where the packages are. Added as plain path entries,
    # their .pth files (an editable install of the repository, say) are not run.
    purelib = _run([py, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"]).strip()
    Path(purelib, "test-environment.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    _run([py, "-m", "pip", "install", "-q", *(["-e"] if editable else []), src], cwd=tmp_path)

    # Run from elsewhere, so `import app` finds the installed module, not a source folder.
    out = json.loads(_run([py, "-c", SERVE], cwd=tmp_path).strip().splitlines()[-1])
    if editable:
        assert Path(out["app"]) == src / "app.py"
        assert (src / "translations" / "zh" / "LC_MESSAGES" / "messages.mo").is_file()
    else:
        site_packages = Path(out["app"]).parent
        assert venv in site_packages.parents
        assert Path(out["site"]) == site_packages / "specdec_site"
        zh = site_packages / "specdec_site" / "translations" / "zh" / "LC_MESSAGES"
        # Compiled by the build: the package carries the .mo, not its source.
        assert sorted(p.name for p in zh.iterdir()) == ["messages.mo"]
        # The browser's npm files (serving/vendor.py), built from package-lock.json: a wheel
        # has no node_modules/.
        from serving import vendor
        for name, rel in vendor.FILES.items():
            # As the app serves it: the npm file, its compile hint first (once).
            assert (site_packages / "specdec_site" / "vendor" / name).read_bytes() == \
                vendor.HINTS.get(name, b"") + (ROOT / "node_modules" / rel).read_bytes()
        for name in vendor.BUILT:
            assert (site_packages / "specdec_site" / "vendor" / name).read_bytes() == \
                (ROOT / "vendor" / name).read_bytes()
    assert (out["zh"], out["css"], out["embed"], out["plotly"]) == (200, 200, 200, 200)
    assert out["han"] >= MIN_HAN_ON_ZH_PAGE, out
