"""The page's shared controls and keys, as a classroom meets them (issue 15): every slider has a
typed box beside it and room to grab, the batch sliders move over the same doubling stops, a
drop-down shows its whole label on a phone, Space scrolls the page unless a widget that plays has
focus, and the keyboard hint says so (and is not shown on a touch screen)."""
from __future__ import annotations

import pytest

from sim.params import BATCH_STOPS, PAGE
from tests.browser.util import open_fold

pytestmark = pytest.mark.browser

LANGS = ("en", "zh")


def _open(browser, live_url, path, width=1280, height=900, **kw):
    ctx = browser.new_context(viewport={"width": width, "height": height}, **kw)
    page = ctx.new_page()
    page.goto(live_url + path)
    page.wait_for_selector("html[data-ready='1']", state="attached", timeout=30_000)
    return ctx, page


# ---- sliders ----------------------------------------------------------------------------------------

# The page's parameters and the predictions' guesses; the machine's time slider sets no value of
# the state (Step, Play and its arrow keys move it without dragging) and is checked on its own.
# Sliders shown at this depth (a Story question's guess slider is not laid out at the Picture depth).
SLIDERS = """() => [...document.querySelectorAll('main input[type=range]:not([data-machine-time])')]
  .filter(r => r.getClientRects().length).map(r => {
  const typed = r.closest('.slider-row')?.querySelector('input[type=number]');
  const a = r.getBoundingClientRect(), b = typed?.getBoundingClientRect();
  return {id: r.id, param: r.dataset.param, max: Number(r.max), width: a.width, height: a.height,
          typed: typed ? {param: typed.dataset.param, label: typed.getAttribute('aria-label') || '',
                          height: b.height, width: b.width, beside: b.left >= a.right - 1
                          && Math.abs((b.top + b.bottom) / 2 - (a.top + a.bottom) / 2) < 12} : null};
})"""


@pytest.mark.parametrize("width, least", [(1280, 24), (390, 40)])
def test_every_slider_has_a_typed_box_beside_it_and_room_to_grab(browser, live_url, width, least):
    ctx, page = _open(browser, live_url, "/en/specdec/", width=width, height=844)
    # Sliders in the sections' "Go further" folds count too: open the folds as a reader does.
    for fold in page.evaluate("() => [...document.querySelectorAll('main details.further')].map(d => d.id)"):
        open_fold(page, fold)
    sliders = page.evaluate(SLIDERS)
    assert len(sliders) >= 10
    for s in sliders:
        # WCAG 2.2 2.5.7: a way to set the value without dragging, beside the slider, named alike.
        assert s["typed"] and s["typed"]["param"] == s["param"] and s["typed"]["beside"], s
        assert s["typed"]["label"], s
        # 2.5.8: at least 24 px to aim at; 40 px on a phone, for a finger.
        assert s["height"] >= least and s["typed"]["height"] >= least, s
        if width == 390:
            # A track of its own row, so every stop is a visible step (batch: 20 stops).
            assert s["width"] >= 200, s
    # The machine's time within a pass is named by its label.
    times = page.evaluate("""() => [...document.querySelectorAll('main input[type=range][data-machine-time]')]
      .map(r => (r.closest('label')?.textContent || '').trim())""")
    assert times and all(times), times
    ctx.close()


def test_batch_sliders_move_over_the_same_doubling_stops(browser, live_url):
    ctx, page = _open(browser, live_url, "/en/specdec/")
    batch = page.locator("main input[type=range][data-param=batch]")
    ids = batch.evaluate_all("rs => rs.map(r => r.id)")
    assert {"batch-batch", "idle-batch", "bench-batch"} <= set(ids)
    assert PAGE["batch"].stops == BATCH_STOPS
    assert set(batch.evaluate_all("rs => rs.map(r => Number(r.max))")) == {len(BATCH_STOPS) - 1}
    # The bench's slider, moved stop by stop, writes each stop (as sections 2 and 9 do).
    bench = page.locator("#bench-batch")
    bench.scroll_into_view_if_needed()
    for i in (0, 7, 12, len(BATCH_STOPS) - 1):
        bench.evaluate("(r, i) => { r.value = String(i); r.dispatchEvent(new Event('input', {bubbles: true})); }", i)
        assert page.locator("#bench-batch-typed").input_value() == str(BATCH_STOPS[i])
        assert page.locator("#batch-batch").input_value() == str(i)   # section 2's moved with it
    # A typed value between stops is kept, and the slider shows the nearest stop.
    page.locator("#bench-batch-typed").fill("100")
    page.locator("#bench-batch-typed").press("Enter")
    assert "batch=100" in page.url
    assert bench.input_value() == str(BATCH_STOPS.index(96))
    ctx.close()


# ---- drop-downs on a phone ---------------------------------------------------------------------------

# Every option of every drop-down shown in turn (without telling the page: no change event), and
# whether its label shows whole: a drop-down the browser draws itself must be as wide as its
# longest option needs (measured on an unconstrained copy); one the page styles
# (appearance: base-select) may wrap its label onto more lines, but nothing may overflow it.
SELECT_LABELS = """() => {
  const cut = [];
  for (const s of document.querySelectorAll('main select')) {
    if (!s.getClientRects().length) continue;
    const keep = s.selectedIndex;
    const base = getComputedStyle(s).appearance === 'base-select';
    for (let i = 0; i < s.options.length; i++) {
      s.selectedIndex = i;
      const r = s.getBoundingClientRect();
      let whole;
      if (base) whole = s.scrollWidth <= s.clientWidth + 1 && s.scrollHeight <= s.clientHeight + 1;
      else {
        const copy = s.cloneNode(true); copy.removeAttribute('id');
        copy.style.cssText = 'position:absolute; visibility:hidden; width:auto; min-width:0; max-width:none; flex:none';
        s.parentElement.appendChild(copy);
        whole = r.width >= copy.getBoundingClientRect().width - 0.5;
        copy.remove();
      }
      if (!whole || r.right > innerWidth || r.left < 0) cut.push(`${s.id}: ${s.options[i].text} (${Math.round(r.width)} px)`);
    }
    s.selectedIndex = keep;
  }
  return cut;
}"""


@pytest.mark.parametrize("lang", LANGS)
def test_every_drop_down_label_shows_whole_on_a_phone(browser, live_url, lang):
    ctx, page = _open(browser, live_url, f"/{lang}/specdec/", width=390, height=844)
    assert page.locator("main select").count() >= 20
    assert page.evaluate(SELECT_LABELS) == []
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    ctx.close()


# ---- keys ------------------------------------------------------------------------------------------

# Sections whose widget plays (→ step, space play or pause, R reset): what "playing" looks like.
PLAYERS = {
    "onebyone": "() => document.querySelector('#onebyone .widget[data-widget]').dataset.paused === '1'",
    "draft": "() => !!document.querySelector('#draft [data-act=play][aria-pressed=true]')",
    "tape": "() => !!document.querySelector('#tape [data-act=play][aria-pressed=true]')",
    "rule": "() => !!document.querySelector('#rule [data-act=play][aria-pressed=true]')",
    # Space pours one round more than the default (sim.params ROUNDS).
    "exact": f"() => /[?&]rounds={PAGE['rounds'].default + 1}(&|$)/.test(location.search)",
    "trees": "() => !!document.querySelector('#trees [data-act=play][aria-pressed=true]')",
    "bench": "() => !!document.querySelector('#bench [data-act=play][aria-pressed=true]')",
}


def test_every_section_that_plays_is_checked(browser, live_url):
    ctx, page = _open(browser, live_url, "/en/specdec/")
    with_play = page.evaluate("() => [...document.querySelectorAll('.plate-section')]"
                              ".filter(s => s.querySelector('[data-act=play]')).map(s => s.id)")
    assert set(with_play) <= set(PLAYERS), set(with_play) - set(PLAYERS)
    ctx.close()


@pytest.mark.parametrize("anchor", sorted(PLAYERS))
def test_space_scrolls_unless_a_widget_that_plays_has_focus(browser, live_url, anchor):
    ctx, page = _open(browser, live_url, "/en/specdec/")
    played = PLAYERS[anchor]
    page.evaluate("(a) => { document.getElementById(a).scrollIntoView({block: 'start', behavior: 'instant'}); "
                  "document.activeElement?.blur(); }", anchor)
    page.wait_for_timeout(200)
    # Nothing focused, the section in view: Space scrolls the page and plays nothing.
    y = page.evaluate("scrollY")
    page.keyboard.press(" ")
    page.wait_for_timeout(500)
    assert page.evaluate("scrollY") > y + 100, f"{anchor}: Space did not scroll"
    assert not page.evaluate(played), f"{anchor}: Space played with nothing focused"
    assert page.locator("[data-act=play][aria-pressed=true]").count() == 0
    # The widget focused: Space plays it and the page stays where it is.
    widget = page.locator(f"#{anchor} .widget[data-widget]").first
    widget.focus()
    page.wait_for_timeout(800)   # focusing may scroll it into view, smoothly
    y = page.evaluate("scrollY")
    page.keyboard.press(" ")
    # Played once the key's handler has run (a busy page, a machine starting, may take a while).
    page.wait_for_function(played, timeout=10000)
    assert abs(page.evaluate("scrollY") - y) < 2
    ctx.close()


@pytest.mark.parametrize("lang", LANGS)
def test_keyboard_hint_says_keys_work_in_the_focused_widget_and_hides_on_touch(browser, live_url, lang):
    ctx, page = _open(browser, live_url, f"/{lang}/specdec/")
    hint = page.locator(".keys-hint")
    assert hint.is_visible()
    text = hint.inner_text()
    # It says where the keys act (the widget with focus, reached by Tab), not "the section you are in".
    assert "Tab" in text and ("focus" in text if lang == "en" else "选中" in text), text
    assert "bench" not in text and "实验台" not in text, text
    ctx.close()
    for kw in ({"has_touch": True, "is_mobile": True}, {"has_touch": True}):
        ctx, page = _open(browser, live_url, f"/{lang}/specdec/", width=390, height=844, **kw)
        assert page.evaluate("matchMedia('(hover: none) and (pointer: coarse)').matches")
        assert not page.locator(".keys-hint").is_visible()
        ctx.close()
    # A narrow window with a mouse still has keys: the hint stays.
    ctx, page = _open(browser, live_url, f"/{lang}/specdec/", width=390, height=844)
    assert page.locator(".keys-hint").is_visible()
    ctx.close()
