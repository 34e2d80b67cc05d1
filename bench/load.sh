#!/usr/bin/env bash
# Load benchmark: the production server (./serve.sh: nginx in front of gunicorn; or gunicorn
# alone with gunicorn.conf.py when LOAD_SERVER=gunicorn) on a free loopback port, driven by wrk
# at high concurrency for a bounded time per target, in one run:
#   plate      the whole page (/en/specdec/)
#   embed      one section's embed (/embed/zh/specdec/tape/)
#   api        a widget's /api/run request (the same URL every time: served from the cache)
#   api-fresh  /api/run with a new seed on every request (real model work, nothing cached)
#   static     a static file with the plate's exact bytes, served by the same server
# (api-fresh runs last: it fills the models' bounded distribution caches, so memory growth
# from the other targets shows on its own.)
# Prints requests/s, latency percentiles and errors per target, the plate's rate as a share of
# the static file's, the server's memory (RSS, master + workers) before and after, and the
# CPU time of the largest allowed API requests (bench/cpu.py).
#
# Usage: bench/load.sh [SECONDS_PER_TARGET (10, max 60)] [CONNECTIONS (256, max 1000)]
# Only 127.0.0.1 is ever contacted; the server is stopped on exit, whatever happens.
set -euo pipefail
cd "$(dirname "$0")/.."

DUR="${1:-10}"
CONN="${2:-256}"
[[ "$DUR" =~ ^[0-9]+$ && "$DUR" -ge 1 && "$DUR" -le 60 ]] || { echo "seconds: 1..60" >&2; exit 2; }
[[ "$CONN" =~ ^[0-9]+$ && "$CONN" -ge 1 && "$CONN" -le 1000 ]] || { echo "connections: 1..1000" >&2; exit 2; }
command -v wrk >/dev/null || { echo "wrk is not installed (bash install.sh installs it)" >&2; exit 1; }
command -v gunicorn >/dev/null || { echo "gunicorn is not installed (bash install.sh)" >&2; exit 1; }

PORT="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
BASE="http://127.0.0.1:${PORT}"
OUT="$(mktemp -d)"
COPY_DIR="static/.bench"
GPID=""

cleanup() {
  if [[ -n "$GPID" ]] && kill -0 "$GPID" 2>/dev/null; then
    kill -TERM "$GPID" 2>/dev/null || true
    for _ in $(seq 300); do kill -0 "$GPID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$GPID" 2>/dev/null || true
  fi
  rm -rf "$COPY_DIR" "$OUT"
}
trap cleanup EXIT INT TERM

SERVER="${LOAD_SERVER:-nginx}"
if [[ "$SERVER" == "gunicorn" ]]; then
  gunicorn 'app:create_app()' -c gunicorn.conf.py --bind "127.0.0.1:${PORT}" \
    >"$OUT/server.log" 2>&1 &
else
  SPECDEC_BIND="127.0.0.1:${PORT}" SPECDEC_TEXT_DIR="$OUT/texts" ./serve.sh >"$OUT/server.log" 2>&1 &
fi
GPID=$!

for _ in $(seq 120); do
  curl -fs -o /dev/null "$BASE/api/theory" && break
  kill -0 "$GPID" 2>/dev/null || { cat "$OUT/server.log" >&2; exit 1; }
  sleep 0.5
done
curl -fs -o /dev/null "$BASE/api/theory" || { echo "server did not start" >&2; cat "$OUT/server.log" >&2; exit 1; }

# The static twin: the plate's bytes, served from /static like any CSS or module file.
mkdir -p "$COPY_DIR"
curl -fs "$BASE/en/specdec/" -o "$COPY_DIR/plate.html"

rss_kb() {  # the whole server: serve.sh, nginx, gunicorn master and workers
  python3 -c "import sys; sys.path.insert(0, 'bench'); from attack import rss_mib; print(int(rss_mib($GPID)[0] * 1024))"
}

AE="Accept-Encoding: gzip, deflate, br, zstd"   # what Chromium sends
TARGETS=(
  "plate|/en/specdec/"
  "embed|/embed/zh/specdec/tape/"
  "api|/api/run?lang=en&draft=bigram&gamma=4&tokens=40&seed=1"
  "static|/static/.bench/plate.html"
  "api-fresh|/api/run?lang=en&draft=bigram&gamma=4&tokens=40"
)

# Warm every target once, so "before" is a server that has seen each kind of request.
for t in "${TARGETS[@]}"; do curl -fs -o /dev/null -H "$AE" "$BASE${t#*|}"; done
RSS_BEFORE="$(rss_kb)"

cat >"$OUT/fresh.lua" <<'LUA'
-- a new seed on every request: nothing can come from a cache
math.randomseed(os.time())
request = function()
  return wrk.format(nil, wrk.path .. "&seed=" .. math.random(0, 2147483646))
end
LUA

echo "specdec load: ${SERVER} ($(python3 -c 'import gunicorn; print("gunicorn", gunicorn.__version__)')$([[ "$SERVER" == nginx ]] && echo ", $(nginx -v 2>&1 | sed 's/.*: //')")), $(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg) at the start, ${DUR}s per target, ${CONN} connections, wrk on the same machine"
for t in "${TARGETS[@]}"; do
  name="${t%%|*}"; path="${t#*|}"
  script=()
  [[ "$name" == "api-fresh" ]] && script=(-s "$OUT/fresh.lua")
  timeout $((DUR + 30)) wrk -t2 -c"$CONN" -d"${DUR}s" --timeout 10s --latency -H "$AE" \
    "${script[@]}" "$BASE$path" >"$OUT/$name.txt" 2>&1 || echo "wrk failed on $name" >&2
  echo "RSS after: $(rss_kb)" >>"$OUT/$name.txt"
done
RSS_AFTER="$(rss_kb)"

python3 bench/wrk_summary.py "$OUT" "${TARGETS[@]%%|*}" --rss-before "$RSS_BEFORE" --rss-after "$RSS_AFTER" \
  --size "$(stat -c %s "$COPY_DIR/plate.html")"
echo
python3 bench/cpu.py
