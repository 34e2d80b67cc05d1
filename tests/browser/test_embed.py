"""Embeds inside a page from ANOTHER origin: they load, are allowed in the frame, and the host
resizes the frame from the height messages (via static/js/embed-host.js)."""
from urllib.parse import urlsplit

import pytest

from tests.conftest import LiveServer, guard

pytestmark = pytest.mark.browser


def host_app(specdec_url: str):
    """A tiny WSGI app on a different port (so a different origin) with one page of iframes."""
    html = f"""<!doctype html><html><head><meta charset="utf-8"><title>Course page</title></head>
<body><h1>A course page</h1>
<iframe id="one" src="{specdec_url}/embed/en/specdec/tape/" title="Tape" width="100%" height="150"
 style="border:0"></iframe>
<iframe id="all" src="{specdec_url}/embed/en/specdec/" title="Plate" width="100%" height="150"
 style="border:0"></iframe>
<iframe id="page" src="{specdec_url}/en/specdec/" title="Full page" width="100%" height="150"></iframe>
<script src="{specdec_url}/static/js/embed-host.js"></script>
</body></html>""".encode()

    def app(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/html; charset=utf-8"),
                                  ("Content-Length", str(len(html)))])
        return [html]
    return app


@pytest.fixture()
def host_url(live_url):
    with LiveServer(host_app(live_url)) as srv:
        yield srv.url


def test_embed_in_foreign_page_loads_and_resizes(browser, live_url, host_url):
    assert urlsplit(host_url).port != urlsplit(live_url).port   # two origins
    ctx = browser.new_context(viewport={"width": 1000, "height": 800})
    pg = ctx.new_page()
    origin = lambda u: f"{urlsplit(u).scheme}://{urlsplit(u).netloc}"
    guard(pg, {origin(live_url), origin(host_url)})
    pg.goto(host_url)
    # The host script sets data-specdec-height once a height message arrives.
    pg.wait_for_function(
        "document.getElementById('one').dataset.specdecHeight && "
        "document.getElementById('all').dataset.specdecHeight", timeout=20000)
    # The embed's own content loaded inside the frame and its widget was mounted.
    frame = next(f for f in pg.frames if "/embed/en/specdec/tape/" in f.url)
    frame.wait_for_selector("html[data-ready='1']", state="attached", timeout=20000)
    frame.wait_for_selector("[data-widget][data-state=mounted]", state="attached")
    pg.wait_for_timeout(300)   # let the last height message after mounting arrive
    # Read the reported height and the frame's laid-out height at the same moment.
    h_one, box_one, h_all = pg.evaluate("""() => {
        const one = document.getElementById('one');
        return [+one.dataset.specdecHeight, one.getBoundingClientRect().height,
                +document.getElementById('all').dataset.specdecHeight]; }""")
    assert h_one != 150                       # changed from the host's initial height
    assert h_all > h_one                      # the whole plate is taller than one section
    assert abs(box_one - h_one) <= 1
    # The full page refuses to be framed by another origin: its frame stays empty.
    # (By its id: the whole-plate embed's address ends in /en/specdec/ too, and it has an h1.)
    # Chromium shows its own error page there (which has an h1 of its own): none of ours.
    page_frame = next(f for f in pg.frames if f.name == "page")
    assert page_frame.locator(".plate-section, .plate-tools").count() == 0
    assert pg.foreign_requests == []
    ctx.close()


def test_embed_reports_height_again_when_content_grows(browser, live_url, host_url):
    ctx = browser.new_context(viewport={"width": 1000, "height": 800})
    pg = ctx.new_page()
    pg.goto(host_url)
    pg.wait_for_function("document.getElementById('one').dataset.specdecHeight", timeout=20000)
    frame = next(f for f in pg.frames if "/embed/en/specdec/tape/" in f.url)
    # Measure only once the widget has replaced its server-rendered fallback.
    frame.wait_for_selector("html[data-ready='1']", state="attached", timeout=20000)
    pg.wait_for_timeout(300)
    before = int(pg.locator("#one").get_attribute("data-specdec-height"))
    frame.evaluate("""() => { const d = document.createElement('div');
        d.style.height = '400px'; document.querySelector('main').appendChild(d); }""")
    pg.wait_for_function(
        f"+document.getElementById('one').dataset.specdecHeight >= {before + 390}", timeout=10000)
    ctx.close()


# ---- several frames, some below the fold, and a host that changes width -------------------------

FRAMES = ("onebyone", "tape", "exact", "idle", "lab")

# The embed's height as it reports it (static/js/main.js): its body's, with the body's margins.
BODY_HEIGHT = """() => { const b = document.body, cs = getComputedStyle(b);
  return Math.ceil(b.getBoundingClientRect().height + parseFloat(cs.marginTop) + parseFloat(cs.marginBottom)); }"""


def course_app(specdec_url: str):
    """A course page on another origin: five embeds far apart (most of them below the fold) and
    the host script, with no height given beyond the snippet's."""
    frames = "\n".join(
        f'<p style="height:900px">Reading for week {i + 1}.</p>'
        f'<iframe id="f-{a}" src="{specdec_url}/embed/en/specdec/{a}/" title="{a}" width="100%" height="600" '
        f'style="border:0;max-width:100%"></iframe>' for i, a in enumerate(FRAMES))
    html = f"""<!doctype html><html><head><meta charset="utf-8"><title>Course</title></head>
<body style="margin:0 8px"><h1>A course page</h1>{frames}
<script src="{specdec_url}/static/js/embed-host.js" async></script></body></html>""".encode()

    def app(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(html)))])
        return [html]
    return app


def frame_heights(pg):
    """Each frame's height on the host page and its content's own height, by anchor."""
    out = {}
    for a in FRAMES:
        frame = next(f for f in pg.frames if f"/embed/en/specdec/{a}/" in f.url)
        box = pg.evaluate("(id) => document.getElementById(id).getBoundingClientRect().height", f"f-{a}")
        out[a] = (round(box), frame.evaluate(BODY_HEIGHT))
    return out


def wait_until_frames_fit(pg, timeout_s=20):
    import time
    deadline = time.time() + timeout_s
    while True:
        got = frame_heights(pg)
        if all(abs(box - content) <= 1 for box, content in got.values()):
            pg.wait_for_timeout(400)   # and stays so
            again = frame_heights(pg)
            if again == got:
                return got
        if time.time() > deadline:
            raise AssertionError(f"frames (height on the host, content): {got}")
        pg.wait_for_timeout(250)


def test_frames_out_of_view_follow_the_host_when_it_resizes(browser, live_url):
    with LiveServer(course_app(live_url)) as host:
        ctx = browser.new_context(viewport={"width": 1100, "height": 700})
        pg = ctx.new_page()
        pg.goto(host.url)
        for a in FRAMES:
            next(f for f in pg.frames if f"/embed/en/specdec/{a}/" in f.url).wait_for_selector(
                "html[data-ready='1']", state="attached", timeout=30_000)
        wide = wait_until_frames_fit(pg)
        # Only the first frame is anywhere near the view; the others are thousands of px below.
        below = pg.evaluate("() => [...document.querySelectorAll('iframe')].filter(f => f.getBoundingClientRect().top > innerHeight).length")
        assert below >= 4
        # A phone's width (a window narrowed, a tablet rotated): every frame follows, in view or not.
        pg.set_viewport_size({"width": 420, "height": 800})
        narrow = wait_until_frames_fit(pg)
        assert all(narrow[a][1] > wide[a][1] for a in FRAMES), (wide, narrow)
        # And back: every frame shrinks again (the height is the content's, not the frame's).
        pg.set_viewport_size({"width": 1100, "height": 700})
        back = wait_until_frames_fit(pg)
        assert all(abs(back[a][1] - wide[a][1]) <= 2 for a in FRAMES), (wide, back)
        ctx.close()
