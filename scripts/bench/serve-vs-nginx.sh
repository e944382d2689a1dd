#!/usr/bin/env bash
# Benchmark `trailmap serve` against nginx serving the same tiles as static files
# (exported with `trailmap bundle export`), with wrk, on 127.0.0.1 only.
#
# usage: scripts/bench/serve-vs-nginx.sh
# env:   TRAILMAP  trailmap binary (default: swift build -c release --scratch-path .build-bench)
#        BUNDLE    .mbtiles to serve (default: the Colorado + Utah sample, zoom 3-9)
#        DURATION  length of each run of (a) and (b) (default 10s)
#        CONNS     connections for (a) and (b) (default 50)
#        STRESS_CONNS, STRESS_DURATION  for (c) (default 1000, 30s)
#        STRESS_NGINX=1  also run (c) against nginx, for reference
#        PORTS     "NGINX_PORT TRAILMAP_PORT" (default "18481 18482")
#        WORK      scratch folder, new or empty (default: mktemp -d); removed at exit unless KEEP=1
#
# Runs wrk -t2 against each server for (a) one hot tile and (b) every tile of the bundle in turn,
# then (c) STRESS_CONNS connections against trailmap. Prints req/s, p50/p99/max latency and errors,
# the req/s ratio trailmap/nginx (target >= 0.5x) and the errors of (c) (target 0), with PASS/FAIL.
# Exits non-zero only when something fails to run: benchmarks inform, they don't gate.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE="$ROOT/scripts/bench"
DURATION=${DURATION:-10s}
CONNS=${CONNS:-50}
STRESS_CONNS=${STRESS_CONNS:-1000}
STRESS_DURATION=${STRESS_DURATION:-30s}
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
[[ $CONNS =~ ^[0-9]+$ && $STRESS_CONNS =~ ^[0-9]+$ ]] || die "CONNS and STRESS_CONNS must be numbers"
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
want=$((STRESS_CONNS * 2 + 1024))
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
  (cd "$ROOT" && run "$TRAILMAP" build --source Tiles/sources/utah.png --source Tiles/sources/colorado.png \
    --name bench --minzoom 3 --maxzoom 9 --out "$WORK/tiles/bench.mbtiles" --quiet) || die "trailmap build failed"
fi
run "$TRAILMAP" bundle export "$WORK/tiles/bench.mbtiles" --dir "$WORK/static" --quiet || die "trailmap bundle export failed"

find "$WORK/static" -name '*.png' -printf '/tiles/bench/%P\n' | shuf --random-source=<(yes) >"$WORK/all.txt"
NTILES=$(wc -l <"$WORK/all.txt")
[[ $NTILES -gt 0 ]] || die "the bundle has no tiles"
# The hot tile: the one of median size.
HOT=$(find "$WORK/static" -name '*.png' -printf '%s /tiles/bench/%P\n' | sort -n | sed -n "$((NTILES / 2 + 1))p" | cut -d' ' -f2)
echo "$HOT" >"$WORK/hot.txt"
echo "bundle: $NTILES tiles; hot tile $HOT ($(stat -c %s "$WORK/static/${HOT#/tiles/bench/}") B)" >&2

# --- servers ----------------------------------------------------------------------------------
user_line=""
[[ $EUID -eq 0 ]] && user_line="user root root;"   # workers read WORK as the master does
cat >"$WORK/nginx.conf" <<EOF
$user_line
worker_processes auto;
worker_rlimit_nofile $((STRESS_CONNS * 2 + 1024));
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log warn;
events { worker_connections $((STRESS_CONNS + 1024)); }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
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
NGINX_PID=$!
show "$TRAILMAP" serve --tiles "$WORK/tiles" --host 127.0.0.1 --port "$TM_PORT" "&"
"$TRAILMAP" serve --tiles "$WORK/tiles" --host 127.0.0.1 --port "$TM_PORT" >"$WORK/trailmap.log" 2>&1 &
PIDS+=($!)
TM_PID=$!

wait_for() {  # NAME PORT PID LOG
  local code=000
  for _ in $(seq 300); do
    code=$(curl -s -o /dev/null -w '%{http_code}' --max-time 2 "http://127.0.0.1:$2$HOT" || true)
    [[ $code == 200 ]] && return 0
    alive "$3" || { tail -n 20 "$4" >&2; die "$1 exited before answering (log above, $4)"; }
    sleep 0.1
  done
  tail -n 20 "$4" >&2
  die "$1 did not answer 200 for $HOT within 30 s (last status $code)"
}
wait_for nginx "$NGINX_PORT" "$NGINX_PID" "$WORK/nginx-error.log"
wait_for "trailmap serve" "$TM_PORT" "$TM_PID" "$WORK/trailmap.log"

echo "== checking that both serve every tile as exported" >&2
run python3 "$HERE/check_tiles.py" "$NGINX_PORT" "$WORK/all.txt" "$WORK/static" >"$WORK/check-nginx.txt" \
  || { cat "$WORK/check-nginx.txt" >&2; die "nginx does not serve the export as it is (config problem)"; }
run python3 "$HERE/check_tiles.py" "$TM_PORT" "$WORK/all.txt" "$WORK/static" >"$WORK/check-trailmap.txt" || true
CHECK=$(head -n 1 "$WORK/check-trailmap.txt" | sed -E 's/checked=([0-9]+) identical=([0-9]+)/\2\/\1 identical/')

# --- load ---------------------------------------------------------------------------------------
declare -A RPS P50 P99 MAX ERR NERR OVF
# Kernel counter of connections dropped because a listen queue was full (system-wide).
overflows() { awk '/^TcpExt:/ { if (!h) { split($0, k); h = 1 } else for (i in k) if (k[i] == "ListenOverflows") print $i }' /proc/net/netstat 2>/dev/null || echo 0; }
ms() { awk -v us="$1" 'BEGIN { printf (us >= 1000 ? "%.2fms" : "%dus"), (us >= 1000 ? us / 1000 : us) }'; }
bench() {  # KEY PORT PATHS CONNS DURATION
  local key=$1 port=$2 list=$3 conns=$4 dur=$5 out="$WORK/wrk-$1.txt" line ovf
  ovf=$(overflows)
  echo "== $key" >&2
  show wrk -t"$THREADS" -c"$conns" -d"$dur" --latency -s "$HERE/tiles.lua" "http://127.0.0.1:$port" -- "$list" "$THREADS"
  # In the background and waited for, so that Ctrl-C interrupts the script (bash would not run
  # the INT trap for a foreground wrk, which exits 0 on SIGINT); the trap stops it.
  timeout $(($(seconds "$dur") + 60)) wrk -t"$THREADS" -c"$conns" -d"$dur" --latency -s "$HERE/tiles.lua" \
    "http://127.0.0.1:$port" -- "$list" "$THREADS" >"$out" 2>&1 &
  LOAD_PID=$!
  wait "$LOAD_PID" || { cat "$out" >&2; die "wrk failed ($key)"; }
  LOAD_PID=""
  grep -v '^WRK ' "$out" | sed 's/^/    /' >&2
  OVF[$key]=$(($(overflows) - ovf))
  line=$(grep '^WRK ' "$out") || die "no summary from wrk ($key); see $out"
  local -A v
  for kv in ${line#WRK }; do v[${kv%%=*}]=${kv#*=}; done
  RPS[$key]=$(awk -v n="${v[requests]}" -v us="${v[duration_us]}" 'BEGIN { printf "%.0f", n / (us / 1e6) }')
  P50[$key]=$(ms "${v[p50_us]}") P99[$key]=$(ms "${v[p99_us]}") MAX[$key]=$(ms "${v[max_us]}")
  NERR[$key]=$((v[status] + v[connect] + v[read] + v[write] + v[timeout]))
  ERR[$key]="${NERR[$key]}"
  [[ ${NERR[$key]} -eq 0 ]] || ERR[$key]="${NERR[$key]} (non-2xx/3xx ${v[status]}, connect ${v[connect]}, read ${v[read]}, write ${v[write]}, timeout ${v[timeout]})"
  for pid in "$NGINX_PID" "$TM_PID"; do alive "$pid" || die "a server died during $key (logs: $WORK/trailmap.log, $WORK/nginx-error.log)"; done
  sleep 1
}
bench hot-nginx "$NGINX_PORT" "$WORK/hot.txt" "$CONNS" "$DURATION"
bench hot-trailmap "$TM_PORT" "$WORK/hot.txt" "$CONNS" "$DURATION"
bench all-nginx "$NGINX_PORT" "$WORK/all.txt" "$CONNS" "$DURATION"
bench all-trailmap "$TM_PORT" "$WORK/all.txt" "$CONNS" "$DURATION"
bench stress-trailmap "$TM_PORT" "$WORK/all.txt" "$STRESS_CONNS" "$STRESS_DURATION"
[[ "${STRESS_NGINX:-0}" == 1 ]] && bench stress-nginx "$NGINX_PORT" "$WORK/all.txt" "$STRESS_CONNS" "$STRESS_DURATION"
after=$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "http://127.0.0.1:$TM_PORT$HOT" || true)
RSS=$(awk '/VmHWM/ { printf "%.0f MB", $2 / 1024 }' "/proc/$TM_PID/status")

# --- report -------------------------------------------------------------------------------------
verdict() { awk "BEGIN { print ($1) ? \"PASS\" : \"FAIL\" }"; }
ratio() { awk -v a="${RPS[$1]}" -v b="${RPS[$2]}" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
hot_ratio=$(ratio hot-trailmap hot-nginx)
all_ratio=$(ratio all-trailmap all-nginx)
echo
echo "bundle: $NTILES tiles; wrk -t$THREADS; $(nproc) cores; nginx $("$NGINX" -v 2>&1 | sed 's|.*/||'); $("$TRAILMAP" --version 2>/dev/null | head -n 1 | sed 's/^/trailmap /')"
printf '%-34s %-9s %9s %9s %9s %9s  %s\n' test server req/s p50 p99 max errors
row() { printf '%-34s %-9s %9s %9s %9s %9s  %s\n' "$1" "$2" "${RPS[$3]}" "${P50[$3]}" "${P99[$3]}" "${MAX[$3]}" "${ERR[$3]}"; }
row "(a) hot tile, $CONNS conns, $DURATION" nginx hot-nginx
row "(a) hot tile, $CONNS conns, $DURATION" trailmap hot-trailmap
row "(b) all $NTILES tiles, $CONNS conns, $DURATION" nginx all-nginx
row "(b) all $NTILES tiles, $CONNS conns, $DURATION" trailmap all-trailmap
row "(c) all tiles, $STRESS_CONNS conns, $STRESS_DURATION" trailmap stress-trailmap
[[ -n "${RPS[stress-nginx]:-}" ]] && row "(c) all tiles, $STRESS_CONNS conns, $STRESS_DURATION" nginx stress-nginx
echo
printf '%-48s %-14s %-9s %s\n' figure value target result
printf '%-48s %-14s %-9s %s\n' "(a) hot tile req/s trailmap/nginx" "${hot_ratio}x" ">= 0.5x" "$(verdict "$hot_ratio >= 0.5")"
printf '%-48s %-14s %-9s %s\n' "(b) all tiles req/s trailmap/nginx" "${all_ratio}x" ">= 0.5x" "$(verdict "$all_ratio >= 0.5")"
printf '%-48s %-14s %-9s %s\n' "(c) errors at $STRESS_CONNS connections" "${NERR[stress-trailmap]}" "0" \
  "$(verdict "${NERR[stress-trailmap]} == 0")"
printf '%-48s %-14s %-9s %s\n' "(c) listen-queue overflows (kernel, all ports)" "${OVF[stress-trailmap]}" "" ""
[[ -n "${OVF[stress-nginx]:-}" ]] && printf '%-48s %-14s\n' "    same during (c) against nginx" "${OVF[stress-nginx]}"
printf '%-48s %-14s %-9s %s\n' "trailmap answers after (c)" "HTTP $after" "200" "$(verdict "\"$after\" == \"200\"")"
printf '%-48s %-14s %-9s %s\n' "trailmap serves every tile as exported" "$CHECK" "all" \
  "$(verdict "$(grep -c . "$WORK/check-trailmap.txt") == 1")"
tail -n +2 "$WORK/check-trailmap.txt"
printf '%-48s %s\n' "trailmap peak RSS" "${RSS:-?}"
if grep -qv '^TrailMap is serving' "$WORK/trailmap.log"; then
  echo "trailmap serve logged $(grep -cv '^TrailMap is serving' "$WORK/trailmap.log") line(s), the last:"
  grep -v '^TrailMap is serving' "$WORK/trailmap.log" | tail -n 5 | sed 's/^/    /'
fi
