#!/usr/bin/env bash
# Run the tests: install whatever is missing (install.sh; about a second when nothing is), then
# pytest with these arguments:
#   bash test.sh                                  # the whole suite
#   bash test.sh -m "not browser and not slow"    # the fast loop
set -euo pipefail
cd "$(dirname "$0")"
bash install.sh
# Where the system's python3 takes no packages, install.sh put them in .venv/.
if [ -x .venv/bin/python3 ]; then export PATH="$PWD/.venv/bin:$PATH"; fi
# Python keeps the modules it compiles (__pycache__/, ignored by git), even where the environment
# says not to (PYTHONDONTWRITEBYTECODE, set on the machines this project is built on): otherwise
# each of pytest's three processes compiles the project and rewrites the tests' asserts afresh
# on every run, about 2 s of CPU each.
unset PYTHONDONTWRITEBYTECODE
# Two workers (pytest-xdist), one per core of the machine this project runs on;
# SPECDEC_TEST_WORKERS=0 runs in one process (for -x, pdb, or a machine with one core).
exec python3 -m pytest -n "${SPECDEC_TEST_WORKERS:-2}" "$@"
