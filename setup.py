"""The one build step pyproject.toml cannot declare: a built package carries the site's files.

app.py is a top-level module whose templates/, static/ and translations/ sit beside it in the
repository. A built package (a wheel, `pip install .`) copies them into the folder specdec_site/
beside app.py, where app.py looks first, and compiles each translation's .po into its .mo with
Babel's compiler (what `pybabel compile` runs), so the installed app serves Chinese with no
further step. It carries the compiled .mo, not the .po, and the browser's npm files
(serving/vendor.py's table) in specdec_site/vendor/. An editable install (`pip install -e .`)
reads the repository's folders; there the app compiles stale catalogs when it starts
(views/catalogs.py).
"""
import importlib.util
import shutil
import subprocess
from pathlib import Path

from babel.messages.frontend import CompileCatalog
from setuptools import setup
from setuptools.command.build_py import build_py

SITE_PACKAGE = "specdec_site"   # app.py's SITE
SITE_DIRS = ("templates", "static", "translations")


def _vendor_table():
    """serving/vendor.py's table of the browser's npm files, loaded by path (no package import)."""
    spec = importlib.util.spec_from_file_location("_specdec_vendor", Path("serving", "vendor.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def copy_vendor(site: Path) -> None:
    """The npm files the app serves under /vendor/, into the built package (it has no
    node_modules/): from node_modules/, after `npm ci` from package-lock.json if they are missing."""
    vendor = _vendor_table()
    if vendor.missing(Path(".")):
        if shutil.which("npm") is None:
            raise SystemExit(f"setup.py: {', '.join(vendor.missing(Path('.')))} missing from "
                             "node_modules/ and no npm to install them (run `npm ci` first)")
        subprocess.run(["npm", "ci", "--prefer-offline", "--no-audit", "--no-fund", "--silent"],
                       check=True)
    for name in vendor.NAMES:
        src = vendor.source(name, Path("."))
        if not src.is_file():
            raise SystemExit(f"setup.py: {src} missing after `npm ci`")
        dst = site / vendor.VENDOR_DIR / name
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_bytes(vendor.read(name, Path(".")))


class build_py_with_site(build_py):
    def run(self):
        super().run()
        if self.editable_mode:
            return
        site = Path(self.build_lib) / SITE_PACKAGE
        for name in SITE_DIRS:
            # .po/.mo: compiled below from the sources; dot-folders: local output (static/.bench).
            shutil.copytree(name, site / name, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("*.po", "*.mo", "*.pot", ".*",
                                                          "__pycache__"))
        copy_vendor(site)
        for po in sorted(Path("translations").glob("*/LC_MESSAGES/*.po")):
            cmd = CompileCatalog()
            cmd.input_file = str(po)
            cmd.output_file = str(site / po.with_suffix(".mo"))
            cmd.locale = po.parent.parent.name
            cmd.finalize_options()
            # A catalog with errors, or marked fuzzy (Babel then skips it), fails the build.
            if cmd.run() or not Path(cmd.output_file).is_file():
                raise SystemExit(f"{po}: Babel could not compile it")


setup(cmdclass={"build_py": build_py_with_site})
