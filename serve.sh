#!/usr/bin/env bash
# Start the app as a classroom is served, and stop all of it together:
#   nginx    on the public address (SPECDEC_BIND, default 127.0.0.1:5000): reads every request
#            whole under time limits and buffers every answer (deploy/nginx.py says why);
#   gunicorn behind it on a unix socket in a private run folder (gunicorn.conf.py).
# The README's run command installs what is missing first, then calls this. Arguments go to
# gunicorn. Settings (environment): SPECDEC_BIND, SPECDEC_HOSTS (the server's names; derived from
# SPECDEC_BIND if unset), WEB_CONCURRENCY, SPECDEC_REDIS_URL or SPECDEC_TEXT_DIR (where readers'
# texts are shared, see serving/textstore.py), SPECDEC_ACCESS_LOG.
set -euo pipefail
cd "$(dirname "$0")"

PUBLIC="${SPECDEC_BIND:-127.0.0.1:5000}"
for tool in nginx gunicorn python3; do
  command -v "$tool" >/dev/null 2>&1 || { echo "serve.sh: $tool is not installed (bash install.sh installs it)" >&2; exit 1; }
done
case "$PUBLIC" in
  unix:*|fd://*) echo "serve.sh: SPECDEC_BIND must be HOST:PORT (nginx listens there)" >&2; exit 2 ;;
esac
HOST="${PUBLIC%:*}"; PORT="${PUBLIC##*:}"
[[ "$PORT" =~ ^[0-9]+$ && "$PUBLIC" == *:* ]] || { echo "serve.sh: SPECDEC_BIND must be HOST:PORT, not $PUBLIC" >&2; exit 2; }

# The server's own names: readers' Host headers are checked against them (serving/hosts.py);
# the first is the name pages print. Listening on every address: this machine's addresses and
# names, the first address first.
if [[ -z "${SPECDEC_HOSTS:-}" ]]; then
  case "$HOST" in
    0.0.0.0|"[::]"|"")
      addrs="$(hostname -I 2>/dev/null || true)"
      first="$(echo "$addrs" | awk '{print $1}')"
      SPECDEC_HOSTS="${first:+$first:$PORT }$addrs $(hostname 2>/dev/null || true) localhost 127.0.0.1" ;;
    127.*|localhost|"[::1]")
      SPECDEC_HOSTS="$HOST:$PORT localhost 127.0.0.1 [::1]" ;;
    *)
      SPECDEC_HOSTS="$HOST:$PORT" ;;
  esac
fi
export SPECDEC_HOSTS

RUN="$(mktemp -d "${TMPDIR:-/tmp}/specdec-run.XXXXXX")"
chmod 711 "$RUN"   # nginx's workers (another user when started as root) reach the socket
GPID=""; NPID=""
stop() {
  trap - EXIT INT TERM
  for pid in $NPID $GPID; do kill -TERM "$pid" 2>/dev/null || true; done
  for _ in $(seq 100); do
    alive=""
    for pid in $NPID $GPID; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [[ -z "$alive" ]] && break
    sleep 0.1
  done
  for pid in $NPID $GPID; do kill -KILL "$pid" 2>/dev/null || true; done
  rm -rf "$RUN"
}
trap stop EXIT
trap 'exit 143' TERM
trap 'exit 130' INT

python3 -m deploy.nginx --listen "$PUBLIC" --upstream "unix:$RUN/gunicorn.sock" --run-dir "$RUN" \
  ${SPECDEC_ACCESS_LOG:+--access-log "$SPECDEC_ACCESS_LOG"} >"$RUN/nginx.conf"
nginx -e stderr -q -t -p "$RUN" -c "$RUN/nginx.conf"

# nginx writes the access log (SPECDEC_ACCESS_LOG), so gunicorn does not write it again.
# glibc's malloc: a reader's text is counted into arrays of megabytes that are freed when the
# text cache lets it go; by default glibc soon serves such sizes from its heaps (its mmap
# threshold rises after the first free) and keeps the freed memory there, one heap per thread.
# Always mmap from 128 kB, two heaps: 100 texts of 1 MB left the largest worker at 371 MiB and 200
# at 360 MiB (bench/attack.py), where glibc's defaults gave 580 after 50 and 649 after 100.
env -u SPECDEC_ACCESS_LOG SPECDEC_BIND="unix:$RUN/gunicorn.sock" \
  MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}" MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-131072}" \
  gunicorn 'app:create_app()' "$@" &
GPID=$!
# nginx starts once gunicorn listens (it loads the models and renders the entry pages first),
# so a reader never meets a server that is up but cannot answer.
for _ in $(seq 600); do
  [[ -S "$RUN/gunicorn.sock" ]] && break
  kill -0 "$GPID" 2>/dev/null || { wait "$GPID"; exit $?; }
  sleep 0.1
done
[[ -S "$RUN/gunicorn.sock" ]] || { echo "serve.sh: gunicorn did not start" >&2; exit 1; }
nginx -e stderr -p "$RUN" -c "$RUN/nginx.conf" &
NPID=$!
echo "serve.sh: serving http://$PUBLIC/ (nginx $NPID in front of gunicorn $GPID; names: $SPECDEC_HOSTS)" >&2

# Whichever stops first, the other is stopped with it (the EXIT trap).
set +e
wait -n "$GPID" "$NPID"
exit $?
