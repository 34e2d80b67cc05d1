"""gunicorn.conf.py's hook before the workers fork: the entry pages are warmed, and what the master
loaded stays out of reach of the workers' cyclic collector."""
from __future__ import annotations

import gc
import logging
import runpy
from pathlib import Path
from types import SimpleNamespace

import pytest

from app import create_app

ROOT = Path(__file__).resolve().parents[1]


def _server(app):
    return SimpleNamespace(app=SimpleNamespace(callable=app), log=logging.getLogger("gunicorn-test"),
                           cfg=SimpleNamespace(bind=["127.0.0.1:5000"]))


@pytest.mark.parametrize("with_app", [True, False], ids=["our-app", "no-app"])
def test_the_master_warms_the_pages_and_freezes_what_it_loaded(with_app, monkeypatch, caplog):
    monkeypatch.delenv("SPECDEC_HOSTS", raising=False)
    conf = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    app = create_app({"TESTING": True, "RENDER_CACHE": True}) if with_app else None
    gc.unfreeze()
    try:
        assert gc.get_freeze_count() == 0
        with caplog.at_level(logging.INFO, logger="gunicorn-test"):
            conf["when_ready"](_server(app))
        # Everything tracked when the hook ended (the models' objects among them) is frozen.
        assert gc.get_freeze_count() > 10_000
        assert len(gc.get_objects()) < gc.get_freeze_count()
    finally:
        gc.unfreeze()
    warmed = [r.getMessage() for r in caplog.records if r.getMessage().startswith("warmed ")]
    if with_app:
        # Both languages' plate and embed, each answered 200 (gunicorn's log says so).
        assert len(warmed) == 4 and all(m.endswith(": 200") for m in warmed), warmed
    else:
        assert warmed == []
