#!/usr/bin/env bash
# The scale-out deployment under load (issue "Scale-out"), on 127.0.0.1 only, bounded in time.
# wrk -t2 against GET /api/v1/catalog (anonymous) and against every tile of the free world bundle
# in turn, for (1) one node on SQLite (no load balancer), (2) one replica on PostgreSQL behind
# haproxy, (3) three replicas on PostgreSQL behind haproxy; then on (3) the acknowledgement time of
# store notifications under a purchase load (p50/p99/max), and a tile load and a purchase load
# (scripts/bench/purchase-load.py) while one replica is killed with SIGKILL: failed requests, the
# longest run of failures, and purchases acknowledged but lost (must be 0).
#
# usage: scripts/bench/replicas-load.sh
# env:   DURATION (10s), CONNS (50), FAULT_SECONDS (20), PORT (18700; replicas PORT+1..,
#        PostgreSQL PORT+99), KEEP=1 keeps the scratch folder (logs)
# On a 2-core machine the replicas, haproxy, PostgreSQL and wrk share the same two cores: the
# figures compare configurations, they do not show what more machines would give.
set -euo pipefail
cd "$(dirname "$0")/../.."
DURATION=${DURATION:-10s}
CONNS=${CONNS:-50}
FAULT_SECONDS=${FAULT_SECONDS:-20}
PORT=${PORT:-18700}
scripts/install-deps.sh haproxy postgresql wrk
SAMPLES_ONLY=1 scripts/run.sh >&2
bin=.build/release/trailmap
WORK=$(mktemp -d)
chmod 755 "$WORK"  # PostgreSQL runs as the postgres user (scripts/postgres.sh)
pids=()
pg=0
stop_all() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
}
cleanup() {
  stop_all
  ((pg)) && scripts/postgres.sh stop "$WORK/pg" >/dev/null 2>&1 || true
  [ "${KEEP:-0}" = 1 ] && echo "kept $WORK" >&2 || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
# shellcheck source=../lib/replicas.sh
. scripts/lib/replicas.sh
mkdir -p "$WORK/logs"

PG_URL=$(scripts/postgres.sh start "$WORK/pg" $((PORT + 99)))
pg=1
$bin catalog publish --products Catalog/products.json --tiles Tiles --catalog "$PG_URL" --quiet
$bin catalog publish --products Catalog/products.json --tiles Tiles --catalog "$WORK/catalog.sqlite" --quiet
$bin store sandbox init "$WORK/sandbox" --bundle-id com.trailmap.app >/dev/null
python3 - Tiles/world.mbtiles >"$WORK/paths.txt" <<'PY'
import sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
fmt = dict(db.execute("SELECT name, value FROM metadata")).get("format", "png")
for z, x, y in db.execute("SELECT zoom_level, tile_column, tile_row FROM tiles"):
    print(f"/tiles/world/{z}/{x}/{(1 << z) - 1 - y}.{fmt}")
PY
echo /api/v1/catalog >"$WORK/catalog-path.txt"

# wrk_run NAME URL [-s tiles]: one line: req/s, p99 ms, errors (connect/read/write/timeout/non-2xx).
wrk_run() {
  local out
  if [ "${3:-}" = tiles ]; then
    out=$(wrk -t2 -c"$CONNS" -d"$DURATION" --latency -s scripts/bench/tiles.lua "$2" -- "$WORK/paths.txt" 2 | grep '^WRK')
  else
    out=$(wrk -t2 -c"$CONNS" -d"$DURATION" --latency -s scripts/bench/tiles.lua "$2" -- "$WORK/catalog-path.txt" 2 | grep '^WRK')
  fi
  python3 - "$1" "$out" <<'PY'
import sys
name, line = sys.argv[1], sys.argv[2]
f = dict(kv.split("=") for kv in line.split()[1:])
rps = int(f["requests"]) / (int(f["duration_us"]) / 1e6)
errors = sum(int(f[k]) for k in ("connect", "read", "write", "timeout", "status"))
print(f"{name:<44} {rps:>10.0f} req/s   p99 {int(f['p99_us']) / 1000:>7.2f} ms   errors {errors}")
PY
}

measure() { # LABEL URL
  wrk_run "$1: catalog (anonymous)" "$2" catalog
  wrk_run "$1: tiles (world, all in turn)" "$2" tiles
}

echo "wrk -t2 -c$CONNS -d$DURATION; $(nproc) cores; $(haproxy -v | head -1 | cut -d' ' -f1-3); $(postgres --version 2>/dev/null || pg_ctl --version)"
start_replicas 1 $((PORT + 1)) "$WORK/catalog.sqlite" "$WORK/sandbox" "$WORK/logs"
wait_up "http://127.0.0.1:$((PORT + 1))/healthz"
measure "SQLite, one node" "http://127.0.0.1:$((PORT + 1))"
stop_all

for n in 1 3; do
  start_replicas "$n" $((PORT + 1)) "$PG_URL" "$WORK/sandbox" "$WORK/logs"
  start_haproxy "$PORT" "$WORK/haproxy-$n.cfg" "$WORK/logs/haproxy-$n.log" "${replica_ports[@]}"
  for p in "${replica_ports[@]}"; do wait_up "http://127.0.0.1:$p/healthz"; done
  wait_up "http://127.0.0.1:$PORT/healthz"
  measure "PostgreSQL, $n replica(s) + haproxy" "http://127.0.0.1:$PORT"
  ((n == 3)) || stop_all
done

# Store notifications under purchase load, through haproxy to the three replicas: the time from
# POSTing a signed App Store server notification to its 2xx answer (the store wants one within a
# second). 6 buyers + 2 notifiers here and 12 buyers below stay within the 20 registrations one
# client address may make (haproxy connects from 127.0.0.1).
python3 scripts/bench/purchase-load.py "http://127.0.0.1:$PORT" "${DURATION%s}" 6 --notifications 2 >"$WORK/notifications.txt"
python3 - "$(cat "$WORK/notifications.txt")" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
n = r["notifications"]
print(f"notifications under purchase load: {n['acknowledged']} of {n['posted']} acknowledged, p50 {n['p50_ms']} ms, "
      f"p99 {n['p99_ms']} ms, max {n['max_ms']} ms (meanwhile {r['acknowledged']} purchases acknowledged, {r['failed']} failed, lost {r['lost']})")
PY

# Fault: tiles and purchases through haproxy; the second replica is killed a third of the way in.
victim=${pids[1]}
wrk -t2 -c"$CONNS" -d"${FAULT_SECONDS}s" --latency -s scripts/bench/tiles.lua "http://127.0.0.1:$PORT" -- "$WORK/paths.txt" 2 \
  >"$WORK/fault-wrk.txt" 2>&1 &
wrk_pid=$!
python3 scripts/bench/purchase-load.py "http://127.0.0.1:$PORT" "$FAULT_SECONDS" 12 "http://127.0.0.1:$((PORT + 1))" \
  >"$WORK/fault-purchases.txt" &
buy_pid=$!
sleep $((FAULT_SECONDS / 3))
kill -9 "$victim"
echo "killed replica 2 (pid $victim) with SIGKILL at $((FAULT_SECONDS / 3)) s"
wait "$wrk_pid" || true
wait "$buy_pid" || true
python3 - "$(grep '^WRK' "$WORK/fault-wrk.txt")" <<'PY'
import sys
f = dict(kv.split("=") for kv in sys.argv[1].split()[1:])
errors = {k: int(f[k]) for k in ("connect", "read", "write", "timeout", "status") if int(f[k])}
print(f"tiles during the kill: {int(f['requests'])} requests, failed {sum(errors.values())} {errors or ''}, p99 {int(f['p99_us']) / 1000:.1f} ms")
PY
echo "purchases during the kill: $(cat "$WORK/fault-purchases.txt")"
