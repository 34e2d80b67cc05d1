"""Compiled gettext catalogs (.mo) for Flask-Babel, made from the committed .po files when stale.

The .po files are the source (translated by hand, committed); Flask-Babel reads only the
compiled .mo files, which are build products and not committed. Without them the Chinese page
silently shows English. A built package carries them compiled (setup.py); a checkout or an
editable install has only the .po files, so the app compiles any catalog whose .mo is missing or
older than its .po when it starts (about 0.1 s for the Chinese catalog, then a stat per start).

Compiled with Babel's own compiler (`babel.messages.frontend.CompileCatalog`, what
`pybabel compile` runs): beside the .po when that folder is writable, else (an install the
server may not write to) into a per-user cache folder, which then is the translation directory.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from babel.messages.frontend import CompileCatalog

DOMAIN = "messages"


def _stale(po: Path, mo: Path) -> bool:
    try:
        return mo.stat().st_mtime_ns < po.stat().st_mtime_ns
    except FileNotFoundError:
        return True


def compile_catalog(po: Path, mo: Path) -> None:
    """Compile po into mo with Babel. Written to a temporary file and renamed, so a worker
    starting at the same moment reads the old catalog or the new one, never half of one."""
    mo.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=mo.parent, prefix=f".{mo.name}.", suffix=".tmp")
    os.close(fd)
    try:
        cmd = CompileCatalog()
        cmd.input_file, cmd.output_file = str(po), tmp
        cmd.locale = po.parent.parent.name          # <dir>/<locale>/LC_MESSAGES/messages.po
        cmd.finalize_options()
        cmd.run()   # like `pybabel compile`: format errors are logged, the catalog still written
        if os.path.getsize(tmp) == 0:
            # Babel skips a catalog marked fuzzy as a whole: say so rather than serve English.
            raise RuntimeError(f"{po}: Babel wrote no catalog (is the file marked fuzzy?)")
        os.chmod(tmp, 0o644)                        # mkstemp makes it private; others read it
        os.replace(tmp, mo)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME")
    try:
        return Path(base) if base else Path.home() / ".cache"
    except RuntimeError:                            # no home folder (a bare service account)
        return Path(tempfile.gettempdir())


def translation_dir(src: Path, cache_root: Path | None = None) -> Path:
    """A folder laid out as src (<locale>/LC_MESSAGES/) holding an up-to-date .mo for each .po
    in src: src itself when its catalogs are current or can be compiled there, else a cache
    folder named after src (so two installs never share one)."""
    pos = sorted(src.glob(f"*/LC_MESSAGES/{DOMAIN}.po"))
    try:
        for po in pos:
            if _stale(po, po.with_suffix(".mo")):
                compile_catalog(po, po.with_suffix(".mo"))
        return src
    except OSError:                                 # read-only folder or file system
        pass
    key = hashlib.sha256(str(src.resolve()).encode()).hexdigest()[:16]
    cache = (cache_root or _cache_root()) / "specdec" / "translations" / key
    for po in pos:
        mo = cache / po.relative_to(src).with_suffix(".mo")
        if _stale(po, mo):
            compile_catalog(po, mo)
    return cache
