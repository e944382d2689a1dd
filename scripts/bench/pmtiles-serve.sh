#!/usr/bin/env bash
# Benchmark `trailmap serve` on the same tiles as a .pmtiles archive against the .mbtiles bundle
# it was exported from (the reference), with wrk, on 127.0.0.1 only.
#
# usage: scripts/bench/pmtiles-serve.sh
# env:   TRAILMAP  trailmap binary (default: swift build -c release --scratch-path .build-bench)
#        BUNDLE    .mbtiles to serve (default: the Colorado + Utah sample, zoom 3-12: ~20,000 tiles)
#        DURATION  length of each run (default 10s)
#        ROUNDS    rounds of every run, the two formats' order alternating (default 2)
#        CONNS     connections (default 50)
#        COLD_BUDGET  --cache-budget of the cold runs (default 4MB, the least: 2 MiB go to the open bundle's
#                     reservation, so most requests miss the cache and read the file)
#        PORTS     "MBTILES_PORT PMTILES_PORT COLD_MBTILES_PORT COLD_PMTILES_PORT" (default 18491-18494)
#        WORK      scratch folder, new or empty (default: mktemp -d); removed at exit unless KEEP=1
#        RECORD=0  leaves docs/benchmarks.md as it is (the script writes its row there at the end)
#
# Four servers: each format with the default cache, and each with a small cache (cold). wrk -t2
# runs against each for (a) one hot tile, (b) every tile in turn, cache warm, (c) every tile in
# turn, cold (tile reads from the file: the MBTiles SQLite lookup or the PMTiles directory
# search and pread). Each case runs ROUNDS times per format, the order alternating (m p, p m, ...),
# so that drift of the machine's load hits both alike. Prints req/s, p50/p99/max latency and
# errors per run and the ratio pmtiles/mbtiles of each case's requests over all its rounds, after
# checking that both serve every tile as exported.
# Exits non-zero only when something fails to run: benchmarks inform, they don't gate.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE="$ROOT/scripts/bench"
DURATION=${DURATION:-10s}
CONNS=${CONNS:-50}
ROUNDS=${ROUNDS:-2}
COLD_BUDGET=${COLD_BUDGET:-4MB}
ports=${PORTS:-18491 18492 18493 18494}
read -r PORT_M PORT_P PORT_MC PORT_PC _ <<<"${ports//,/ }" || true
THREADS=2
PIDS=()      # servers started here, stopped at exit
LOAD_PID=""  # the running wrk (under timeout), if any
die() { echo "error: $*" >&2; exit 1; }
show() { local a out="+"; for a in "$@"; do [[ $a =~ [[:space:]] ]] && out+=" '$a'" || out+=" $a"; done; echo "$out" >&2; }
run() { show "$@"; "$@"; }
alive() { [[ -r /proc/$1/stat ]] && [[ $(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f1) != Z ]]; }
seconds() { case $1 in *ms) echo 1 ;; *s) echo "${1%s}" ;; *m) echo $((${1%m} * 60)) ;; *) echo "$1" ;; esac; }

for p in "$PORT_M" "$PORT_P" "$PORT_MC" "$PORT_PC"; do [[ $p =~ ^[0-9]+$ ]] || die "PORTS must be four port numbers"; done
[[ $CONNS =~ ^[0-9]+$ && $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "CONNS and ROUNDS must be numbers"
[[ $(seconds "$DURATION") =~ ^[0-9]+$ ]] || die "DURATION must look like 10s, 2m or 30"

if [[ -n "${WORK:-}" ]]; then
  mkdir -p "$WORK"
  [[ -z $(ls -A "$WORK") ]] || die "WORK=$WORK is not empty (everything in WORK is removed at exit)"
  WORK=$(cd "$WORK" && pwd)
else
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/pmtiles-serve.XXXXXX")
fi

cleanup() {
  local rc=$? pid
  set +e
  [[ -n $LOAD_PID ]] && kill -TERM "$LOAD_PID" 2>/dev/null && wait "$LOAD_PID" 2>/dev/null
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 100); do alive "$pid" || break; sleep 0.1; done
    if alive "$pid"; then echo "process $pid did not stop on TERM within 10 s; killing it" >&2; kill -KILL "$pid" 2>/dev/null; fi
    wait "$pid" 2>/dev/null
  done
  if [[ "${KEEP:-0}" == 1 ]]; then echo "kept $WORK" >&2; else rm -rf "$WORK"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

for p in "$PORT_M" "$PORT_P" "$PORT_MC" "$PORT_PC"; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then die "port $p on 127.0.0.1 is in use (set PORTS)"; fi
done
command -v wrk >/dev/null || die "wrk not found (apt-get install wrk)"
command -v curl >/dev/null || die "curl not found (apt-get install curl)"
command -v python3 >/dev/null || die "python3 not found"
if [[ -z "${TRAILMAP:-}" ]]; then
  (cd "$ROOT" && run swift build -c release --scratch-path .build-bench --product trailmap >&2) || die "swift build failed"
  TRAILMAP="$ROOT/.build-bench/release/trailmap"
fi
[[ -x "$TRAILMAP" ]] || die "TRAILMAP=$TRAILMAP is not an executable"

# --- the bundle, its archive, the request list ----------------------------------------------------
mkdir -p "$WORK/mbtiles" "$WORK/pmtiles"
if [[ -n "${BUNDLE:-}" ]]; then
  [[ -f $BUNDLE ]] || die "BUNDLE=$BUNDLE not found"
  ln "$BUNDLE" "$WORK/mbtiles/bench.mbtiles" 2>/dev/null || run cp "$BUNDLE" "$WORK/mbtiles/bench.mbtiles"
else
  (cd "$ROOT" && run "$TRAILMAP" build --source Tiles/sources/utah.png --source Tiles/sources/colorado.png \
    --name bench --minzoom 3 --maxzoom 12 --out "$WORK/mbtiles/bench.mbtiles" --quiet) || die "trailmap build failed"
fi
run "$TRAILMAP" bundle export "$WORK/mbtiles/bench.mbtiles" --pmtiles "$WORK/pmtiles/bench.pmtiles" >&2 || die "export --pmtiles failed"
run "$TRAILMAP" bundle export "$WORK/mbtiles/bench.mbtiles" --dir "$WORK/static" --quiet || die "export --dir failed"
TILE_FILES=(-type f \( -name '*.png' -o -name '*.webp' -o -name '*.jpg' \))
find "$WORK/static" "${TILE_FILES[@]}" -printf '/tiles/bench/%P\n' | shuf --random-source=<(yes) >"$WORK/all.txt"
NTILES=$(wc -l <"$WORK/all.txt")
[[ $NTILES -gt 0 ]] || die "the bundle has no tiles"
HOT=$(find "$WORK/static" "${TILE_FILES[@]}" -printf '%s /tiles/bench/%P\n' | sort -n | sed -n "$((NTILES / 2 + 1))p" | cut -d' ' -f2)
echo "$HOT" >"$WORK/hot.txt"
BYTES=$(find "$WORK/static" "${TILE_FILES[@]}" -printf '%s\n' | awk '{ s += $1 } END { printf "%.1f MB", s / 1048576 }')
echo "bundle: $NTILES tiles ($BYTES); hot tile $HOT" >&2

# --- servers ----------------------------------------------------------------------------------------
start() {  # NAME FOLDER PORT [ARGS...]
  local name=$1 folder=$2 port=$3
  shift 3
  # In the scratch folder: no catalog found by default (Catalog/catalog.sqlite in the checkout).
  show cd "$WORK" "&&" "$TRAILMAP" serve --tiles "$folder" --host 127.0.0.1 --port "$port" --log-level error "$@" "&"
  (cd "$WORK" && exec "$TRAILMAP" serve --tiles "$folder" --host 127.0.0.1 --port "$port" --log-level error "$@") >"$WORK/$name.log" 2>&1 &
  PIDS+=($!)
  local pid=$! code=000
  for _ in $(seq 300); do
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$port$HOT" || true)
    [[ $code == 200 ]] && return 0
    alive "$pid" || { tail -n 20 "$WORK/$name.log" >&2; die "$name exited before answering"; }
    sleep 0.1
  done
  die "$name did not answer 200 for $HOT within 30 s (last status $code)"
}
start mbtiles "$WORK/mbtiles" "$PORT_M"
start pmtiles "$WORK/pmtiles" "$PORT_P"
start cold-mbtiles "$WORK/mbtiles" "$PORT_MC" --cache-budget "$COLD_BUDGET" --no-prefetch
start cold-pmtiles "$WORK/pmtiles" "$PORT_PC" --cache-budget "$COLD_BUDGET" --no-prefetch

echo "== checking that both formats serve every tile as exported" >&2
CHECK=()
for port in "$PORT_M" "$PORT_P"; do
  python3 "$HERE/check_tiles.py" "$port" "$WORK/all.txt" "$WORK/static" >"$WORK/check-$port.txt" || true
  CHECK+=("$(head -n 1 "$WORK/check-$port.txt")")
done

# --- load -----------------------------------------------------------------------------------------
declare -A RPS P50 P99 MAX ERR REQ SECS
ms() { awk -v us="$1" 'BEGIN { printf (us >= 1000 ? "%.2fms" : "%dus"), (us >= 1000 ? us / 1000 : us) }'; }
bench() {  # KEY PORT PATHS
  local key=$1 port=$2 list=$3 out="$WORK/wrk-$1.txt" line
  echo "== $key" >&2
  show wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency -s "$HERE/tiles.lua" "http://127.0.0.1:$port" -- "$list" "$THREADS"
  timeout $(($(seconds "$DURATION") + 60)) wrk -t"$THREADS" -c"$CONNS" -d"$DURATION" --latency -s "$HERE/tiles.lua" \
    "http://127.0.0.1:$port" -- "$list" "$THREADS" >"$out" 2>&1 &
  LOAD_PID=$!
  wait "$LOAD_PID" || { cat "$out" >&2; die "wrk failed ($key)"; }
  LOAD_PID=""
  line=$(grep '^WRK ' "$out") || die "no summary from wrk ($key); see $out"
  local -A v
  for kv in ${line#WRK }; do v[${kv%%=*}]=${kv#*=}; done
  RPS[$key]=$(awk -v n="${v[requests]}" -v us="${v[duration_us]}" 'BEGIN { printf "%.0f", n / (us / 1e6) }')
  REQ[$key]=${v[requests]} SECS[$key]=${v[duration_us]}
  P50[$key]=$(ms "${v[p50_us]}") P99[$key]=$(ms "${v[p99_us]}") MAX[$key]=$(ms "${v[max_us]}")
  ERR[$key]=$((v[status] + v[connect] + v[read] + v[write] + v[timeout]))
  for pid in "${PIDS[@]}"; do alive "$pid" || die "a server died during $key (logs in $WORK)"; done
  sleep 1
}
pair() {  # CASE ROUND MBTILES_PORT PMTILES_PORT PATHS: both formats, in the round's order
  if (($2 % 2)); then
    bench "$1-mbtiles-$2" "$3" "$5"; bench "$1-pmtiles-$2" "$4" "$5"
  else
    bench "$1-pmtiles-$2" "$4" "$5"; bench "$1-mbtiles-$2" "$3" "$5"
  fi
}
for round in $(seq "$ROUNDS"); do
  pair hot "$round" "$PORT_M" "$PORT_P" "$WORK/hot.txt"
  pair all "$round" "$PORT_M" "$PORT_P" "$WORK/all.txt"
  pair cold "$round" "$PORT_MC" "$PORT_PC" "$WORK/all.txt"
done
# The cold servers' hit ratios: how often the file was really read.
hit_ratio() {
  curl -s --max-time 5 "http://127.0.0.1:$1/metrics" | awk '
    /^trailmap_cache_hits_total / { h = $2 } /^trailmap_cache_misses_total / { m = $2 }
    END { if (h + m > 0) printf "%.1f%%", 100 * h / (h + m); else print "?" }'
}
HIT_MC=$(hit_ratio "$PORT_MC")
HIT_PC=$(hit_ratio "$PORT_PC")

# --- report ---------------------------------------------------------------------------------------
# Requests per second over all rounds of a case and format.
total() {  # CASE FORMAT
  local r n=0 us=0
  for r in $(seq "$ROUNDS"); do n=$((n + REQ[$1-$2-$r])); us=$((us + SECS[$1-$2-$r])); done
  awk -v n="$n" -v us="$us" 'BEGIN { printf "%.0f", n / (us / 1e6) }'
}
ratio() { awk -v a="$(total "$1" pmtiles)" -v b="$(total "$1" mbtiles)" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
echo
echo "bundle: $NTILES tiles ($BYTES); wrk -t$THREADS -c$CONNS -d$DURATION; $(nproc) cores; $("$TRAILMAP" --version 2>/dev/null | head -n 1 | sed 's/^/trailmap /')"
printf '%-50s %-8s %9s %9s %9s %9s  %s\n' test format req/s p50 p99 max errors
row() { printf '%-50s %-8s %9s %9s %9s %9s  %s\n' "$1" "$2" "${RPS[$3]}" "${P50[$3]}" "${P99[$3]}" "${MAX[$3]}" "${ERR[$3]}"; }
for c in hot all cold; do
  case $c in
    hot) label="(a) hot tile" ;;
    all) label="(b) all $NTILES tiles, cache warm" ;;
    cold) label="(c) all tiles, --cache-budget $COLD_BUDGET" ;;
  esac
  for round in $(seq "$ROUNDS"); do
    for f in mbtiles pmtiles; do row "$label, round $round" "$f" "$c-$f-$round"; done
  done
done
echo
printf '%-48s %-22s %s\n' figure "req/s mbtiles/pmtiles" "pmtiles/mbtiles"
printf '%-48s %-22s %s\n' "(a) hot tile" "$(total hot mbtiles) / $(total hot pmtiles)" "$(ratio hot)x"
printf '%-48s %-22s %s\n' "(b) all tiles, cache warm" "$(total all mbtiles) / $(total all pmtiles)" "$(ratio all)x"
printf '%-48s %-22s %s\n' "(c) all tiles, cold" "$(total cold mbtiles) / $(total cold pmtiles)" "$(ratio cold)x"
printf '%-48s %s\n' "(c) cache hit ratio mbtiles / pmtiles" "$HIT_MC / $HIT_PC"
printf '%-48s %s\n' "mbtiles serves every tile as exported" "${CHECK[0]}"
printf '%-48s %s\n' "pmtiles serves every tile as exported" "${CHECK[1]}"
for name in mbtiles pmtiles cold-mbtiles cold-pmtiles; do
  if grep -qv '^TrailMap is serving' "$WORK/$name.log"; then
    echo "$name logged:"
    grep -v '^TrailMap is serving' "$WORK/$name.log" | tail -n 5 | sed 's/^/    /'
  fi
done
# The row of docs/benchmarks.md (RECORD=0 skips it).
python3 "$HERE/record-figures.py" pmtiles-serve.sh "$NTILES tiles, wrk -t$THREADS -c$CONNS, $ROUNDS rounds each: \
hot tile $(ratio hot)x the bundle's req/s ($(total hot pmtiles) vs $(total hot mbtiles) requests), \
all tiles with a warm cache $(ratio all)x ($(total all pmtiles) vs $(total all mbtiles)), \
all tiles with --cache-budget $COLD_BUDGET $(ratio cold)x ($(total cold pmtiles) vs $(total cold mbtiles); hit ratio $HIT_PC vs $HIT_MC); \
every tile as exported: pmtiles ${CHECK[1]}, mbtiles ${CHECK[0]}"
exit 0
