"""Accessibility in headless Chromium: axe-core on both languages and the embeds, keyboard
reach and a visible focus indicator on every control, and prefers-reduced-motion.

axe-core comes from the npm registry (package.json, installed by install.sh into node_modules/).
It is evaluated through the DevTools protocol (page.evaluate), which the page's CSP does not
govern, so the page keeps its real, strict policy during the test.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser.util import MACHINES_SETTLED, settle
from views.sections import ANCHORS

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"

FULL_PAGES = ["/en/specdec/", "/zh/specdec/", "/embed/en/specdec/", "/embed/zh/specdec/"]
# The depths show other blocks (Story hides the formulas, Frontier adds notes): their headings too.
DEPTH_PAGES = ["/en/specdec/?depth=story", "/zh/specdec/?depth=frontier"]
SECTION_EMBEDS = [f"/embed/{lang}/specdec/{a}/" for lang in ("en", "zh") for a in ANCHORS]


@pytest.fixture(scope="module")
def axe_source() -> str:
    if not AXE.exists():
        pytest.skip("axe-core is not installed: run `npm ci` (install.sh does)")
    return AXE.read_text()


# Generous waits, not speed checks: a whole page with every fold open asks for every section's
# answer, which took over 20 s on a loaded 2-core machine.
WAIT_MS = 90_000


def open_ready(page, url: str) -> None:
    page.goto(url, timeout=WAIT_MS)
    # main.js sets data-ready once every widget has mounted (or failed and said so).
    page.wait_for_selector("html[data-ready='1']", state="attached", timeout=WAIT_MS)
    # Audit the settled page: widgets still fetching (one widget's measured α updates another's
    # state right after mounting) are mid-change.
    page.wait_for_function("() => !document.querySelector('[aria-busy=\"true\"], [data-loading]')",
                           timeout=WAIT_MS)
    page.wait_for_function(MACHINES_SETTLED, timeout=WAIT_MS)


# Roles and heading levels, whatever axe's impact: a label on an element whose role takes none
# (a <div> with aria-label and no role is ignored by screen readers; axe only asks for a review,
# "incomplete"), a heading that skips a level (an embed's h1 straight to a fold's h3), a page
# without an h1. These fail when axe flags them or asks for a review.
ROLES_AND_HEADINGS = ("aria-prohibited-attr", "aria-allowed-attr", "aria-allowed-role", "aria-roles",
                      "aria-required-attr", "aria-required-children", "aria-required-parent",
                      "aria-valid-attr", "heading-order", "page-has-heading-one", "empty-heading",
                      "landmark-one-main", "landmark-unique")


def audit(page, axe_source: str) -> dict[str, list[str]]:
    """{"serious": serious or critical violations, "roles": anything of ROLES_AND_HEADINGS flagged
    or left for review}, from one run of axe."""
    page.evaluate(axe_source)
    result = page.evaluate("""async (rules) => {
        const r = await axe.run(document, {resultTypes: ["violations", "incomplete"]});
        const row = (v, kind) => ({id: v.id, kind, impact: v.impact, help: v.help,
            nodes: v.nodes.slice(0, 4).map(n => n.target.join(" ") + " :: " +
                                                (n.failureSummary || "").split("\\n")[1])});
        return [...r.violations.map(v => row(v, "violation")),
                ...r.incomplete.filter(v => rules.includes(v.id)).map(v => row(v, "review"))];
    }""", list(ROLES_AND_HEADINGS))
    say = lambda v: f"{v['id']} ({v['impact']}, {v['kind']}): {v['help']} -> {v['nodes']}"  # noqa: E731
    return {"serious": [say(v) for v in result if v["kind"] == "violation" and v["impact"] in ("serious", "critical")],
            "roles": [say(v) for v in result if v["id"] in ROLES_AND_HEADINGS]}


def serious_violations(page, axe_source: str) -> list[str]:
    return audit(page, axe_source)["serious"]


def open_every_fold(page) -> None:
    """Open every "Go further" fold (and any other <details>), so what they hold is audited too,
    and wait until the sections they wake have their numbers."""
    page.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
    page.wait_for_function("() => !document.querySelector('[aria-busy=\"true\"], [data-loading]')",
                           timeout=WAIT_MS)
    page.wait_for_function(MACHINES_SETTLED, timeout=WAIT_MS)


@pytest.mark.parametrize("path", FULL_PAGES + DEPTH_PAGES + SECTION_EMBEDS)
def test_no_serious_axe_violations_and_every_role_and_heading_level_right(page, live_url, axe_source, path):
    """Every section (the whole page, each depth's headings, every one-section embed, both
    languages), folds open: no serious violation, and no role or heading level axe flags."""
    open_ready(page, live_url + path)
    open_every_fold(page)
    found = audit(page, axe_source)
    assert not found["serious"], "\n".join(found["serious"])
    assert not found["roles"], "\n".join(found["roles"])


# ---- keyboard ------------------------------------------------------------------------------------

_MARK_FOCUSABLES = """() => {
  const sel = 'a[href], button:not([disabled]), input:not([disabled]):not([type=hidden]), ' +
              'select:not([disabled]), textarea:not([disabled]), summary, [tabindex]';
  const sig = (el) => {
    const cs = getComputedStyle(el);
    let s = [cs.outlineStyle, cs.outlineWidth, cs.outlineColor, cs.boxShadow,
             cs.backgroundColor, cs.borderColor, cs.textDecorationLine, cs.color].join('|');
    const shape = el.querySelector('rect, circle, path, ellipse');
    if (shape) { const k = getComputedStyle(shape); s += '|' + k.stroke + k.strokeWidth + k.fill; }
    return s;
  };
  window.__sig = sig;
  const out = [];
  document.querySelectorAll(sel).forEach((el, i) => {
    if (el.tabIndex < 0 || el.closest('[inert], [hidden]')) return;
    const r = el.getBoundingClientRect();
    if (!el.getClientRects().length || r.width * r.height === 0) return;
    if (getComputedStyle(el).visibility === 'hidden') return;
    el.dataset.a11y = String(i);
    // A radio group is one Tab stop (arrows move inside it): reaching any radio reaches the group.
    const group = el.type === 'radio' && el.name ? 'radio:' + (el.form ? el.form.id : '') + el.name : String(i);
    el.dataset.a11yGroup = group;
    if (out.some(o => o.group === group)) { out.find(o => o.group === group).members.push([String(i), sig(el)]); return; }
    out.push({i: String(i), group, members: [[String(i), sig(el)]], unfocused: sig(el),
              label: el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ')[0] : '') +
                     ' "' + (el.getAttribute('aria-label') || el.textContent || '').trim().slice(0, 30) + '"'});
  });
  return out;
}"""


@pytest.mark.parametrize("path", [f"/embed/en/specdec/{a}/" for a in ANCHORS] + ["/en/specdec/"])
def test_every_control_is_reached_by_tab_and_shows_focus(page, live_url, path):
    open_ready(page, live_url + path)
    # Controls in the sections' "Go further" folds are reached once their fold is open (the
    # fold's summary is itself a control): open them all, through the URL's `more`, which keeps
    # the sequential focus starting at the top of the page.
    folds = page.evaluate("() => [...document.querySelectorAll('details.further')].map(d => d.id)")
    if folds:
        open_ready(page, live_url + path + ("&" if "?" in path else "?") + "more=" + ",".join(folds))
        assert page.evaluate("() => [...document.querySelectorAll('details.further')].every(d => d.open)")
    # Parts load when they come near the view (a fold's study, its chart) and replace their live
    # text when they answer: bring each near the view and let it answer before marking, or the
    # Tab walk itself loads one and the marked element is gone. Every chart is asked for too (as the
    # Embed dialog's preview asks): a chart drawn replaces its fallback table, and one whose
    # observer had not yet fired when the page settled drew during the walk (CI, 3 Dec 2026).
    page.evaluate("""async () => {
        document.dispatchEvent(new Event('specdec:draw-charts'));
        for (const el of document.querySelectorAll('details.further, .live')) {
            el.scrollIntoView({block: 'center'});
            await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
        }
        window.scrollTo(0, 0);
    }""")
    settle(page, timeout=90)
    page.evaluate("document.activeElement && document.activeElement.blur()")
    controls = page.evaluate(_MARK_FOCUSABLES)
    if not controls:
        pytest.skip(f"{path} has no focusable control yet")
    unfocused = {i: sig for c in controls for i, sig in c["members"]}
    group_of = {i: c["group"] for c in controls for i, _sig in c["members"]}
    label_of = {i: c["label"] for c in controls for i, _sig in c["members"]}
    reached, no_ring = set(), []
    for _ in range(len(controls) + 15):
        page.keyboard.press("Tab")
        info = page.evaluate("""() => { const el = document.activeElement;
            return el && el.dataset && el.dataset.a11y !== undefined
                ? {i: el.dataset.a11y, focused: window.__sig(el)} : null; }""")
        if info is None:
            continue
        group = group_of[info["i"]]
        if group in reached:
            break  # wrapped around
        reached.add(group)
        if info["focused"] == unfocused[info["i"]]:
            no_ring.append(label_of[info["i"]])
    missed = [c["label"] for c in controls if c["group"] not in reached]
    assert not missed, f"not reachable with Tab: {missed}"
    assert not no_ring, f"no visible focus indicator: {no_ring}"


# ---- reduced motion ------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["en", "zh"])
def test_reduced_motion_is_honoured(browser, live_url, lang):
    context = browser.new_context(viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
    page = context.new_page()
    try:
        open_ready(page, f"{live_url}/{lang}/specdec/")
        assert page.evaluate("matchMedia('(prefers-reduced-motion: reduce)').matches")
        # Drive every widget once: focus it and press the step and play keys.
        for sel in page.evaluate("""() => [...document.querySelectorAll('[data-widget]')]
                                     .map((el, i) => (el.dataset.rmIdx = i, `[data-rm-idx="${i}"]`))"""):
            el = page.locator(sel)
            el.scroll_into_view_if_needed()
            page.evaluate("(s) => document.querySelector(s).dispatchEvent(new CustomEvent("
                          "'specdec:key', {detail: {action: 'step'}}))", sel)
            page.evaluate("(s) => document.querySelector(s).dispatchEvent(new CustomEvent("
                          "'specdec:key', {detail: {action: 'play'}}))", sel)
        page.wait_for_timeout(300)
        moving = page.evaluate("""() => {
          const out = [];
          for (const a of document.getAnimations()) {
            const t = a.effect && a.effect.getComputedTiming();
            if (a.playState === 'running' && t && t.duration > 10)
              out.push((a.animationName || a.transitionProperty || 'animation') + ' on ' +
                       (a.effect.target ? a.effect.target.className : '?') + ' ' + t.duration + 'ms');
          }
          for (const el of document.querySelectorAll('*')) {
            const cs = getComputedStyle(el);
            const secs = (v) => Math.max(...v.split(',').map(x => parseFloat(x) * (x.trim().endsWith('ms') ? 0.001 : 1)));
            if (cs.animationName !== 'none' && secs(cs.animationDuration) > 0.01 && cs.animationIterationCount === 'infinite')
              out.push('infinite animation ' + cs.animationName + ' on ' + el.className);
          }
          return out;
        }""")
        assert not moving, moving
        assert page.evaluate("getComputedStyle(document.documentElement).scrollBehavior") != "smooth"
    finally:
        context.close()


def test_busy_and_loading_states_keep_full_contrast(page, live_url, axe_source):
    # While new numbers load, a section marks itself busy; the cue must not fade the text (axe
    # found 3.5:1 on section 9's readouts at 75 % opacity). Force the state on every section and
    # audit it.
    open_ready(page, live_url + "/en/specdec/")
    page.evaluate("""() => document.querySelectorAll('.plate-section[data-units]')
        .forEach(s => { if (s.dataset.units) s.setAttribute('aria-busy', 'true'); })""")
    faded = page.evaluate("""() => [...document.querySelectorAll('.plate-section[aria-busy] .live .num, .lab-tape')]
        .filter(e => { for (let n = e; n; n = n.parentElement) if (getComputedStyle(n).opacity !== '1') return true; })
        .map(e => e.className)""")
    assert faded == []
    assert page.evaluate("getComputedStyle(document.querySelector('.lab .lab-tape')).outlineStyle") == "dashed"
    assert page.evaluate("getComputedStyle(document.querySelector('#idle .live .num')).textDecorationStyle") == "dotted"
    found = [v for v in serious_violations(page, axe_source) if v.startswith("color-contrast")]
    assert not found, "\n".join(found)
