#!/usr/bin/env bash
# One command installs everything specdec needs on a fresh Debian machine:
# nginx (serve.sh puts it in front of gunicorn), redis-server (the tests start one; a class on
# several machines shares texts through one), Chromium (browser tests, screenshots), CJK fonts
# (so Chinese pages render in tests), wrk (the load benchmark), the Python package with its test
# extra, and compiled catalogs.
set -euo pipefail
cd "$(dirname "$0")"

need=()
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || need+=(nginx)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v wrk >/dev/null 2>&1 || need+=(wrk)
fc-list 2>/dev/null | grep -qi "Noto Sans CJK" || need+=(fonts-noto-cjk)
if [ ${#need[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  # nginx and redis-server are only run by serve.sh and the tests, on ports of their own: keep
  # the packages from starting system-wide services on ports 80 and 6379 as they install.
  policy=/usr/sbin/policy-rc.d
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
    $sudo chmod +x "$policy"
    trap '$sudo rm -f "$policy"' EXIT
  fi
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

python3 -m pip install -q --disable-pip-version-check -e '.[test]'

# axe-core (accessibility checks in tests/browser/test_a11y.py), pinned in package.json.
command -v npm >/dev/null 2>&1 || { sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq; $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends npm; }
npm ci --no-audit --no-fund --silent

# Compiled catalogs (.mo) are build products: made here from the committed .po files.
if compgen -G "translations/*/LC_MESSAGES/messages.po" >/dev/null; then
  pybabel -q compile -d translations
fi
