"""Embeds on course platforms that listen only for their own resize messages: a host that speaks
only H5P's resizer protocol (as Moodle's h5p-resizer.js does), one that speaks only Canvas's
lti.frameResize, a frame inside a collapsed block opened later, and the fullscreen button."""
import time

import pytest

from tests.conftest import LiveServer

pytestmark = pytest.mark.browser

# The embed's height as it reports it (static/js/main.js): its body's, with the body's margins.
BODY_HEIGHT = """() => { const b = document.body, cs = getComputedStyle(b);
  return Math.ceil(b.getBoundingClientRect().height + parseFloat(cs.marginTop) + parseFloat(cs.marginBottom)); }"""

# Moodle's resizer pads the frame below the content it reports (75 px); the frame then shows all of
# the content and does not scroll inside.
H5P_PAD = 75

# A host written from H5P's protocol: it answers "hello", answers "prepareResize" with a provisional
# height and "resizePrepared", sets the height on "resize", and asks every frame to resize when its
# own window resizes. It knows nothing of specdec's messages.
H5P_HOST = """
window.addEventListener('message', function (e) {
  var d = e.data;
  if (!d || d.context !== 'h5p') return;
  var frames = document.getElementsByTagName('iframe'), f = null;
  for (var i = 0; i < frames.length; i++) if (frames[i].contentWindow === e.source) f = frames[i];
  if (!f) return;
  var respond = function (action) { e.source.postMessage({context: 'h5p', action: action}, e.origin); };
  if (d.action === 'hello') {
    f.style.width = '100%';
    window.addEventListener('resize', function () { respond('resize'); });
    f.dataset.hello = '1';
    respond('hello');
  } else if (d.action === 'prepareResize') {
    if (f.clientHeight !== d.scrollHeight || d.scrollHeight !== d.clientHeight) {
      f.style.height = (d.clientHeight + PAD) + 'px';
      respond('resizePrepared');
    }
  } else if (d.action === 'resize') {
    f.style.height = (d.scrollHeight + PAD) + 'px';
    f.dataset.resized = String(+(f.dataset.resized || 0) + 1);
  }
});
""".replace("PAD", str(H5P_PAD))

# Canvas: a JSON string (or an object) with subject "lti.frameResize" and a height.
CANVAS_HOST = """
window.addEventListener('message', function (e) {
  var d = e.data;
  if (typeof d === 'string') { try { d = JSON.parse(d); } catch (err) { return; } }
  if (!d || d.subject !== 'lti.frameResize') return;
  var frames = document.getElementsByTagName('iframe');
  for (var i = 0; i < frames.length; i++) if (frames[i].contentWindow === e.source) {
    var h = d.height;
    frames[i].style.height = (typeof h === 'number' ? h + 'px' : h);
    frames[i].dataset.resized = String(+(frames[i].dataset.resized || 0) + 1);
  }
});
"""


def host(body: str, script: str = "", script_src: str = ""):
    scripts = (f"<script>{script}</script>" if script else "") + (
        f'<script src="{script_src}"></script>' if script_src else "")
    html = f"""<!doctype html><html><head><meta charset="utf-8"><title>Course</title></head>
<body style="margin:0 8px"><h1>A course page</h1>{body}{scripts}</body></html>""".encode()

    def app(environ, start_response):
        start_response("200 OK", [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(html)))])
        return [html]
    return app


def frame_tag(url, anchor, extra=""):
    return (f'<iframe id="f-{anchor}" src="{url}/embed/en/specdec/{anchor}/" title="{anchor}" width="100%" '
            f'height="300" style="border:0" {extra}></iframe>')


def fits(pg, anchor, pad_max, timeout_s=20):
    """Wait until the frame shows all its content (box ≥ content, ≤ content + pad_max) and stays so."""
    frame = next(f for f in pg.frames if f"/embed/en/specdec/{anchor}/" in f.url)
    frame.wait_for_selector("html[data-ready='1']", state="attached", timeout=30_000)
    deadline = time.time() + timeout_s
    while True:
        box = pg.evaluate("(id) => document.getElementById(id).getBoundingClientRect().height", f"f-{anchor}")
        content = frame.evaluate(BODY_HEIGHT)
        if content - 1 <= box <= content + pad_max + 1:
            pg.wait_for_timeout(400)
            if pg.evaluate("(id) => document.getElementById(id).getBoundingClientRect().height", f"f-{anchor}") == box:
                return round(box), content, frame
        if time.time() > deadline:
            raise AssertionError(f"{anchor}: frame {box}, content {content}")
        pg.wait_for_timeout(200)


def test_h5p_host_sizes_our_frames(browser, live_url):
    body = frame_tag(live_url, "tape") + '<p style="height:1500px">Week 2.</p>' + frame_tag(live_url, "exact")
    with LiveServer(host(body, H5P_HOST)) as srv:
        ctx = browser.new_context(viewport={"width": 1000, "height": 800})
        pg = ctx.new_page()
        pg.goto(srv.url)
        wide = {a: fits(pg, a, H5P_PAD) for a in ("tape", "exact")}
        for a, (box, content, frame) in wide.items():
            assert box == content + H5P_PAD, (a, box, content)
            assert frame.evaluate("() => document.documentElement.scrollHeight <= innerHeight + 1")
            assert pg.get_attribute(f"#f-{a}", "data-hello") == "1"
        # The host's window narrows (a phone): it asks the frames to resize; they grow to fit.
        pg.set_viewport_size({"width": 400, "height": 800})
        narrow = {a: fits(pg, a, H5P_PAD) for a in ("tape", "exact")}
        for a in wide:
            assert narrow[a][1] > wide[a][1]
            assert narrow[a][0] == narrow[a][1] + H5P_PAD
        ctx.close()


def test_canvas_host_sizes_our_frames(browser, live_url):
    body = frame_tag(live_url, "tape") + frame_tag(live_url, "onebyone")
    with LiveServer(host(body, CANVAS_HOST)) as srv:
        ctx = browser.new_context(viewport={"width": 1000, "height": 800})
        pg = ctx.new_page()
        pg.goto(srv.url)
        wide = {a: fits(pg, a, 0) for a in ("tape", "onebyone")}
        pg.set_viewport_size({"width": 400, "height": 800})
        narrow = {a: fits(pg, a, 0) for a in ("tape", "onebyone")}
        # The content's own height, not the frame's: it grows on a phone and shrinks back.
        assert all(narrow[a][1] > wide[a][1] for a in wide)
        pg.set_viewport_size({"width": 1000, "height": 800})
        back = {a: fits(pg, a, 0) for a in ("tape", "onebyone")}
        assert all(abs(back[a][1] - wide[a][1]) <= 2 for a in wide)
        ctx.close()


def test_frame_in_collapsed_block_lays_out_when_opened(browser, live_url):
    body = f'<details id="week"><summary>Week 3</summary>{frame_tag(live_url, "idle")}</details>'
    with LiveServer(host(body, script_src=f"{live_url}/static/js/embed-host.js")) as srv:
        ctx = browser.new_context(viewport={"width": 1000, "height": 800})
        pg = ctx.new_page()
        pg.goto(srv.url)
        frame = next(f for f in pg.frames if "/embed/en/specdec/idle/" in f.url)
        frame.wait_for_selector("html[data-ready='1']", state="attached", timeout=30_000)
        pg.wait_for_timeout(500)
        # Hidden, it has no width and reports nothing (a height measured one word wide is useless).
        assert pg.get_attribute("#f-idle", "data-specdec-height") is None
        pg.click("#week summary")
        box, content, frame = fits(pg, "idle", 0)
        assert 300 < content < 5000
        # Its chart, drawn once shown, takes the frame's width, not the zero width it had.
        frame.locator('[data-plot="idle"]').scroll_into_view_if_needed()
        frame.wait_for_selector(".js-plotly-plot", timeout=30_000)
        chart_w = frame.evaluate("() => document.querySelector('.js-plotly-plot').getBoundingClientRect().width")
        assert chart_w > 500
        box, content, frame = fits(pg, "idle", 0)
        ctx.close()


def test_fullscreen_button_only_where_the_frame_allows_it(browser, live_url):
    body = (frame_tag(live_url, "tape", 'allow="fullscreen" allowfullscreen')
            + frame_tag(live_url, "exact"))
    with LiveServer(host(body)) as srv:
        ctx = browser.new_context(viewport={"width": 1000, "height": 800})
        pg = ctx.new_page()
        pg.goto(srv.url)
        shown = {}
        for a in ("tape", "exact"):
            frame = next(f for f in pg.frames if f"/embed/en/specdec/{a}/" in f.url)
            frame.wait_for_selector("html[data-ready='1']", state="attached", timeout=30_000)
            shown[a] = frame.evaluate("() => !document.getElementById('embed-fullscreen').hidden")
        assert shown == {"tape": True, "exact": False}
        frame = next(f for f in pg.frames if "/embed/en/specdec/tape/" in f.url)
        assert frame.text_content("#embed-fullscreen").strip() == "Full screen"
        ctx.close()
