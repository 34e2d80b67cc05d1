"""How the benchmarks and the browser tests start Debian's Chromium (``playwright install`` cannot
download here): its paths and its switches, written once.

Every browser context Playwright opens is a window of its own, and Chromium 156 preloads that
window's omnibox popups (two WebUI pages, ``chrome://omnibox-popup.top-chrome/``) in a renderer of
their own: about 0.7 s of CPU per context, more than rendering the whole plate (0.3-0.8 s), for
a popup no page here opens (measured 3 December 2026; the suite opens some 450 contexts). Chromium
keeps only the last ``--disable-features`` it is given, and Playwright passes its own list first,
so ours repeats Playwright's.
"""
from __future__ import annotations

import os

CHROMIUM = "/usr/bin/chromium"
# Debian's chromium-headless-shell, built from the same source as CHROMIUM: the same Blink and V8
# without the browser's windows, tabs and WebUI. Loading the plate in a new context costs about
# 1.0 s of CPU there against 1.6 s in CHROMIUM, most of the difference in the browser process
# (0.23 s against 0.58 s; measured 3 December 2026, five loads each). The tests use it where it is
# installed (install.sh tries to); the benchmarks measure the browser a reader has, CHROMIUM.
HEADLESS_SHELL = "/usr/bin/chromium-headless-shell"


def for_tests() -> str:
    """The headless shell if it is installed, else Chromium."""
    return HEADLESS_SHELL if os.path.exists(HEADLESS_SHELL) else CHROMIUM

# Playwright 1.65's own list (playwright-core's chromiumSwitches.ts), kept when ours replaces it.
PLAYWRIGHT_DISABLED = (
    "AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable", "LensOverlay", "MediaRouter", "PaintHolding",
    "ThirdPartyStoragePartitioning", "AvoidCorsURLLoaderRestartOnRedirect", "TcpPortRandomizationWin",
    "OptimizationHints", "NetworkTimeServiceQuerying", "AimEnabled", "PreconnectToSearch",
)
OURS_DISABLED = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup")
_COMMON = ["--headless", "--no-sandbox", "--disable-background-networking",
           "--disable-features=" + ",".join(PLAYWRIGHT_DISABLED + OURS_DISABLED)]

# No WebGL: the bench's machine shows its 2D diagram, as a reader's browser without WebGL does.
PLAIN = _COMMON + ["--disable-gpu", "--disable-3d-apis"]
# WebGL in software (SwiftShader), for the machine itself.
SWIFTSHADER = _COMMON + ["--use-angle=swiftshader", "--use-gl=angle", "--enable-unsafe-swiftshader"]
# The pages as a reader's browser has them, WebGL allowed, drawn without a GPU (page weight).
NO_GPU = _COMMON + ["--disable-gpu"]
