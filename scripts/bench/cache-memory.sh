#!/usr/bin/env bash
# Memory benchmark of the tile cache: `trailmap serve --cache-budget 64MB` under wrk asking for
# more than a million distinct tiles (127.0.0.1 only, bounded in time), sampling the server's RSS.
# Prints peak RSS, the overhead above the budget (target <= budget + 60 MB) and the cache figures.
# env: TRAILMAP (default: release build), SERVE_ARGS (more serve flags), BUDGET (64MB), SIDE (1024: SIDE^2 distinct tiles),
#      DURATION (100s), CONNS (32), PORT (18493), WORK (scratch folder; default mktemp -d, removed),
#      RECORD=0 (leave docs/benchmarks.md as it is; by default the script writes its row there)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUDGET=${BUDGET:-64MB}; SIDE=${SIDE:-1024}; DURATION=${DURATION:-110s}; CONNS=${CONNS:-32}; PORT=${PORT:-18493}
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$WORK" && WORK=$(cd "$WORK" && pwd)
SERVER=""; SAMPLER=""
cleanup() {
  [[ -n $SAMPLER ]] && kill "$SAMPLER" 2>/dev/null || true
  [[ -n $SERVER ]] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null || true
  [[ -z ${KEEP:-} ]] && rm -rf "$WORK"
}
trap cleanup EXIT
if [[ -z ${TRAILMAP:-} ]]; then
  (cd "$ROOT" && swift build -c release --product trailmap >&2)
  TRAILMAP="$(cd "$ROOT" && swift build -c release --show-bin-path)/trailmap"
fi
mkdir -p "$WORK/tiles"
[[ -f $WORK/tiles/cachebench.mbtiles ]] || python3 "$ROOT/scripts/bench/cache-make-bundle.py" "$WORK/tiles/cachebench.mbtiles" "$SIDE" >&2
TOKEN=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d " \n")  # the server wants 24+ characters
# One malloc arena: tiles are allocated on one thread and freed on another, and with glibc's
# default (8 arenas per core) freed tile memory piles up in arenas other threads do not reuse
# (measured: peak 132-150 MB with the default or 2 arenas, 115 MB with 1, same request rate).
export MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-1}
# In the scratch folder: no catalog found by default (Catalog/catalog.sqlite in the checkout).
(cd "$WORK" && TRAILMAP_ADMIN_TOKEN="$TOKEN" exec "$TRAILMAP" serve --tiles "$WORK/tiles" --port "$PORT" --cache-budget "$BUDGET" --quiet ${SERVE_ARGS:-}) &
SERVER=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.1; done
base=$(awk '/VmRSS/ {print $2}' /proc/$SERVER/status)
# Sample RSS every 0.2 s (VmHWM gives the peak too; the samples show the course).
( peak=0; while kill -0 "$SERVER" 2>/dev/null; do
    r=$(awk '/VmRSS/ {print $2}' /proc/$SERVER/status 2>/dev/null || echo 0)
    (( r > peak )) && peak=$r && echo "$peak" > "$WORK/peak"; sleep 0.2; done ) &
SAMPLER=$!
timeout 300 wrk -t2 -c"$CONNS" -d"$DURATION" -s "$ROOT/scripts/bench/cache-distinct.lua" "http://127.0.0.1:$PORT" -- cachebench "$SIDE" 2 | grep -E "WRK|Requests/sec"
hwm=$(awk '/VmHWM/ {print $2}' /proc/$SERVER/status)
stats=$(curl -sf -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:$PORT/admin/cache")
budget_kb=$(python3 -c "import json,sys; print(json.loads(sys.argv[1])['budget_bytes']//1024)" "$stats")
echo "cache: $stats"
echo "RSS at start: $((base / 1024)) MB; peak RSS (VmHWM): $((hwm / 1024)) MB; budget: $((budget_kb / 1024)) MB"
over=$(( (hwm - budget_kb) / 1024 ))
echo "overhead above budget: $over MB (target <= 60 MB): $([[ $over -le 60 ]] && echo PASS || echo FAIL)"
# The row of docs/benchmarks.md (RECORD=0 skips it).
python3 "$ROOT/scripts/bench/record-figures.py" cache-memory.sh "$((SIDE * SIDE)) distinct tiles through \
\`serve --cache-budget $BUDGET\`, wrk -c$CONNS for $DURATION: peak RSS $((hwm / 1024)) MB, $over MB above the budget (target 60), \
RSS at start $((base / 1024)) MB"
