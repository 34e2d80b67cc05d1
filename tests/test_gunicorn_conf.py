"""gunicorn.conf.py's hook before the workers fork: what the master loads stays out of reach of the
workers' cyclic collector."""
from __future__ import annotations

import gc
import runpy
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]


def test_the_master_freezes_what_it_loaded_before_the_workers_fork():
    conf = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    server = SimpleNamespace(app=SimpleNamespace(callable=None))   # gunicorn run without our app
    gc.unfreeze()
    try:
        assert gc.get_freeze_count() == 0
        conf["when_ready"](server)
        # Everything tracked when the hook ended (the models' objects among them) is frozen.
        assert gc.get_freeze_count() > 10_000
        assert len(gc.get_objects()) < gc.get_freeze_count()
    finally:
        gc.unfreeze()
