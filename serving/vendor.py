"""The browser's files that come from npm: one table (and the few built from npm packages here), read by the app's /vendor/ route, by nginx
(which serves them itself) and by the package build (setup.py copies them into a built package,
which has no node_modules/).

Each package is pinned in package.json and package-lock.json (install.sh runs `npm ci`). This
module imports nothing beyond the standard library, so setup.py can load it by its path.
"""
from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

# URL name under /vendor/  ->  file under node_modules/ (its package pinned in package-lock.json).
# plotly.js's basic bundle (scatter, bar, pie): 1.19 MB, 386 KiB gzipped, where the full bundle
# is 4.8 MB and 1,436 KiB; the page draws lines, markers and one map (the lab's, drawn as bars).
FILES: dict[str, str] = {
    "plotly.min.js": "plotly.js-basic-dist-min/plotly-basic.min.js",
}

# Built here from npm packages and committed, so a fresh clone serves them with no build step:
# three.min.js is what the bench's machine takes from three.js (vendor/three.entry.js), bundled
# and minified by esbuild (`npm run build:three`; both pinned in package-lock.json): 573 KB,
# 144 KB gzipped, where three.module.js and three.core.js together are 2.1 MB and 419 KB.
# They lie in the repository's vendor/, where a built package keeps its copies too.
BUILT: tuple[str, ...] = ("three.min.js",)

# Every name /vendor/ serves.
NAMES: tuple[str, ...] = (*FILES, *BUILT)

# In a built package the files sit in this folder of the site (app.SITE / VENDOR_DIR / name).
VENDOR_DIR = "vendor"

MIME = {".js": "text/javascript", ".mjs": "text/javascript", ".css": "text/css",
        ".json": "application/json", ".wasm": "application/wasm"}


def mimetype(name: str) -> str:
    return MIME.get(Path(name).suffix, "application/octet-stream")


def source(name: str, root: Path) -> Path:
    """Where the file named ``name`` is found for the site at ``root``: the built package's copy
    (``root/vendor/name``) if there is one, else the repository's node_modules/."""
    if name not in NAMES:
        raise KeyError(name)
    built = root / VENDOR_DIR / name
    if built.is_file() or name in BUILT:
        return built
    return root / "node_modules" / FILES[name]


# V8's explicit compile hint, a comment at a script's head (Chrome 136 and later; to any other
# engine it is only a comment): every function of the file is compiled on the background thread
# that streams the script in, not lazily on the main thread when plotly.js first calls it as it
# sets itself up. Measured in headless Chromium 156 (2 December 2026, load average 15, 4 runs
# each): the task that evaluates plotly.js took 374–810 ms without it, 59–294 ms with it
# (docs/performance.md). three.js is an ES module whose functions mostly run later, on demand.
HINTS: dict[str, bytes] = {"plotly.min.js": b"//# allFunctionsCalledOnLoad\n"}


def read(name: str, root: Path) -> bytes:
    """The file as the browser gets it (its hint first, once: a built package's copy has it)."""
    return read_tagged(name, root)[0]


def read_tagged(name: str, root: Path) -> tuple[bytes, str]:
    """(the file as ``read`` gives it, its ETag), read and hashed once per version of the file."""
    path = source(name, root)
    return _read(path, path.stat().st_mtime_ns, HINTS.get(name, b""))


@lru_cache(maxsize=8)
def _read(path: Path, _mtime_ns: int, hint: bytes) -> tuple[bytes, str]:
    data = path.read_bytes()
    data = data if data.startswith(hint) else hint + data
    return data, hashlib.sha256(data).hexdigest()[:32]


def missing(root: Path) -> list[str]:
    """The table's files not to be found for the site at ``root`` (npm ci not run)."""
    return [name for name in NAMES if not source(name, root).is_file()]
