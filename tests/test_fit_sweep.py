"""No speed for a setup that does not fit, anywhere (issue 20, class 2).

Every section that prints tokens/s or a speed-up for a (model, GPU, batch, context) says first
whether it fits, in section 2's words, and marks its headline "does not fit"; no section prints a
negative count or "up to 0". The corners swept are every GPU and model preset of sim/roofline.py
(the 70B on the GPUs its weights need, as tensor parallelism splits it), at the batch stops on
either side of the memory limit and at the ends of the context range.
"""
from __future__ import annotations

import re
from html import unescape

import pytest

from sim import params as P
from sim import roofline
from views.sections import answer, live_html

DEFAULTS = {n: p.default for n, p in P.PAGE.items()}
UNITS = ("batch", "idle", "bench", "trees.budget")
NEGATIVE = re.compile(r"(?<![\w.,])[-−]\s?\d")
UP_TO_0 = re.compile(r"up to 0(?![.,]\d)|至多 0(?![.,]\d)|\(up to 0\)")
# A speed-up or a speed among the readouts (the arithmetic factor "2.05×" is not a speed).
SPEED = re.compile(r"(Speed-up|Best chain|Best tree|加速比|最佳链|最佳树)[^A-Za-z\u4e00-\u9fff]*\d|tokens/s|词元/秒")


def visible(html: str) -> str:
    html = re.sub(r"<script.*?</script>", "", html, flags=re.S)
    return unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)))


def corners(contexts):
    """(gpu, model, batch, ctx): the batch stops just inside and just past the memory limit on the
    GPUs the page uses, and the two ends of the range."""
    from views.sections.shared import weight_gpus
    for g, gpu in roofline.GPUS.items():
        for mk, model in roofline.MODELS.items():
            n = weight_gpus(gpu, model)
            for ctx in contexts:
                limit = roofline.max_batch(gpu, model, ctx, gpus=n)
                stops = {P.BATCH_STOPS[0], P.BATCH_STOPS[-1]}
                if limit is not None:
                    inside = [b for b in P.BATCH_STOPS if b <= limit]
                    past = [b for b in P.BATCH_STOPS if b > limit]
                    stops |= set(inside[-1:]) | set(past[:1])
                for b in sorted(stops):
                    yield g, mk, b, ctx


def check(app, lang, state):
    with app.test_request_context(f"/{lang}/specdec/"):
        for unit in UNITS:
            a = answer(unit, lang, {**DEFAULTS, **state})
            html = live_html(unit, a)
            text = {k: visible(v) for k, v in html.items()}
            where = f"{unit} {state} {lang}"
            for name, t in text.items():
                assert not NEGATIVE.search(t), (where, name, NEGATIVE.search(t), t[:300])
                assert not UP_TO_0.search(t), (where, name, t[:300])
            fits = a["capacity"]["fits_on_gpus"]
            if unit == "batch":
                continue    # section 2 is the reference: its figures say they are for bigger GPUs
            if unit == "trees.budget":
                fits = a["fits"]
            if not fits:
                take = text.get("budget_takeaway" if unit == "trees.budget" else "takeaway", "")
                readouts = text.get("budget_readouts" if unit == "trees.budget" else "readouts", "")
                if lang == "en":
                    assert "not fit" in take, (where, take)
                    assert "does not fit" in readouts, (where, readouts)
                assert "×" not in take, (where, take)
                assert not SPEED.search(readouts), (where, readouts)
                assert "tokens/s" not in readouts and "tokens a second" not in take, (where, take)


def test_no_speed_where_the_streams_do_not_fit_at_the_corners(app):
    for g, m, b, ctx in corners((0, 4096, 131072)):
        check(app, "en", {"gpu": g, "model": m, "batch": b, "ctx": ctx})


@pytest.mark.slow
@pytest.mark.parametrize("lang", ("en", "zh"))
@pytest.mark.parametrize("ctx", P.CTX_STOPS)
def test_no_speed_where_the_streams_do_not_fit_anywhere(app, lang, ctx):
    """Every context stop, both languages (a test each, so that the workers share them: in one
    test they were the suite's longest, some 40 s)."""
    for g, m, b, c in corners((ctx,)):
        check(app, lang, {"gpu": g, "model": m, "batch": b, "ctx": c})
