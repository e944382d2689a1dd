#!/usr/bin/env bash
# A local scale-out deployment: a PostgreSQL catalog, REPLICAS `trailmap serve` processes on the
# same tiles folder, and haproxy in front (round robin, health checks on /healthz every second).
# Prints the URL; Ctrl-C (or SIGTERM) stops everything this script started, and only that.
#
# usage: scripts/replicas.sh [REPLICAS]      (default 3)
# env:   PORT      haproxy's port (default 8080); replicas listen on PORT+1..PORT+REPLICAS
#        WORK      state folder (default .cluster/: the database, the sandbox store, logs)
#        CATALOG   use this catalog (a postgres:// URL or a SQLite path) instead of starting
#                  a PostgreSQL here
#        PG_PORT   port of the PostgreSQL started here (default PORT+100)
set -euo pipefail
cd "$(dirname "$0")/.."
REPLICAS=${1:-3}
PORT=${PORT:-8080}
WORK=${WORK:-.cluster}
PG_PORT=${PG_PORT:-$((PORT + 100))}
[[ $REPLICAS =~ ^[1-9][0-9]?$ ]] || { echo "usage: $0 [REPLICAS 1-99]" >&2; exit 2; }
scripts/install-deps.sh
scripts/install-deps.sh haproxy postgresql
SAMPLES_ONLY=1 scripts/run.sh
bin=.build/release/trailmap
mkdir -p "$WORK/logs"
WORK=$(cd "$WORK" && pwd)

pids=()
pg_started=0
stop() {
  trap - INT TERM EXIT
  echo "stopping" >&2
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  ((pg_started)) && scripts/postgres.sh stop "$WORK/pg" >&2 || true
}
trap stop INT TERM EXIT

if [ -z "${CATALOG:-}" ]; then
  CATALOG=$(scripts/postgres.sh start "$WORK/pg" "$PG_PORT")
  pg_started=1
fi
$bin catalog publish --products Catalog/products.json --tiles Tiles --catalog "$CATALOG"
[ -f "$WORK/sandbox/store.json" ] || $bin store sandbox init "$WORK/sandbox" --bundle-id com.trailmap.app

# shellcheck source=lib/replicas.sh
. scripts/lib/replicas.sh
start_replicas "$REPLICAS" $((PORT + 1)) "$CATALOG" "$WORK/sandbox" "$WORK/logs"
start_haproxy "$PORT" "$WORK/haproxy.cfg" "$WORK/logs/haproxy.log" "${replica_ports[@]}"
wait_up "http://127.0.0.1:$PORT/healthz" || { echo "the cluster did not come up: see $WORK/logs" >&2; exit 1; }
echo "TrailMap cluster: http://127.0.0.1:$PORT/store  ($REPLICAS replicas, catalog $(sed -E "s#(://[^:/@]*):[^@]*@#\1:***@#" <<<"${CATALOG%%\?*}"), logs in $WORK/logs)"
wait "${pids[@]}"
