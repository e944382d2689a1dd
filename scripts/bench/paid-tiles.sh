#!/usr/bin/env bash
# Benchmark paid tiles against free ones on the same server: one bundle published twice, as a free
# product and as a paid one, served by `trailmap serve` with a catalog and a sandbox store; an
# account buys the paid one; wrk asks for every tile of each in shuffled order, on 127.0.0.1 only.
#
# usage: scripts/bench/paid-tiles.sh
# env:   TRAILMAP  trailmap binary (default: swift build -c release --scratch-path .build-bench)
#        BEFORE    another trailmap binary measured in the same run (e.g. an older commit's)
#        BUNDLE    .mbtiles to serve (default: the world relief written by GDAL, as serve-vs-nginx.sh)
#        ROUNDS (default 3), DURATION (default 10s), CONNS (default 50)
#        PORT      first of three ports (default 18531)
#        WORK      scratch folder, new or empty (default: mktemp -d); removed at exit unless KEEP=1
#        PERF=1    record a cpu-clock profile of TRAILMAP during round 1's runs (perf; top symbols printed)
#
# Each round runs, per server (the order rotating between rounds): free tiles; paid tiles with the
# buyer's bearer token; paid tiles with a tile token (`?token=`); paid tiles with a tile token whose
# session has ended (a browser left open after its buyer logged out: every answer a 401). Prints req/s, server CPU time
# per request and the share of that CPU spent on NIO's event-loop threads (the HTTP server's
# pipeline, which answers the connections the tile loops handed on) for every run, then the median ratios paid/free per
# server and TRAILMAP/BEFORE, and the loops' hand-offs and catalog waits where the binary counts them.
# Exits non-zero only when something fails to run: benchmarks inform, they don't gate.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE="$ROOT/scripts/bench"
DURATION=${DURATION:-10s}
CONNS=${CONNS:-50}
ROUNDS=${ROUNDS:-3}
PORT=${PORT:-18531}
PIDS=()
die() { echo "error: $*" >&2; exit 1; }
run() { echo "+ $*" >&2; "$@"; }
[[ $PORT =~ ^[0-9]+$ && $CONNS =~ ^[0-9]+$ && $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "PORT, CONNS and ROUNDS must be numbers"
for tool in wrk curl python3; do command -v "$tool" >/dev/null || die "$tool not found (apt-get install $tool)"; done

if [[ -n "${WORK:-}" ]]; then
  mkdir -p "$WORK"
  [[ -z $(ls -A "$WORK") ]] || die "WORK=$WORK is not empty (everything in WORK is removed at exit)"
  WORK=$(cd "$WORK" && pwd)
else
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/paid-tiles.XXXXXX")
fi
cleanup() {
  local pid
  set +e
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null; done
  [[ "${KEEP:-0}" == 1 ]] && echo "kept $WORK" >&2 || rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [[ -z "${TRAILMAP:-}" ]]; then
  (cd "$ROOT" && run swift build -c release --scratch-path .build-bench --product trailmap >&2) || die "swift build failed"
  TRAILMAP="$ROOT/.build-bench/release/trailmap"
fi
[[ -x $TRAILMAP ]] || die "TRAILMAP=$TRAILMAP is not an executable"
[[ -z "${BEFORE:-}" || -x $BEFORE ]] || die "BEFORE=$BEFORE is not an executable"

# --- the bundle twice, the catalog, the store --------------------------------------------------
mkdir -p "$WORK/tiles" "$WORK/static"
if [[ -n "${BUNDLE:-}" ]]; then
  [[ -f $BUNDLE ]] || die "BUNDLE=$BUNDLE not found"
  run cp "$BUNDLE" "$WORK/tiles/free.mbtiles"
else
  run gdalwarp -q -s_srs EPSG:4326 -t_srs EPSG:3857 -te -20037508.34 -20037508.34 20037508.34 20037508.34 \
    -ts 16384 16384 -r bilinear -co TILED=YES "$ROOT/Tiles/sources/world.png" "$WORK/world-3857.tif" || die "gdalwarp failed"
  run gdal_translate -q -of MBTILES -co TILE_FORMAT=PNG -co NAME=bench "$WORK/world-3857.tif" "$WORK/tiles/free.mbtiles" \
    || die "gdal_translate failed"
  run gdaladdo -q -r average "$WORK/tiles/free.mbtiles" 2 4 8 16 32 64 || die "gdaladdo failed"
  rm -f "$WORK/world-3857.tif"
fi
cp "$WORK/tiles/free.mbtiles" "$WORK/tiles/paid.mbtiles"
run "$TRAILMAP" bundle export "$WORK/tiles/free.mbtiles" --dir "$WORK/static" --quiet || die "trailmap bundle export failed"
(cd "$WORK/static" && find . -type f \( -name '*.png' -o -name '*.webp' -o -name '*.jpg' \) -printf '%P\n') | shuf --random-source=<(yes) >"$WORK/paths.txt"
[[ -s $WORK/paths.txt ]] || die "the bundle has no tiles"
NTILES=$(wc -l <"$WORK/paths.txt")
cat >"$WORK/products.json" <<JSON
{"products": [
  {"productId": "com.bench.free", "title": "Free", "category": "Bench", "price": {"amount": "0", "currency": "USD"}, "bundle": "free.mbtiles"},
  {"productId": "com.bench.paid", "title": "Paid", "category": "Bench", "price": {"amount": "1.99", "currency": "USD"}, "bundle": "paid.mbtiles"}
]}
JSON
run "$TRAILMAP" catalog publish --products "$WORK/products.json" --tiles "$WORK/tiles" --catalog "$WORK/catalog.sqlite" >&2
run "$TRAILMAP" store sandbox init "$WORK/sandbox" --bundle-id com.trailmap.app >&2

# --- servers ----------------------------------------------------------------------------------
declare -A PORT_OF PID_OF
start() {  # NAME BINARY PORT
  "$2" serve --tiles "$WORK/tiles" --host 127.0.0.1 --port "$3" --log-level warning \
    --catalog "$WORK/catalog.sqlite" --store-sandbox "$WORK/sandbox" >"$WORK/$1.log" 2>&1 &
  PIDS+=($!)
  PORT_OF[$1]=$3 PID_OF[$1]=$!
  for _ in $(seq 300); do
    curl -sf -o /dev/null "http://127.0.0.1:$3/healthz" && return 0
    kill -0 "${PID_OF[$1]}" 2>/dev/null || { cat "$WORK/$1.log" >&2; die "$1 exited"; }
    sleep 0.1
  done
  die "$1 did not answer within 30 s"
}
SERVERS=(trailmap)
start trailmap "$TRAILMAP" "$PORT"
if [[ -n "${BEFORE:-}" ]]; then start before "$BEFORE" $((PORT + 1)); SERVERS+=(before); fi

# --- the buyer ----------------------------------------------------------------------------------
api() {  # METHOD PATH BODY [TOKEN] -> JSON on stdout
  curl -sf -X "$1" "http://127.0.0.1:$PORT/api/v1$2" -H 'content-type: application/json' \
    ${4:+-H "authorization: Bearer $4"} -d "$3"
}
field() { python3 -c "import json, sys; print(json.load(sys.stdin)['$1'])"; }
creds='{"email": "buyer@example.com", "password": "correct horse battery"}'
api POST /accounts "$creds" >/dev/null || die "could not register the buyer"
TOKEN=$(api POST /sessions "$creds" | field token) || die "could not log in"
jws=$(api POST /sandbox/transactions '{"productId": "com.bench.paid"}' "$TOKEN" | field signedTransaction) \
  || die "could not make the sandbox purchase"
api POST /purchases "{\"signedTransaction\": \"$jws\"}" "$TOKEN" >/dev/null || die "the purchase was refused"
TILE_TOKEN=$(api POST /tile-tokens '{"productId": "com.bench.paid"}' "$TOKEN" | field token) || die "no tile token"
# Another buyer's tile token, outliving his session.
leaver='{"email": "leaver@example.com", "password": "correct horse battery"}'
api POST /accounts "$leaver" >/dev/null || die "could not register the second buyer"
LEAVER=$(api POST /sessions "$leaver" | field token) || die "could not log in"
jws=$(api POST /sandbox/transactions '{"productId": "com.bench.paid"}' "$LEAVER" | field signedTransaction) \
  || die "could not make the second sandbox purchase"
api POST /purchases "{\"signedTransaction\": \"$jws\"}" "$LEAVER" >/dev/null || die "the second purchase was refused"
ENDED_TOKEN=$(api POST /tile-tokens '{"productId": "com.bench.paid"}' "$LEAVER" | field token) || die "no second tile token"
curl -sf -X DELETE "http://127.0.0.1:$PORT/api/v1/sessions" -H "authorization: Bearer $LEAVER" >/dev/null || die "could not log out"
sed 's|^|/tiles/free/|' "$WORK/paths.txt" >"$WORK/free.txt"
sed 's|^|/tiles/paid/|' "$WORK/paths.txt" >"$WORK/paid.txt"
sed "s|^|/tiles/paid/|; s|\$|?token=$TILE_TOKEN|" "$WORK/paths.txt" >"$WORK/paid-token.txt"
# Refused: the tiles above the paid tileset's preview zooms (which anyone may read).
PREVIEW=$(curl -sf "http://127.0.0.1:$PORT/tiles" \
  | python3 -c "import json, sys; print(next(t.get('previewMaxzoom') or -1 for t in json.load(sys.stdin)['tilesets'] if t['id'] == 'paid'))") \
  || die "could not read the paid tileset's preview zooms"
awk -F/ -v top="$PREVIEW" '$1 > top' "$WORK/paths.txt" | sed "s|^|/tiles/paid/|; s|\$|?token=$ENDED_TOKEN|" >"$WORK/paid-ended.txt"
[[ -s $WORK/paid-ended.txt ]] || die "every tile of the bundle is in the preview"
for name in "${SERVERS[@]}"; do
  first=$(head -n 1 "$WORK/paid.txt")
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:${PORT_OF[$name]}$first")
  [[ $code == 401 ]] || die "$name answered $code to a paid tile without credentials"
  code=$(curl -s -o /dev/null -w '%{http_code}' -H "authorization: Bearer $TOKEN" "http://127.0.0.1:${PORT_OF[$name]}$first")
  [[ $code == 200 ]] || die "$name answered $code to the buyer's paid tile"
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:${PORT_OF[$name]}$(head -n 1 "$WORK/paid-ended.txt")")
  [[ $code == 401 ]] || die "$name answered $code to a tile token whose session has ended"
done

# --- load ---------------------------------------------------------------------------------------
declare -A RPS CPU
PROFILES=()
HZ=$(getconf CLK_TCK)
ticks() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat"; }
niotick() {  # PID -> CPU ticks of its NIO event-loop threads (named NIO-...): the HTTP server's pipeline
  local t sum=0
  for t in /proc/"$1"/task/*; do
    [[ $(cat "$t/comm" 2>/dev/null) == NIO-* ]] || continue
    sum=$((sum + $(awk '{ sub(/.*\) /, ""); print $12 + $13 }' "$t/stat")))
  done
  echo "$sum"
}
bench() {  # KEY SERVER LIST [HEADER] [refused: every answer is to be 4xx]
  local key=$1 name=$2 list=$3 out="$WORK/wrk-$1.txt" t0 t1 line
  local args=(-t2 -c"$CONNS" -d"$DURATION" --latency -s "$HERE/tiles.lua")
  [[ -n ${4:-} ]] && args+=(-H "$4")
  local profiler=""
  if [[ ${PERF:-0} == 1 && $key == *-trailmap-1 ]] && command -v perf >/dev/null; then
    perf record -e cpu-clock -F 999 -g -p "${PID_OF[$name]}" -o "$WORK/perf-$key.data" >/dev/null 2>&1 &
    profiler=$!
    PROFILES+=("$key")
  fi
  t0=$(ticks "${PID_OF[$name]}") l0=$(niotick "${PID_OF[$name]}")
  timeout 300 wrk "${args[@]}" "http://127.0.0.1:${PORT_OF[$name]}" -- "$list" 2 >"$out" 2>&1 || { cat "$out" >&2; die "wrk failed ($key)"; }
  t1=$(ticks "${PID_OF[$name]}") l1=$(niotick "${PID_OF[$name]}")
  if [[ -n $profiler ]]; then kill -INT "$profiler" 2>/dev/null || true; wait "$profiler" 2>/dev/null || true; fi
  line=$(grep '^WRK ' "$out") || die "no summary from wrk ($key)"
  local -A v
  for kv in ${line#WRK }; do v[${kv%%=*}]=${kv#*=}; done
  if [[ ${5:-} == refused ]]; then
    [[ ${v[status]} == "${v[requests]}" ]] || die "$key: $((v[requests] - v[status])) answers were not refusals"
  else
    [[ ${v[status]} == 0 ]] || die "$key: ${v[status]} answers were not 2xx/3xx"
  fi
  RPS[$key]=$(awk -v n="${v[requests]}" -v us="${v[duration_us]}" 'BEGIN { printf "%.0f", n / (us / 1e6) }')
  CPU[$key]=$(awk -v t=$((t1 - t0)) -v hz="$HZ" -v n="${v[requests]}" 'BEGIN { printf "%.1f", (n > 0 ? t / hz * 1e6 / n : 0) }')
  local nio
  nio=$(awk -v l=$((l1 - l0)) -v t=$((t1 - t0)) 'BEGIN { printf "%.0f", (t > 0 ? 100 * l / t : 0) }')
  printf '%-24s %-10s %9s req/s %8s us CPU/request  NIO %3s%% of it  p50 %s us p99 %s us\n' "$key" "$name" "${RPS[$key]}" \
    "${CPU[$key]}" "$nio" "${v[p50_us]}" "${v[p99_us]}"
  sleep 1
}
echo "bundle: $NTILES tiles; wrk -t2 -c$CONNS -d$DURATION; $(nproc) cores; $ROUNDS rounds; $("$TRAILMAP" --version 2>/dev/null | head -n 1)"
for r in $(seq "$ROUNDS"); do
  order=("${SERVERS[@]}")
  for ((k = 1; k < r; k++)); do order=("${order[@]:1}" "${order[0]}"); done
  for name in "${order[@]}"; do
    bench "free-$name-$r" "$name" "$WORK/free.txt"
    bench "bearer-$name-$r" "$name" "$WORK/paid.txt" "Authorization: Bearer $TOKEN"
    bench "token-$name-$r" "$name" "$WORK/paid-token.txt"
    bench "ended-$name-$r" "$name" "$WORK/paid-ended.txt" "" refused
  done
done

median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
ratio() {  # A B -> median over rounds of RPS[A-r] / RPS[B-r]
  local r out=""
  for r in $(seq "$ROUNDS"); do out+=" $(awk -v a="${RPS[$1-$r]}" -v b="${RPS[$2-$r]}" 'BEGIN { printf "%.2f", a / b }')"; done
  echo "$(echo "$out" | median)x (rounds:$out)"
}
echo
for name in "${SERVERS[@]}"; do
  echo "$name: paid tiles with a bearer token / free tiles   $(ratio "bearer-$name" "free-$name")"
  echo "$name: paid tiles with a tile token / free tiles     $(ratio "token-$name" "free-$name")"
  echo "$name: refused (session ended) / free tiles         $(ratio "ended-$name" "free-$name")"
done
if [[ -n "${BEFORE:-}" ]]; then
  for kind in free bearer token ended; do echo "$kind tiles: trailmap / before                     $(ratio "$kind-trailmap" "$kind-before")"; done
fi
for name in "${SERVERS[@]}"; do
  counts=$(curl -sf "http://127.0.0.1:${PORT_OF[$name]}/metrics" | grep -E '^trailmap_tile_loop_(handoffs|catalog_waits)_total' || true)
  [[ -n $counts ]] && echo "$name:" $counts
done
for key in "${PROFILES[@]}"; do
  echo
  echo "profile of $key (perf, cpu-clock, self time; $WORK/perf-$key.data):"
  perf report -i "$WORK/perf-$key.data" --no-children --sort symbol --stdio 2>/dev/null | grep -E '^ +[0-9]' | awk 'NR <= 25' \
    | sed -E 's/[ -]+$//' | awk '{ sym = $3; for (i = 4; i <= NF; i++) sym = sym " " $i; printf "  %7s  %s\n", $1, substr(sym, 1, 140) }'
done
