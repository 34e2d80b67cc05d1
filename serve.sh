#!/usr/bin/env bash
# Start the app as a classroom is served, and stop all of it together:
#   nginx    on the public address (SPECDEC_BIND or --bind, default 127.0.0.1:5000): reads every
#            request whole under time limits, buffers every answer, serves the static and
#            vendored files itself (deploy/nginx.py says why);
#   gunicorn behind it on a unix socket in a private run folder (gunicorn.conf.py), started
#            again if it dies.
# The README's run command installs what is missing first, then calls this. Arguments go to
# gunicorn, except `--bind HOST:PORT` (or -b), which is where nginx listens. Settings
# (environment): SPECDEC_BIND, SPECDEC_HOSTS (the server's names; derived from the address if
# unset), WEB_CONCURRENCY, SPECDEC_REDIS_URL or SPECDEC_TEXT_DIR (where readers' texts are shared,
# see serving/textstore.py), SPECDEC_ACCESS_LOG, SPECDEC_CONN_PER_ADDR (deploy/nginx.py).
# A school's server runs it under systemd: deploy/specdec.service.
set -euo pipefail
cd "$(dirname "$0")"

PUBLIC="${SPECDEC_BIND:-127.0.0.1:5000}"
# `--bind ADDR` (-b ADDR, --bind=ADDR) among the arguments names the public address: nginx
# listens there, and gunicorn stays on its private socket behind it.
args=()
binds=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --bind|-b) [[ $# -ge 2 ]] || { echo "serve.sh: $1 needs an address (HOST:PORT)" >&2; exit 2; }
               PUBLIC="$2"; binds=$((binds + 1)); shift 2 ;;
    --bind=*)  PUBLIC="${1#--bind=}"; binds=$((binds + 1)); shift ;;
    -b?*)      PUBLIC="${1#-b}"; binds=$((binds + 1)); shift ;;
    *)         args+=("$1"); shift ;;
  esac
done
[[ $binds -le 1 ]] || { echo "serve.sh: one --bind only (nginx listens on one address)" >&2; exit 2; }
set -- ${args[@]+"${args[@]}"}

for tool in nginx gunicorn python3; do
  command -v "$tool" >/dev/null 2>&1 || { echo "serve.sh: $tool is not installed (bash install.sh installs it)" >&2; exit 1; }
done
case "$PUBLIC" in
  unix:*|fd://*) echo "serve.sh: the address must be HOST:PORT (nginx listens there), not $PUBLIC" >&2; exit 2 ;;
esac
HOST="${PUBLIC%:*}"; PORT="${PUBLIC##*:}"
[[ "$PORT" =~ ^[0-9]+$ && "$PUBLIC" == *:* ]] || { echo "serve.sh: the address must be HOST:PORT, not $PUBLIC" >&2; exit 2; }

# A port another server holds: say so now, not after a minute of loading the models.
python3 -m deploy.portcheck "$HOST" "$PORT" || exit 1

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

# The run folder and gunicorn's socket: only this user (and, started as root, the group of
# nginx's workers) can reach them, so no local user skips nginx, its limits and the
# X-Forwarded-* headers nginx sets (gunicorn trusts those from its socket only).
# A run folder left by a serve.sh killed with -9 (which runs no trap) is removed here.
for old in "${TMPDIR:-/tmp}"/specdec-run.*; do
  [[ -O "$old" && -f "$old/serve.pid" ]] || continue
  kill -0 "$(cat "$old/serve.pid")" 2>/dev/null || rm -rf "$old"
done
RUN="$(mktemp -d "${TMPDIR:-/tmp}/specdec-run.XXXXXX")"
echo $$ >"$RUN/serve.pid"
SOCK="$RUN/gunicorn.sock"
NGINX_USER=""
if [[ "$(id -u)" -eq 0 ]]; then
  NGINX_GROUP="$(id -gn nobody 2>/dev/null || echo nogroup)"
  NGINX_USER="nobody $NGINX_GROUP"
  chgrp "$NGINX_GROUP" "$RUN"
  chmod 710 "$RUN"
else
  chmod 700 "$RUN"
fi
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

# nginx.py also copies the static and vendored files into the run folder, where nginx serves them.
python3 -m deploy.nginx --listen "$PUBLIC" --upstream "unix:$SOCK" --run-dir "$RUN" \
  ${NGINX_USER:+--user "$NGINX_USER"} \
  ${SPECDEC_ACCESS_LOG:+--access-log "$SPECDEC_ACCESS_LOG"} >"$RUN/nginx.conf"
nginx -e stderr -q -t -p "$RUN" -c "$RUN/nginx.conf"

# nginx writes the access log (SPECDEC_ACCESS_LOG), so gunicorn does not write it again.
# glibc's malloc: a reader's text is counted into arrays of megabytes that are freed when the
# text cache lets it go; by default glibc soon serves such sizes from its heaps (its mmap
# threshold rises after the first free) and keeps the freed memory there, one heap per thread.
# Always mmap from 128 kB, two heaps (bench/attack.py measures what a worker then holds).
# deploy.orphan: gunicorn and nginx get SIGTERM when this script dies, even by kill -9.
start_gunicorn() {
  rm -f "$SOCK"
  env -u SPECDEC_ACCESS_LOG SPECDEC_BIND="unix:$SOCK" \
    MALLOC_ARENA_MAX="${MALLOC_ARENA_MAX:-2}" MALLOC_MMAP_THRESHOLD_="${MALLOC_MMAP_THRESHOLD_:-131072}" \
    python3 -m deploy.orphan $$ -- gunicorn 'app:create_app()' "$@" &
  GPID=$!
}
# nginx starts once gunicorn listens (it loads the models and renders the entry pages first),
# so a reader never meets a server that is up but cannot answer.
wait_for_socket() {
  for _ in $(seq 1200); do
    [[ -S "$SOCK" ]] && break
    kill -0 "$GPID" 2>/dev/null || { wait "$GPID"; return 1; }
    sleep 0.1
  done
  [[ -S "$SOCK" ]] || { echo "serve.sh: gunicorn made no socket in 120 s" >&2; return 1; }
  # gunicorn made it 0600 (gunicorn.conf.py's umask); as root, nginx's workers' group may use it.
  # (gunicorn sets the socket's owner just after making it: give the group once that is done.)
  if [[ -n "$NGINX_USER" ]]; then
    for _ in $(seq 50); do
      sleep 0.2
      chgrp "${NGINX_USER#* }" "$SOCK" && chmod 660 "$SOCK" || return 1
      sleep 0.2
      [[ "$(stat -c %G "$SOCK")" == "${NGINX_USER#* }" ]] && break
    done
  fi
}
start_gunicorn "$@"
wait_for_socket || { echo "serve.sh: gunicorn did not start" >&2; exit 1; }
python3 -m deploy.orphan $$ -- nginx -e stderr -p "$RUN" -c "$RUN/nginx.conf" &
NPID=$!
echo "serve.sh: serving http://$PUBLIC/ (nginx $NPID in front of gunicorn $GPID; names: $SPECDEC_HOSTS)" >&2

# nginx stopping stops everything (the EXIT trap). gunicorn stopping (its master killed, say) is
# started again while nginx answers "busy" (JSON) meanwhile; five deaths within a minute stop all.
set +e
deaths=()
while true; do
  wait -n "$GPID" "$NPID"
  rc=$?
  if ! kill -0 "$NPID" 2>/dev/null; then
    echo "serve.sh: nginx stopped (status $rc)" >&2
    exit "$rc"
  fi
  kill -0 "$GPID" 2>/dev/null && continue
  now=$(date +%s)
  recent=()
  for t in ${deaths[@]+"${deaths[@]}"}; do (( now - t < 60 )) && recent+=("$t"); done
  deaths=(${recent[@]+"${recent[@]}"} "$now")
  if (( ${#deaths[@]} >= 5 )); then
    echo "serve.sh: gunicorn died 5 times within a minute (last status $rc); stopping" >&2
    exit 1
  fi
  echo "serve.sh: gunicorn stopped (status $rc); starting it again" >&2
  start_gunicorn "$@"
  wait_for_socket || { echo "serve.sh: gunicorn did not start again" >&2; exit 1; }
  echo "serve.sh: gunicorn $GPID is serving again" >&2
done
