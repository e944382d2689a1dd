#!/usr/bin/env bash
# Benchmark `trailmap serve` against nginx serving the same tiles as static files
# (exported with `trailmap bundle export`), with wrk, on 127.0.0.1 only.
#
# usage: scripts/bench/serve-vs-nginx.sh
# env:   TRAILMAP  trailmap binary (default: swift build -c release --scratch-path .build-bench)
#        BEFORE    another trailmap binary (e.g. an older commit's) measured in the same run
#        BUNDLE    .mbtiles to serve (default: the world relief Tiles/sources/world.png written by
#                  GDAL as MBTiles, zoom 0-6, 5,461 tiles: gdalwarp, gdal_translate, gdaladdo)
#        ROUNDS    rounds of (a), (b) and (d), each server in turn per round (default 3)
#        DURATION  length of each run of (a), (b) and (d) (default 10s)
#        CONNS     connections for (a), (b) and (d) (default 50)
#        MISS_BUDGET  cache budget of (d) (default: 64% of the tiles' bytes, as 64 MB over 100 MB)
#        STRESS_CONNS, STRESS_DURATION  for (c) (default 500, 20s)
#        STRESS_NGINX=1  also run (c) against nginx, for reference
#        PERF=1    record a cpu-clock profile of trailmap during (b) and (d) (perf; top symbols printed)
#        PORTS     "NGINX_PORT TRAILMAP_PORT" (default "18481 18482"; the next ports are used too)
#        WORK      scratch folder, new or empty (default: mktemp -d); removed at exit unless KEEP=1
#
# (a) one hot tile, the median-sized one and the largest; (b) every tile of the bundle in shuffled
# order, everything cached; (c) STRESS_CONNS connections against the server of (d), sampling its
# anonymous memory; (d) every tile with a cache budget below the tiles' bytes (misses read the
# bundle). Prints req/s, p50/p99/max latency, errors, and the CPU time per request of the server
# and of wrk for every run, then the median over rounds of the ratios trailmap/nginx (targets: hot
# >= 1.2x, all >= 1.0x, miss >= 0.5x of nginx and of the all-cached server), the same in CPU a
# request (nginx/trailmap; wrk shares the cores, so a req/s ratio is (nginx's CPU + wrk's) /
# (trailmap's + wrk's), and the CPU a request trailmap would need for the req/s target is printed
# beside it) and peak anonymous memory over the budget.
# Exits non-zero only when something fails to run: benchmarks inform, they don't gate.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE="$ROOT/scripts/bench"
DURATION=${DURATION:-10s}
CONNS=${CONNS:-50}
STRESS_CONNS=${STRESS_CONNS:-500}
STRESS_DURATION=${STRESS_DURATION:-20s}
ROUNDS=${ROUNDS:-3}
ports=${PORTS:-18481 18482}
read -r NGINX_PORT TM_PORT _ <<<"${ports//,/ }" || true
THREADS=2
PIDS=()      # servers started here, stopped at exit
LOAD_PID=""  # the running wrk (under timeout), if any
die() { echo "error: $*" >&2; exit 1; }
show() { local a out="+"; for a in "$@"; do [[ $a =~ [[:space:]] ]] && out+=" '$a'" || out+=" $a"; done; echo "$out" >&2; }
run() { show "$@"; "$@"; }
as_root() { if [[ $EUID -eq 0 ]]; then run "$@"; elif command -v sudo >/dev/null; then run sudo -n "$@"; else return 1; fi; }
install_pkg() {
  as_root apt-get install -y -qq "$@" >&2 || { as_root apt-get update -qq >&2 && as_root apt-get install -y -qq "$@" >&2; }
}
# alive PID: the process exists and is not a zombie.
alive() { [[ -r /proc/$1/stat ]] && [[ $(sed 's/.*) //' "/proc/$1/stat" | cut -d' ' -f1) != Z ]]; }
seconds() { case $1 in *ms) echo 1 ;; *s) echo "${1%s}" ;; *m) echo $((${1%m} * 60)) ;; *h) echo $((${1%h} * 3600)) ;; *) echo "$1" ;; esac; }

[[ $NGINX_PORT =~ ^[0-9]+$ && $TM_PORT =~ ^[0-9]+$ ]] || die "PORTS must be two port numbers, got \"${PORTS:-}\""
[[ $CONNS =~ ^[0-9]+$ && $STRESS_CONNS =~ ^[0-9]+$ && $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "CONNS, STRESS_CONNS and ROUNDS must be numbers"
[[ $(seconds "$DURATION") =~ ^[0-9]+$ && $(seconds "$STRESS_DURATION") =~ ^[0-9]+$ ]] \
  || die "DURATION/STRESS_DURATION must look like 10s, 2m or 30"

# --- scratch folder and cleanup ---------------------------------------------------------------
if [[ -n "${WORK:-}" ]]; then
  mkdir -p "$WORK"
  [[ -z $(ls -A "$WORK") ]] || die "WORK=$WORK is not empty (everything in WORK is removed at exit)"
  WORK=$(cd "$WORK" && pwd)
else
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/serve-vs-nginx.XXXXXX")
fi
chmod 755 "$WORK"   # nginx workers may run as another user

cleanup() {
  local rc=$? pid workers
  set +e
  [[ -n $LOAD_PID ]] && kill -TERM "$LOAD_PID" 2>/dev/null && wait "$LOAD_PID" 2>/dev/null
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 100); do alive "$pid" || break; sleep 0.1; done
    if alive "$pid"; then
      workers=$(pgrep -P "$pid")
      echo "process $pid did not stop on TERM within 10 s; killing it" >&2
      kill -KILL "$pid" $workers 2>/dev/null
    fi
    wait "$pid" 2>/dev/null
  done
  if [[ "${KEEP:-0}" == 1 ]]; then echo "kept $WORK" >&2; else rm -rf "$WORK"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Enough descriptors for STRESS_CONNS sockets in wrk and in the servers (inherited by both).
want=$((STRESS_CONNS * 2 + 16384))
if [[ $(ulimit -n) != unlimited && $(ulimit -n) -lt $want ]]; then
  hard=$(ulimit -Hn)
  if [[ $hard != unlimited && $hard -lt $want ]]; then ulimit -Hn "$want" 2>/dev/null || want=$hard; fi
  run ulimit -n "$want"
fi
[[ $(ulimit -n) == unlimited || $(ulimit -n) -ge $((STRESS_CONNS + 64)) ]] \
  || echo "warning: ulimit -n is $(ulimit -n); $STRESS_CONNS connections may fail for lack of descriptors" >&2

# --- tools ------------------------------------------------------------------------------------
for port in "$NGINX_PORT" "$TM_PORT"; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then die "port $port on 127.0.0.1 is in use (set PORTS)"; fi
done
command -v wrk >/dev/null || install_pkg wrk || die "wrk not found and could not be installed (apt-get install wrk)"
command -v curl >/dev/null || install_pkg curl || die "curl not found (apt-get install curl)"
command -v python3 >/dev/null || die "python3 not found"
NGINX=$(command -v nginx || true)
[[ -z $NGINX && -x /usr/sbin/nginx ]] && NGINX=/usr/sbin/nginx
if [[ -z $NGINX ]]; then
  install_pkg nginx-light || install_pkg nginx || die "nginx not found and could not be installed (apt-get install nginx-light)"
  NGINX=$(command -v nginx || echo /usr/sbin/nginx)
fi
[[ -x $NGINX ]] || die "nginx not found at $NGINX"

if [[ -z "${TRAILMAP:-}" ]]; then
  (cd "$ROOT" && run swift build -c release --scratch-path .build-bench --product trailmap >&2) || die "swift build failed"
  TRAILMAP="$ROOT/.build-bench/release/trailmap"
fi
[[ -x "$TRAILMAP" ]] || die "TRAILMAP=$TRAILMAP is not an executable"

# --- bundle, export, request lists ------------------------------------------------------------
mkdir -p "$WORK/tiles" "$WORK/tmp"
if [[ -n "${BUNDLE:-}" ]]; then
  [[ -f $BUNDLE ]] || die "BUNDLE=$BUNDLE not found"
  ln "$BUNDLE" "$WORK/tiles/bench.mbtiles" 2>/dev/null || run cp "$BUNDLE" "$WORK/tiles/bench.mbtiles"
else
  # The world relief as GDAL writes it (plain MBTiles layout: no stored tile ids).
  run gdalwarp -q -s_srs EPSG:4326 -t_srs EPSG:3857 -te -20037508.34 -20037508.34 20037508.34 20037508.34 \
    -ts 16384 16384 -r bilinear -co TILED=YES "$ROOT/Tiles/sources/world.png" "$WORK/world-3857.tif" || die "gdalwarp failed"
  run gdal_translate -q -of MBTILES -co TILE_FORMAT=PNG -co NAME=bench "$WORK/world-3857.tif" "$WORK/tiles/bench.mbtiles" \
    || die "gdal_translate failed"
  run gdaladdo -q -r average "$WORK/tiles/bench.mbtiles" 2 4 8 16 32 64 || die "gdaladdo failed"
  rm -f "$WORK/world-3857.tif"
fi
run "$TRAILMAP" bundle export "$WORK/tiles/bench.mbtiles" --dir "$WORK/static" --quiet || die "trailmap bundle export failed"

find "$WORK/static" -name '*.png' -printf '/tiles/bench/%P\n' | shuf --random-source=<(yes) >"$WORK/all.txt"
NTILES=$(wc -l <"$WORK/all.txt")
[[ $NTILES -gt 0 ]] || die "the bundle has no tiles"
TILE_BYTES=$(find "$WORK/static" -name '*.png' -printf '%s\n' | awk '{ s += $1 } END { print s }')
find "$WORK/static" -name '*.png' -printf '%s /tiles/bench/%P\n' | sort -n >"$WORK/sizes.txt"
HOT=$(sed -n "$((NTILES / 2 + 1))p" "$WORK/sizes.txt" | cut -d' ' -f2)      # the median-sized tile
BIG=$(tail -n 1 "$WORK/sizes.txt" | cut -d' ' -f2)                           # the largest
echo "$HOT" >"$WORK/hot.txt"
echo "$BIG" >"$WORK/big.txt"
size_of() { stat -c %s "$WORK/static/${1#/tiles/bench/}"; }
MISS_BUDGET=${MISS_BUDGET:-$((TILE_BYTES * 64 / 100 / 1048576))MB}
echo "bundle: $NTILES tiles, $((TILE_BYTES / 1048576)) MB; hot tile $HOT ($(size_of "$HOT") B), largest $BIG ($(size_of "$BIG") B); miss budget $MISS_BUDGET" >&2

# --- servers ----------------------------------------------------------------------------------
user_line=""
[[ $EUID -eq 0 ]] && user_line="user root root;"   # workers read WORK as the master does
cat >"$WORK/nginx.conf" <<EOF
$user_line
worker_processes auto;
worker_rlimit_nofile $((STRESS_CONNS * 2 + 16384));
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log warn;
events { worker_connections $((STRESS_CONNS + 1024)); }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    open_file_cache max=8192 inactive=60s;
    keepalive_timeout 65;
    keepalive_requests 1000000;
    types { image/png png; application/json json; }
    default_type application/octet-stream;
    client_body_temp_path $WORK/tmp/body;
    server {
        listen 127.0.0.1:$NGINX_PORT;
        location /tiles/bench/ { alias $WORK/static/; }
    }
}
EOF
nginx_args=(-c "$WORK/nginx.conf" -p "$WORK/" -g "daemon off;")
"$NGINX" -h 2>&1 | grep -q -- '-e filename' && nginx_args+=(-e "$WORK/nginx-error.log")
run "$NGINX" -t -q "${nginx_args[@]}" || die "nginx rejects $WORK/nginx.conf"
show "$NGINX" "${nginx_args[@]}" "&"
"$NGINX" "${nginx_args[@]}" >"$WORK/nginx.out" 2>&1 &
PIDS+=($!)
declare -A PORT_OF PID_OF LOG_OF
PORT_OF[nginx]=$NGINX_PORT PID_OF[nginx]=$! LOG_OF[nginx]="$WORK/nginx-error.log"

start_trailmap() {  # NAME BINARY PORT [serve flags...]
  local name=$1 bin=$2 port=$3
  shift 3
  for p in "$port"; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then die "port $p on 127.0.0.1 is in use (set PORTS)"; fi
  done
  # In the scratch folder: no catalog found by default (Catalog/catalog.sqlite in the checkout).
  show cd "$WORK" "&&" "$bin" serve --tiles "$WORK/tiles" --host 127.0.0.1 --port "$port" "$@" "&"
  (cd "$WORK" && exec "$bin" serve --tiles "$WORK/tiles" --host 127.0.0.1 --port "$port" "$@") >"$WORK/$name.log" 2>&1 &
  PIDS+=($!)
  PORT_OF[$name]=$port PID_OF[$name]=$! LOG_OF[$name]="$WORK/$name.log"
}
SERVERS=(nginx trailmap)
start_trailmap trailmap "$TRAILMAP" "$TM_PORT"
start_trailmap trailmap-miss "$TRAILMAP" $((TM_PORT + 1)) --cache-budget "$MISS_BUDGET"
MISS_SERVERS=(trailmap-miss)
if [[ -n "${BEFORE:-}" ]]; then
  [[ -x $BEFORE ]] || die "BEFORE=$BEFORE is not an executable"
  start_trailmap before "$BEFORE" $((TM_PORT + 2))
  start_trailmap before-miss "$BEFORE" $((TM_PORT + 3)) --cache-budget "$MISS_BUDGET"
  SERVERS+=(before)
  MISS_SERVERS+=(before-miss)
fi

wait_for() {  # NAME
  local code=000 name=$1
  for _ in $(seq 300); do
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:${PORT_OF[$name]}$HOT" || true)
    [[ $code == 200 ]] && return 0
    alive "${PID_OF[$name]}" || { tail -n 20 "${LOG_OF[$name]}" >&2; die "$name exited before answering (log above)"; }
    sleep 0.1
  done
  tail -n 20 "${LOG_OF[$name]}" >&2
  die "$name did not answer 200 for $HOT within 30 s (last status $code)"
}
for name in "${SERVERS[@]}" "${MISS_SERVERS[@]}"; do wait_for "$name"; done

echo "== checking that every server serves every tile as exported" >&2
run python3 "$HERE/check_tiles.py" "$NGINX_PORT" "$WORK/all.txt" "$WORK/static" >"$WORK/check-nginx.txt" \
  || { cat "$WORK/check-nginx.txt" >&2; die "nginx does not serve the export as it is (config problem)"; }
declare -A CHECK
for name in "${SERVERS[@]:1}" "${MISS_SERVERS[@]}"; do
  run python3 "$HERE/check_tiles.py" "${PORT_OF[$name]}" "$WORK/all.txt" "$WORK/static" >"$WORK/check-$name.txt" || true
  CHECK[$name]=$(head -n 1 "$WORK/check-$name.txt" | sed -E 's/checked=([0-9]+) identical=([0-9]+)/\2\/\1 identical/')
  [[ $(grep -c . "$WORK/check-$name.txt") == 1 ]] || CHECK[$name]+=" ($(tail -n +2 "$WORK/check-$name.txt" | head -n 3 | tr '\n' ' '))"
done

# --- load ---------------------------------------------------------------------------------------
declare -A RPS P50 P99 MAX ERR NERR OVF CPU CPUUS WRKUS
# Kernel counter of connections dropped because a listen queue was full (system-wide).
overflows() { awk '/^TcpExt:/ { if (!h) { split($0, k); h = 1 } else for (i in k) if (k[i] == "ListenOverflows") print $i }' /proc/net/netstat 2>/dev/null || echo 0; }
ms() { awk -v us="$1" 'BEGIN { printf (us >= 1000 ? "%.2fms" : "%dus"), (us >= 1000 ? us / 1000 : us) }'; }
# CPU ticks (user + system) of a process and its children processes (nginx's workers).
ticks() {
  local pid total=0 t
  for pid in "$1" $(pgrep -P "$1" || true); do
    t=$(awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat" 2>/dev/null || echo 0)
    total=$((total + t))
  done
  echo "$total"
}
HZ=$(getconf CLK_TCK)
# Sets VAR to the CPU seconds (user + system) of this shell's reaped children (wrk's, once waited
# for). `times` runs in this shell: a subshell's children are its own.
children_seconds() {  # VAR
  times >"$WORK/times.txt"
  printf -v "$1" '%s' "$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, p, "m"); t += p[1] * 60 + p[2] } printf "%.3f", t }' "$WORK/times.txt")"
}
bench() {  # KEY SERVER PATHS CONNS DURATION
  local key=$1 name=$2 list=$3 conns=$4 dur=$5 out="$WORK/wrk-$1.txt" line ovf t0 t1 port=${PORT_OF[$2]}
  ovf=$(overflows)
  t0=$(ticks "${PID_OF[$name]}")
  local w0 w1
  children_seconds w0
  echo "== $key" >&2
  show wrk -t"$THREADS" -c"$conns" -d"$dur" --latency -s "$HERE/tiles.lua" "http://127.0.0.1:$port" -- "$list" "$THREADS"
  # In the background and waited for, so that Ctrl-C interrupts the script (bash would not run
  # the INT trap for a foreground wrk, which exits 0 on SIGINT); the trap stops it.
  timeout $(($(seconds "$dur") + 60)) wrk -t"$THREADS" -c"$conns" -d"$dur" --latency -s "$HERE/tiles.lua" \
    "http://127.0.0.1:$port" -- "$list" "$THREADS" >"$out" 2>&1 &
  LOAD_PID=$!
  wait "$LOAD_PID" || { cat "$out" >&2; die "wrk failed ($key)"; }
  LOAD_PID=""
  t1=$(ticks "${PID_OF[$name]}")
  children_seconds w1
  grep -v '^WRK ' "$out" | sed 's/^/    /' >&2
  OVF[$key]=$(($(overflows) - ovf))
  line=$(grep '^WRK ' "$out") || die "no summary from wrk ($key); see $out"
  local -A v
  for kv in ${line#WRK }; do v[${kv%%=*}]=${kv#*=}; done
  RPS[$key]=$(awk -v n="${v[requests]}" -v us="${v[duration_us]}" 'BEGIN { printf "%.0f", n / (us / 1e6) }')
  CPUUS[$key]=$(awk -v t=$((t1 - t0)) -v hz="$HZ" -v n="${v[requests]}" 'BEGIN { printf "%.2f", (n > 0 ? t / hz * 1e6 / n : 0) }')
  CPU[$key]=$(printf '%.1fus' "${CPUUS[$key]}")
  # wrk's own CPU a request (its tiles.lua included): the load generator shares the cores.
  WRKUS[$key]=$(awk -v a="$w0" -v b="$w1" -v n="${v[requests]}" 'BEGIN { printf "%.2f", (n > 0 ? (b - a) * 1e6 / n : 0) }')
  P50[$key]=$(ms "${v[p50_us]}") P99[$key]=$(ms "${v[p99_us]}") MAX[$key]=$(ms "${v[max_us]}")
  NERR[$key]=$((v[status] + v[connect] + v[read] + v[write] + v[timeout]))
  ERR[$key]="${NERR[$key]}"
  [[ ${NERR[$key]} -eq 0 ]] || ERR[$key]="${NERR[$key]} (non-2xx/3xx ${v[status]}, connect ${v[connect]}, read ${v[read]}, write ${v[write]}, timeout ${v[timeout]})"
  for n in "${SERVERS[@]}" "${MISS_SERVERS[@]}"; do alive "${PID_OF[$n]}" || die "$n died during $key (log: ${LOG_OF[$n]})"; done
  sleep 1
}
PERF_PIDS=()
perf_start() {  # NAME TAG
  [[ "${PERF:-0}" == 1 ]] || return 0
  command -v perf >/dev/null || { echo "perf not found: no profile" >&2; return 0; }
  perf record -e cpu-clock -F 499 -g -p "${PID_OF[$1]}" -o "$WORK/perf-$2.data" >/dev/null 2>&1 &
  PERF_PIDS+=($!)
}
perf_stop() {
  local pid
  for pid in "${PERF_PIDS[@]}"; do kill -INT "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
  PERF_PIDS=()
}
# Round r: every server in turn for each test, the order rotating between rounds (the miss
# servers' too: the one measured second tends to measure slower).
for r in $(seq "$ROUNDS"); do
  order=("${SERVERS[@]}")
  for ((k = 1; k < r; k++)); do order=("${order[@]:1}" "${order[0]}"); done
  for name in "${order[@]}"; do bench "hot-$name-$r" "$name" "$WORK/hot.txt" "$CONNS" "$DURATION"; done
  for name in "${order[@]}"; do bench "big-$name-$r" "$name" "$WORK/big.txt" "$CONNS" "$DURATION"; done
  for name in "${order[@]}"; do
    [[ $r == 1 && $name == trailmap ]] && perf_start trailmap all
    bench "all-$name-$r" "$name" "$WORK/all.txt" "$CONNS" "$DURATION"
    perf_stop
  done
  miss_order=("${MISS_SERVERS[@]}")
  for ((k = 1; k < r; k++)); do miss_order=("${miss_order[@]:1}" "${miss_order[0]}"); done
  for name in "${miss_order[@]}"; do
    [[ $r == 1 && $name == trailmap-miss ]] && perf_start trailmap-miss miss
    bench "miss-$name-$r" "$name" "$WORK/all.txt" "$CONNS" "$DURATION"
    perf_stop
  done
done
# (c): many connections against the miss server, its anonymous memory sampled.
SAMPLER=""
( peak=0; while alive "${PID_OF[trailmap-miss]}"; do
    a=$(awk '/RssAnon/ { print $2 }' "/proc/${PID_OF[trailmap-miss]}/status" 2>/dev/null || echo 0)
    (( a > peak )) && peak=$a && echo "$peak" >"$WORK/anon-peak"; sleep 0.1; done ) &
SAMPLER=$!
bench stress-trailmap trailmap-miss "$WORK/all.txt" "$STRESS_CONNS" "$STRESS_DURATION"
kill "$SAMPLER" 2>/dev/null; wait "$SAMPLER" 2>/dev/null || true
[[ "${STRESS_NGINX:-0}" == 1 ]] && bench stress-nginx nginx "$WORK/all.txt" "$STRESS_CONNS" "$STRESS_DURATION"
after=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$TM_PORT$HOT" || true)
ANON_PEAK_MB=$(awk '{ printf "%.1f", $1 / 1024 }' "$WORK/anon-peak" 2>/dev/null || echo "?")
# The sendfile copies of large tiles are shared memory (not RssAnon): read from the server's gauge.
FILES_MB=$(curl -s --max-time 5 "http://127.0.0.1:$((TM_PORT + 1))/metrics" \
  | awk '$1 == "trailmap_tile_files_bytes" { printf "%.1f", $2 / 1048576; found = 1 } END { if (!found) print "?" }')
BUDGET_MB=$(awk -v b="$MISS_BUDGET" 'BEGIN { n = b + 0; if (b ~ /G/) n *= 1024; if (b ~ /K/) n /= 1024; printf "%.1f", n }')

# --- report -------------------------------------------------------------------------------------
verdict() { awk "BEGIN { print ($1) ? \"PASS\" : \"FAIL\" }"; }
ratio() { awk -v a="${RPS[$1]}" -v b="${RPS[$2]}" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
echo
echo "bundle: $NTILES tiles, $((TILE_BYTES / 1048576)) MB; wrk -t$THREADS; $(nproc) cores; $ROUNDS rounds; nginx $("$NGINX" -v 2>&1 | sed 's|.*/||'); $("$TRAILMAP" --version 2>/dev/null | head -n 1 | sed 's/^/trailmap /')"
printf '%-38s %-14s %9s %9s %9s %9s %10s %10s  %s\n' test server req/s p50 p99 max "cpu/req" "wrk cpu" errors
row() { printf '%-38s %-14s %9s %9s %9s %9s %10s %10s  %s\n' "$1" "$2" "${RPS[$3]}" "${P50[$3]}" "${P99[$3]}" "${MAX[$3]}" "${CPU[$3]}" "${WRKUS[$3]}us" "${ERR[$3]}"; }
for r in $(seq "$ROUNDS"); do
  for name in "${SERVERS[@]}"; do row "(a) hot $(size_of "$HOT") B, round $r" "$name" "hot-$name-$r"; done
  for name in "${SERVERS[@]}"; do row "(a) largest $(size_of "$BIG") B, round $r" "$name" "big-$name-$r"; done
  for name in "${SERVERS[@]}"; do row "(b) all $NTILES tiles, round $r" "$name" "all-$name-$r"; done
  for name in "${MISS_SERVERS[@]}"; do row "(d) all, budget $MISS_BUDGET, round $r" "$name" "miss-$name-$r"; done
done
row "(c) all, $STRESS_CONNS conns, budget $MISS_BUDGET" trailmap-miss stress-trailmap
[[ -n "${RPS[stress-nginx]:-}" ]] && row "(c) all, $STRESS_CONNS conns" nginx stress-nginx
echo
figure() {  # LABEL NUM DEN TARGET
  local vals="" r
  for r in $(seq "$ROUNDS"); do vals+=" $(ratio "$2-$r" "$3-$r")"; done
  local m
  m=$(echo "$vals" | median)
  printf '%-52s %-8s %-22s %-8s %s\n' "$1" "${m}x" "(rounds:$vals)" ">= ${4}x" "$(verdict "$m >= $4")"
  MEDIAN[$2/$3]=$m
}
declare -A MEDIAN
printf '%-52s %-8s %-22s %-8s %s\n' "figure (median over rounds)" value "" target result
figure "(a) hot tile req/s trailmap/nginx" hot-trailmap hot-nginx 1.2
figure "(a) largest tile req/s trailmap/nginx" big-trailmap big-nginx 1.2
figure "(b) all tiles req/s trailmap/nginx" all-trailmap all-nginx 1.0
figure "(d) budget below the data: trailmap/nginx" miss-trailmap-miss all-nginx 0.5
figure "(d) budget below the data: trailmap/all cached" miss-trailmap-miss all-trailmap 0.5
if [[ -n "${BEFORE:-}" ]]; then
  figure "    before: (a) hot tile trailmap/nginx" hot-before hot-nginx 1.2
  figure "    before: (a) largest tile trailmap/nginx" big-before big-nginx 1.2
  figure "    before: (b) all tiles trailmap/nginx" all-before all-nginx 1.0
  figure "    before: (d) budget below the data/nginx" miss-before-miss all-nginx 0.5
  figure "    before: (d) budget below the data/all cached" miss-before-miss all-before 0.5
fi
# The same figures in CPU a request: what each server spends, without the load generator's share.
# wrk runs on the same cores, so req/s ratios are (nginx's CPU + wrk's) / (trailmap's + wrk's):
# "needs" is the CPU a request at which trailmap would reach the target in req/s.
cpu_figure() {  # LABEL TRAILMAP-KEY NGINX-KEY TARGET
  local vals="" needs="" r
  for r in $(seq "$ROUNDS"); do
    vals+=" $(awk -v t="${CPUUS[$2-$r]}" -v n="${CPUUS[$3-$r]}" 'BEGIN { printf "%.2f", (t > 0 ? n / t : 0) }')"
    needs+=" $(awk -v n="${CPUUS[$3-$r]}" -v wn="${WRKUS[$3-$r]}" -v wt="${WRKUS[$2-$r]}" -v g="$4" 'BEGIN { printf "%.1f", (n + wn) / g - wt }')"
  done
  CPUMEDIAN[$2/$3]=$(echo "$vals" | median)
  printf '%-52s %-8s %s\n' "$1" "${CPUMEDIAN[$2/$3]}x" "(rounds:$vals; ${4}x in req/s needs trailmap at$needs us)"
}
declare -A CPUMEDIAN
printf '%-52s %-8s %s\n' "CPU a request, nginx/trailmap (median over rounds)" value ""
cpu_figure "(a) hot tile" hot-trailmap hot-nginx 1.2
cpu_figure "(a) largest tile" big-trailmap big-nginx 1.2
cpu_figure "(b) all tiles" all-trailmap all-nginx 1.0
if [[ -n "${BEFORE:-}" ]]; then
  cpu_figure "    before: (a) hot tile" hot-before hot-nginx 1.2
  cpu_figure "    before: (a) largest tile" big-before big-nginx 1.2
  cpu_figure "    before: (b) all tiles" all-before all-nginx 1.0
fi
printf '%-52s %-8s\n' "(c) errors at $STRESS_CONNS connections" "${NERR[stress-trailmap]}"
printf '%-52s %-8s\n' "(c) listen-queue overflows (kernel, all ports)" "${OVF[stress-trailmap]}"
over=$(awk -v a="$ANON_PEAK_MB" -v b="$BUDGET_MB" 'BEGIN { printf "%.1f", a - b }')
printf '%-52s %-8s %-22s %-8s %s\n' "(c) peak anonymous memory over the budget" "${over} MB" "(peak $ANON_PEAK_MB MB)" "<= 24 MB" "$(verdict "$over <= 24")"
printf '%-52s %-8s\n' "(c) sendfile copies (shared memory, beside it)" "${FILES_MB} MB"
printf '%-52s %-8s\n' "trailmap answers after (c)" "HTTP $after"
for name in "${SERVERS[@]:1}" "${MISS_SERVERS[@]}"; do
  printf '%-52s %s\n' "$name serves every tile as exported" "${CHECK[$name]}"
done
for name in "${SERVERS[@]:1}" "${MISS_SERVERS[@]}"; do
  if grep -qv '^TrailMap is serving' "${LOG_OF[$name]}"; then
    echo "$name logged $(grep -cv '^TrailMap is serving' "${LOG_OF[$name]}") line(s), the last:"
    grep -v '^TrailMap is serving' "${LOG_OF[$name]}" | tail -n 3 | sed 's/^/    /'
  fi
done
if [[ "${PERF:-0}" == 1 ]]; then
  for tag in all miss; do
    [[ -f "$WORK/perf-$tag.data" ]] || continue
    echo
    echo "== where trailmap's CPU went during ($([[ $tag == all ]] && echo b || echo d)), round 1 (perf cpu-clock, self time, top 30)"
    perf report -i "$WORK/perf-$tag.data" --no-children --sort symbol --stdio 2>/dev/null | grep -E '^ +[0-9]' | head -n 30
  done
fi

# --- the row of docs/benchmarks.md (RECORD=0: not written) ----------------------------------------
m() { echo "${MEDIAN[$1]:-?}"; }
what="the GDAL-written world relief"; [[ -n "${BUNDLE:-}" ]] && what=$(basename "$BUNDLE")
summary="$what ($NTILES tiles), wrk -t$THREADS -c$CONNS, median of $ROUNDS rounds: hot tile **$(m hot-trailmap/hot-nginx)x nginx**, largest $(m big-trailmap/big-nginx)x, all tiles cached **$(m all-trailmap/all-nginx)x**, budget $MISS_BUDGET below the data **$(m miss-trailmap-miss/all-nginx)x nginx** and $(m miss-trailmap-miss/all-trailmap)x the all-cached server; $STRESS_CONNS connections ${NERR[stress-trailmap]} errors at budget + ${over} MB (and ${FILES_MB} MB of sendfile copies); CPU a request nginx/trailmap: hot ${CPUMEDIAN[hot-trailmap/hot-nginx]}x, largest ${CPUMEDIAN[big-trailmap/big-nginx]}x, all ${CPUMEDIAN[all-trailmap/all-nginx]}x"
if [[ -n "${BEFORE:-}" ]]; then
  summary+="; BEFORE (another binary, same run): hot $(m hot-before/hot-nginx)x, largest $(m big-before/big-nginx)x, all $(m all-before/all-nginx)x, below the data $(m miss-before-miss/all-nginx)x nginx; CPU a request nginx/BEFORE: hot ${CPUMEDIAN[hot-before/hot-nginx]}x, largest ${CPUMEDIAN[big-before/big-nginx]}x, all ${CPUMEDIAN[all-before/all-nginx]}x"
fi
"$HERE/record-figures.py" serve-vs-nginx.sh "$summary. How a request is served: [serving.md](serving.md)"
