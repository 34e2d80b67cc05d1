"""views/catalogs.py: the app compiles missing or stale catalogs when it starts, beside the .po
when it may write there, else into a cache folder; and a Chinese page is Chinese from a checkout
that never ran `pybabel compile`."""
from __future__ import annotations

import os
import re
import shutil
from gettext import GNUTranslations
from pathlib import Path

import pytest

import app as app_module
from views import catalogs

ROOT = Path(__file__).resolve().parents[1]
PO = ROOT / "translations" / "zh" / "LC_MESSAGES" / "messages.po"
HAN = re.compile(r"[\u4e00-\u9fff]")
# The whole Chinese plate shows about 18,000 Chinese characters; with no catalog it falls back
# to English and shows 278 (the book's own tokens in the runs), so 10,000 parts the two.
MIN_HAN_ON_ZH_PAGE = 10_000


def _translations(tmp_path: Path) -> Path:
    src = tmp_path / "translations"
    (src / "zh" / "LC_MESSAGES").mkdir(parents=True)
    shutil.copy2(PO, src / "zh" / "LC_MESSAGES" / "messages.po")
    return src


def _mo(d: Path) -> Path:
    return d / "zh" / "LC_MESSAGES" / "messages.mo"


def _chinese(mo: Path) -> str:
    with mo.open("rb") as f:
        return GNUTranslations(f).gettext("Embed")


def test_missing_catalog_compiled_beside_its_po(tmp_path):
    src = _translations(tmp_path)
    assert catalogs.translation_dir(src, cache_root=tmp_path / "cache") == src
    assert HAN.search(_chinese(_mo(src)))            # "Embed" reads 嵌入, not the English msgid
    assert not (tmp_path / "cache").exists()
    assert oct(_mo(src).stat().st_mode & 0o777) == oct(0o644)   # readable by a server's user


def test_current_catalog_left_alone_and_stale_one_compiled_again(tmp_path, monkeypatch):
    src = _translations(tmp_path)
    catalogs.translation_dir(src)
    compiled = []
    real = catalogs.compile_catalog
    monkeypatch.setattr(catalogs, "compile_catalog", lambda po, mo: (compiled.append(po), real(po, mo)))
    catalogs.translation_dir(src)
    assert compiled == []                            # current: a stat, no compile
    po = src / "zh" / "LC_MESSAGES" / "messages.po"
    earlier = po.stat().st_mtime_ns - 10**9          # the .po edited a second after compiling
    os.utime(_mo(src), ns=(earlier, earlier))
    catalogs.translation_dir(src)
    assert compiled == [po]
    assert _mo(src).stat().st_mtime_ns >= po.stat().st_mtime_ns


def test_read_only_install_compiles_into_a_cache_folder(tmp_path, monkeypatch):
    src = _translations(tmp_path)
    real = catalogs.compile_catalog

    # What a read-only install answers. Simulated: the tests may run as root, who writes
    # through any file mode.
    def refuse_src(po, mo):
        if src in mo.parents:
            raise PermissionError(13, "Permission denied", str(mo))
        real(po, mo)

    monkeypatch.setattr(catalogs, "compile_catalog", refuse_src)
    d = catalogs.translation_dir(src, cache_root=tmp_path / "cache")
    assert d != src and (tmp_path / "cache") in d.parents
    assert HAN.search(_chinese(_mo(d)))
    assert not _mo(src).exists()
    # The next start finds the cached catalog current; another install gets its own folder.
    assert catalogs.translation_dir(src, cache_root=tmp_path / "cache") == d
    other = _translations(tmp_path / "other")
    assert catalogs.translation_dir(other, cache_root=tmp_path / "cache") != d


def test_fuzzy_catalog_refused_rather_than_served_in_english(tmp_path):
    src = _translations(tmp_path)
    po = src / "zh" / "LC_MESSAGES" / "messages.po"
    text = po.read_text(encoding="utf-8")
    # Mark the header entry fuzzy: Babel then skips the whole catalog.
    po.write_text(text.replace('msgid ""\nmsgstr ""\n', '#, fuzzy\nmsgid ""\nmsgstr ""\n', 1),
                  encoding="utf-8")
    with pytest.raises(RuntimeError, match="fuzzy"):
        catalogs.translation_dir(src)
    assert not _mo(src).exists()


def test_chinese_page_from_a_checkout_that_never_compiled(tmp_path, monkeypatch):
    """A fresh clone (no .mo anywhere) serves the Chinese page in Chinese."""
    site = tmp_path / "site"
    site.mkdir()
    for name in ("templates", "static"):
        (site / name).symlink_to(app_module.SITE / name)
    _translations(site)
    monkeypatch.setattr(app_module, "SITE", site)
    client = app_module.create_app({"TESTING": True}).test_client()
    html = client.get("/zh/specdec/").get_data(as_text=True)
    assert _mo(site / "translations").is_file()
    assert len(HAN.findall(html)) >= MIN_HAN_ON_ZH_PAGE
