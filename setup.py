"""The one build step pyproject.toml cannot declare: a built package carries the site's files.

app.py is a top-level module whose templates/, static/ and translations/ sit beside it in the
repository. A built package (a wheel, `pip install .`) copies them into the folder specdec_site/
beside app.py, where app.py looks first, and compiles each translation's .po into its .mo with
Babel's compiler (what `pybabel compile` runs), so the installed app serves Chinese with no
further step. It carries the compiled .mo, not the .po. An editable install (`pip install -e .`)
reads the repository's folders; there the app compiles stale catalogs when it starts
(views/catalogs.py).
"""
import shutil
from pathlib import Path

from babel.messages.frontend import CompileCatalog
from setuptools import setup
from setuptools.command.build_py import build_py

SITE_PACKAGE = "specdec_site"   # app.py's SITE
SITE_DIRS = ("templates", "static", "translations")


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
