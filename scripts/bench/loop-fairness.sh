#!/usr/bin/env bash
# How long a plain request waits while another client pipelines requests without pause on the same
# server thread: `trailmap serve --tile-loops 1` against nginx with one worker, serving the same
# tile, on 127.0.0.1 only.
#
# usage: scripts/bench/loop-fairness.sh
# env:   TRAILMAP  trailmap binary (default: swift build -c release --scratch-path .build-bench)
#        BEFORE    another trailmap binary (e.g. an older commit's) measured in the same run
#        BUNDLE    .mbtiles to serve (default: the world relief Tiles/sources/world.png written by GDAL
#                  as MBTiles, zoom 0-4)
#        ROUNDS    rounds, each server in turn (default 3)
#        PROBES    requests timed per round and server (default 40)
#        PORTS     "NGINX_PORT TRAILMAP_PORT" (default "18581 18582"; BEFORE uses the next one)
#        WORK      scratch folder, new or empty (default: mktemp -d); removed at exit
#
# Each round and server: the median-sized tile is fetched once (cached), then one connection
# pipelines HEAD requests for it from one thread and reads the answers from another
# (pipeline_flood.py flood) while PROBES requests for it, each on a new connection, are timed one
# after another (pipeline_flood.py probe). Prints each run's median and largest wait and the flood's
# answers a second, then the median over rounds of the ratio of the median waits, trailmap/nginx
# (lower is better for trailmap). Exits non-zero only when something fails to run.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE="$ROOT/scripts/bench"
ROUNDS=${ROUNDS:-3}
PROBES=${PROBES:-40}
FLOOD_SECONDS=$((PROBES / 10 + 4))
ports=${PORTS:-18581 18582}
read -r NGINX_PORT TM_PORT _ <<<"${ports//,/ }" || true
PIDS=()
die() { echo "error: $*" >&2; exit 1; }
show() { local a out="+"; for a in "$@"; do [[ $a =~ [[:space:]] ]] && out+=" '$a'" || out+=" $a"; done; echo "$out" >&2; }
run() { show "$@"; "$@"; }
[[ $NGINX_PORT =~ ^[0-9]+$ && $TM_PORT =~ ^[0-9]+$ ]] || die "PORTS must be two port numbers, got \"${PORTS:-}\""
[[ $ROUNDS =~ ^[1-9][0-9]*$ && $PROBES =~ ^[1-9][0-9]*$ ]] || die "ROUNDS and PROBES must be positive numbers"

if [[ -n "${WORK:-}" ]]; then
  mkdir -p "$WORK"
  [[ -z $(ls -A "$WORK") ]] || die "WORK=$WORK is not empty (everything in WORK is removed at exit)"
  WORK=$(cd "$WORK" && pwd)
else
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/loop-fairness.XXXXXX")
fi
chmod 755 "$WORK"
cleanup() {
  local rc=$? pid
  set +e
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
  rm -rf "$WORK"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[[ -x $NGINX ]] || die "nginx not found (apt-get install nginx-light)"
if [[ -z "${TRAILMAP:-}" ]]; then
  (cd "$ROOT" && run swift build -c release --scratch-path .build-bench --product trailmap >&2) || die "swift build failed"
  TRAILMAP="$ROOT/.build-bench/release/trailmap"
fi
[[ -x "$TRAILMAP" ]] || die "TRAILMAP=$TRAILMAP is not an executable"

mkdir -p "$WORK/tiles" "$WORK/tmp"
if [[ -n "${BUNDLE:-}" ]]; then
  [[ -f $BUNDLE ]] || die "BUNDLE=$BUNDLE not found"
  run cp "$BUNDLE" "$WORK/tiles/bench.mbtiles"
else
  # The world relief in Web Mercator, zoom 0-4.
  run gdalwarp -q -s_srs EPSG:4326 -t_srs EPSG:3857 -te -20037508.34 -20037508.34 20037508.34 20037508.34 \
    -ts 4096 4096 -r bilinear "$ROOT/Tiles/sources/world.png" "$WORK/world.tif" || die "gdalwarp failed"
  run gdal_translate -q -of MBTILES -co TILE_FORMAT=PNG -co NAME=bench "$WORK/world.tif" "$WORK/tiles/bench.mbtiles" \
    || die "gdal_translate failed"
  run gdaladdo -q -r average "$WORK/tiles/bench.mbtiles" 2 4 8 16 || die "gdaladdo failed"
fi
run "$TRAILMAP" bundle export "$WORK/tiles/bench.mbtiles" --dir "$WORK/static" --quiet || die "trailmap bundle export failed"
HOT=$(find "$WORK/static" -name '*.png' -printf '%s /tiles/bench/%P\n' | sort -n | awk '{ a[NR] = $2 } END { print a[int(NR / 2) + 1] }')
[[ -n $HOT ]] || die "the bundle has no tiles"

user_line=""
[[ $EUID -eq 0 ]] && user_line="user root root;"
cat >"$WORK/nginx.conf" <<EOF
$user_line
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log warn;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    open_file_cache max=1024 inactive=60s;
    keepalive_requests 100000000;
    types { image/png png; }
    client_body_temp_path $WORK/tmp/body;
    server {
        listen 127.0.0.1:$NGINX_PORT;
        location /tiles/bench/ { alias $WORK/static/; }
    }
}
EOF
"$NGINX" -c "$WORK/nginx.conf" -p "$WORK/" -g "daemon off;" >"$WORK/nginx.out" 2>&1 &
PIDS+=($!)
declare -A PORT_OF=([nginx]=$NGINX_PORT)
SERVERS=(nginx trailmap)
start_trailmap() { # NAME BINARY PORT
  # In the scratch folder: no catalog found by default (Catalog/catalog.sqlite in the checkout).
  (cd "$WORK" && exec "$2" serve --tiles "$WORK/tiles" --host 127.0.0.1 --port "$3" --tile-loops 1 --log-level warning) >"$WORK/$1.log" 2>&1 &
  PIDS+=($!)
  PORT_OF[$1]=$3
}
start_trailmap trailmap "$TRAILMAP" "$TM_PORT"
if [[ -n "${BEFORE:-}" ]]; then
  [[ -x $BEFORE ]] || die "BEFORE=$BEFORE is not an executable"
  start_trailmap before "$BEFORE" $((TM_PORT + 1))
  SERVERS+=(before)
fi
for name in "${SERVERS[@]}"; do
  for _ in $(seq 300); do
    curl -sf -o /dev/null "http://127.0.0.1:${PORT_OF[$name]}$HOT" && continue 2
    sleep 0.1
  done
  die "$name does not answer $HOT on port ${PORT_OF[$name]} (see $WORK)"
done

median() { sort -n | awk '{ a[NR] = $1 } END { if (NR) print a[int((NR + 1) / 2)] }'; }
declare -A MEDIANS
echo "tile $HOT ($(stat -c %s "$WORK/static/${HOT#/tiles/bench/}") B); $PROBES probes a run; $(nproc) cores" >&2
printf '%-6s %-9s %12s %12s %16s\n' round server "median ms" "max ms" "flood answers/s"
for round in $(seq "$ROUNDS"); do
  for name in "${SERVERS[@]}"; do
    port=${PORT_OF[$name]}
    python3 "$HERE/pipeline_flood.py" flood "$port" "$HOT" "$FLOOD_SECONDS" >"$WORK/flood.txt" &
    flood=$!
    sleep 1
    python3 "$HERE/pipeline_flood.py" probe "$port" "$HOT" "$PROBES" >"$WORK/probe.txt" || die "$name: a probe failed"
    wait "$flood" || die "$name: the flood failed"
    med=$(median <"$WORK/probe.txt")
    max=$(sort -n "$WORK/probe.txt" | tail -n 1)
    # HEAD answers of one server differ little in size: answers a second from bytes over the first answer's size.
    bytes=$(awk '{ print $2 }' "$WORK/flood.txt")
    one=$(curl -sI "http://127.0.0.1:$port$HOT" | wc -c)
    printf '%-6s %-9s %12s %12s %16s\n' "$round" "$name" "$med" "$max" "$((bytes / one / FLOOD_SECONDS))"
    MEDIANS[$name]+="$med "
  done
done
ratio() { # NAME: median over rounds of NAME's median wait / nginx's
  local -a a b
  read -ra a <<<"${MEDIANS[$1]}"
  read -ra b <<<"${MEDIANS[nginx]}"
  for i in "${!a[@]}"; do awk -v x="${a[$i]}" -v y="${b[$i]}" 'BEGIN { printf "%.2f\n", x / y }'; done | median
}
echo "median wait beside the flood, trailmap/nginx (median over rounds; lower is better): $(ratio trailmap)x"
[[ -n "${BEFORE:-}" ]] && echo "    before: $(ratio before)x"
exit 0
