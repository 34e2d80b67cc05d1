#!/usr/bin/env bash
# Start the app as a classroom is served (gunicorn reads gunicorn.conf.py). The README's run
# command installs what is missing first, then calls this.
set -euo pipefail
cd "$(dirname "$0")"
exec gunicorn 'app:create_app()' "$@"
