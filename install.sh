#!/usr/bin/env bash
# The one installer: whatever specdec needs on a Debian machine, each part only when it is
# missing, so that a run with nothing to do takes well under a second (checks, no pip resolve).
# run.sh and test.sh call it first.
#   Debian packages: nginx (serve.sh puts it in front of gunicorn), redis-server (the tests start
#     one; a class on several machines shares texts through one), Chromium (browser tests,
#     screenshots) and its headless shell (the browser tests' lighter browser, where it installs),
#     CJK fonts (Chinese pages render in the tests), wrk (the load benchmark), npm (axe-core);
#     python3 itself if missing.
#   Python packages: pyproject.toml's, with the test extra, into python3's environment, or into
#     .venv/ where that environment belongs to the system (PEP 668, e.g. Debian's own python3).
#   axe-core (tests/browser/test_a11y.py), pinned in package-lock.json, into node_modules/.
# The translation catalogs need no step: the app compiles them when it starts.
set -euo pipefail
cd "$(dirname "$0")"

have() { command -v "$1" >/dev/null 2>&1; }

# ---- Debian packages ------------------------------------------------------------------------
need=()
# want PACKAGE [COMMAND]: the Debian package, unless dpkg has it or COMMAND is on the PATH
# already (installed another way: this machine's npm, say). One line per package.
want() {
  if [ -n "${2:-}" ] && have "$2"; then return; fi
  dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null | grep -q '^ii' || need+=("$1")
}
want nginx nginx
# serve.sh bounds an upload's total time with nginx's Lua module (deploy/nginx.py says why).
want libnginx-mod-http-lua
want redis-server redis-server
want chromium chromium
# Optional: the browser tests use Chromium's headless shell where it is installed (about a third
# less CPU a page, bench/chromium.py) and chromium where not, so failing to install it only warns.
optional=()
dpkg-query -W -f='${db:Status-Abbrev}' chromium-headless-shell 2>/dev/null | grep -q '^ii' \
  || have chromium-headless-shell || optional+=(chromium-headless-shell)
want fonts-noto-cjk
want wrk wrk
want npm npm

# Python: Debian's python3 takes packages only in a virtual environment, and builds one only
# with python3-venv (which brings ensurepip).
externally_managed() {
  python3 - <<'EOF'
import os, sys, sysconfig
in_venv = sys.prefix != sys.base_prefix
marker = os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")
sys.exit(0 if not in_venv and os.path.exists(marker) else 1)
EOF
}
if ! have python3; then
  want python3; want python3-venv
elif [ ! -x .venv/bin/python3 ] && externally_managed && ! python3 -c 'import ensurepip' 2>/dev/null; then
  want python3-venv
fi

if [ ${#need[@]} -gt 0 ] || [ ${#optional[@]} -gt 0 ]; then
  echo "install.sh: Debian packages: ${need[*]} ${optional[*]}"
  if ! have apt-get; then
    if [ ${#need[@]} -gt 0 ]; then
      echo "install.sh: no apt-get here; install those yourself (browser tests skip without Chromium)" >&2
    fi
  else
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then
      have sudo || { echo "install.sh: run as root, or install sudo, to install: ${need[*]}" >&2; exit 1; }
      sudo=sudo
    fi
    # nginx and redis-server are only run by serve.sh and the tests, on ports of their own:
    # keep the packages from starting system-wide services on ports 80 and 6379 as they install.
    policy=/usr/sbin/policy-rc.d
    if [ ! -e "$policy" ]; then
      printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null
      $sudo chmod +x "$policy"
      trap '$sudo rm -f "$policy"' EXIT
    fi
    if [ ${#need[@]} -gt 0 ]; then
      $sudo apt-get update -qq
      $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
    fi
    if [ ${#optional[@]} -gt 0 ]; then
      { [ ${#need[@]} -gt 0 ] || $sudo apt-get update -qq; } &&
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${optional[@]}" ||
        echo "install.sh: could not install ${optional[*]}; the browser tests use chromium" >&2
    fi
  fi
fi

# ---- Python packages ------------------------------------------------------------------------
if [ -x .venv/bin/python3 ]; then
  py=.venv/bin/python3
elif externally_managed; then
  echo "install.sh: python3 belongs to the system: the Python packages go into .venv/"
  python3 -m venv .venv
  py=.venv/bin/python3
else
  py=python3
fi

# Every requirement of pyproject.toml (and its test extra) installed at an allowed version?
# Prints what is missing; any doubt (no `packaging` yet) counts as missing.
missing=$("$py" - <<'EOF' 2>&1 || true
import importlib.metadata as md
import tomllib
try:
    from packaging.requirements import Requirement
except ImportError:
    raise SystemExit("packaging")
with open("pyproject.toml", "rb") as f:
    project = tomllib.load(f)["project"]
out = []
for line in project["dependencies"] + project["optional-dependencies"]["test"]:
    req = Requirement(line)
    if req.marker and not req.marker.evaluate():
        continue
    try:
        ok = req.specifier.contains(md.version(req.name), prereleases=True)
    except md.PackageNotFoundError:
        ok = False
    if not ok:
        out.append(str(req))
print(" ".join(out))
EOF
)
if [ -n "$missing" ]; then
  echo "install.sh: Python packages (missing: $missing)"
  "$py" -m pip install -q --disable-pip-version-check -e '.[test]'
fi

# ---- axe-core -------------------------------------------------------------------------------
# Every package of package-lock.json in node_modules/ at its locked version?
if ! "$py" - <<'EOF'
import json, pathlib, sys
lock = json.loads(pathlib.Path("package-lock.json").read_text())
for path, meta in lock["packages"].items():
    manifest = pathlib.Path(path, "package.json")
    if path and not meta.get("optional") and (
            not manifest.is_file() or json.loads(manifest.read_text())["version"] != meta["version"]):
        sys.exit(1)
EOF
then
  echo "install.sh: npm packages (package-lock.json)"
  npm ci --no-audit --no-fund --silent
fi
