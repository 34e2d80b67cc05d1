#!/usr/bin/env bash
# Run specdec: install whatever is missing (install.sh; about a second when nothing is), then
# serve it as a classroom is served (serve.sh): http://127.0.0.1:5000/en/specdec/
# Arguments go to gunicorn (e.g. `--workers 3`), except `--bind HOST:PORT`, the address nginx
# serves: `bash run.sh --bind 127.0.0.1:8000`. A port already in use is refused at once.
set -euo pipefail
cd "$(dirname "$0")"
bash install.sh
# Where the system's python3 takes no packages, install.sh put them in .venv/.
if [ -x .venv/bin/python3 ]; then export PATH="$PWD/.venv/bin:$PATH"; fi
exec ./serve.sh "$@"
