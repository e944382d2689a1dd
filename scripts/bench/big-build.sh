#!/usr/bin/env bash
# A state-scale build, measured: throughput over time, peak memory, the cost of resuming after a
# SIGKILL half-way, and an incremental update after one source sheet changes, against a full
# rebuild. Optionally the same build with another trailmap binary, for an A/B of the writer.
#
# usage: scripts/bench/big-build.sh
# env:   ZOOM      zoom range (default 6-15: ~120,000 tiles over the 8 UTM sheets, 50 m pixels
#                  upsampled ~15x at zoom 15)
#        THREADS   --threads (default 2)
#        DATA      inputs of scripts/bench/make-utm-mosaic.sh (made there if missing, ~30 s;
#                  default /tmp/tm-bench; the sheets are copied, never changed in place)
#        TRAILMAP  trailmap binary (default: built with swift build -c release --scratch-path .build-bench)
#        BASELINE  another trailmap binary to time on the same build first (e.g. one built before
#                  the resumable writer), or unset
#        STEPS     after the full build: resume,update (default both)
#        WORK      scratch dir (default: mktemp -d, removed at exit)
#
# Prints: the full build's time, tiles, tiles/s in each tenth of the build (from the progress
# lines, every 5 s) and the ratio of the last tenth's rate to the first's (target >= 0.9), peak
# RSS; the resume: a build SIGKILLed once its progress passes 50%, then run again: the second
# run's time, and (first part + second) / full - 1 as the resume overhead; the update: one
# sheet repainted (a 20% square of it), `--update` against a full rebuild: time ratio, tiles
# re-rendered, and whether the two bundles hold the same tiles (sqlite3 over both).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ZOOM=${ZOOM:-6-15}
THREADS=${THREADS:-2}
STEPS=${STEPS:-resume,update}
MINZ=${ZOOM%-*} MAXZ=${ZOOM#*-}
source "$ROOT/scripts/lib/mosaic-bench.sh"
SOURCES=()
for f in "$WORK"/sheets/*.tif; do SOURCES+=(--source "$f"); done
args() { echo build "${SOURCES[@]}" --name Big --minzoom "$MINZ" --maxzoom "$MAXZ" --threads "$THREADS" --out "$1"; }

# Runs a build; stderr progress lines get a timestamp. $1 binary, $2 output, $3 log; extra env from the caller.
timed_build() {
  local bin=$1 out=$2 log=$3
  local start; start=$(date +%s.%N)
  /usr/bin/time -f "%e %M" -o "$log.time" "$bin" $(args "$out") 2>&1 >/dev/null |
    while IFS= read -r line; do echo "$(date +%s.%N) $line"; done >"$log" || true
  echo "$start" >"$log.start"
}

# Rates per tenth of the tiles, from "tiles DONE/TOTAL" lines: prints the tenths and last/first.
rates() {
  python3 - "$1" "$(cat "$1.start")" <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
start = float(sys.argv[2])
pts = [(0.0, 0)]
total = None
for l in lines:
    m = re.match(r"([\d.]+) tiles (\d+)/(\d+)", l)
    if m:
        pts.append((float(m.group(1)) - start, int(m.group(2))))
        total = int(m.group(3))
if not total or len(pts) < 4:
    print("  too few progress lines for rates"); sys.exit()
def time_at(done):
    for (t0, d0), (t1, d1) in zip(pts, pts[1:]):
        if d1 >= done:
            return t0 + (t1 - t0) * (done - d0) / max(d1 - d0, 1)
    return None
last_done = pts[-1][1]
tenth = total / 10
rates = []
for k in range(10):
    a, b = time_at(k * tenth), time_at(min((k + 1) * tenth, last_done))
    if a is None or b is None or b <= a: break
    rates.append((min((k + 1) * tenth, last_done) - k * tenth) / (b - a))
print("  tiles/s per tenth: " + ", ".join(f"{r:,.0f}" for r in rates))
if len(rates) == 10:
    print(f"  last tenth / first tenth: {rates[-1] / rates[0]:.2f} (target >= 0.90)")
EOF
}

count() { sqlite3 "$1" "SELECT COUNT(*) FROM map"; }
summary() { read -r secs rss <"$1.time"; echo "  $secs s, peak RSS $((rss / 1024)) MB, $(count "$2") tiles stored, $(du -m "$2" | cut -f1) MB"; }

echo "== big build: 8 UTM sheets, zooms $ZOOM, $THREADS threads"
if [ -n "${BASELINE:-}" ]; then
  echo "-- baseline $BASELINE"
  timed_build "$BASELINE" "$WORK/baseline.mbtiles" "$WORK/baseline.log"
  summary "$WORK/baseline.log" "$WORK/baseline.mbtiles"; rates "$WORK/baseline.log"
  rm -f "$WORK/baseline.mbtiles"
fi
echo "-- full build ($TRAILMAP)"
timed_build "$TRAILMAP" "$WORK/full.mbtiles" "$WORK/full.log"
summary "$WORK/full.log" "$WORK/full.mbtiles"; rates "$WORK/full.log"
read -r full_secs _ <"$WORK/full.log.time"

if [[ ,$STEPS, == *,resume,* ]]; then
echo "-- resume: SIGKILL past 50%, then the same command again"
start=$(date +%s.%N)
"$TRAILMAP" $(args "$WORK/resumed.mbtiles") 2>"$WORK/killed.log" >/dev/null &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
  pct=$(grep -oE '\(([0-9.]+)%\)' "$WORK/killed.log" | tail -1 | tr -d '()%' || true)
  if [ -n "$pct" ] && python3 -c "import sys; sys.exit(0 if float('$pct') >= 50 else 1)"; then kill -9 "$pid"; break; fi
  sleep 0.2
done
wait "$pid" 2>/dev/null || true
first=$(python3 -c "import time; print(f'{time.time() - $start:.2f}')")
echo "  killed at ${pct:-?}% after $first s"
timed_build "$TRAILMAP" "$WORK/resumed.mbtiles" "$WORK/resume.log"
read -r second _ <"$WORK/resume.log.time"
python3 -c "f=$full_secs; a=$first; b=$second; print(f'  resumed run {b:.1f} s; killed + resumed {a + b:.1f} s vs {f:.1f} s uninterrupted: overhead {(a + b) / f - 1:+.1%}')"
same=$(diff <(sqlite3 "$WORK/full.mbtiles" "SELECT zoom_level, tile_column, tile_row, tile_id FROM map ORDER BY 1, 2, 3") \
            <(sqlite3 "$WORK/resumed.mbtiles" "SELECT zoom_level, tile_column, tile_row, tile_id FROM map ORDER BY 1, 2, 3") >/dev/null && echo yes || echo NO)
echo "  same tiles as the uninterrupted build: $same"
fi

if [[ ,$STEPS, == *,update,* ]]; then
echo "-- update: one sheet repainted, --update against a full rebuild"
sheet=$WORK/sheets/sheet_38n109w.tif   # LZW, nodata 0: updatable in place
read -r x0 y0 x1 y1 < <(gdalinfo -json "$sheet" | python3 -c "
import json, sys
c = json.load(sys.stdin)['cornerCoordinates']
(l, t), (r, b) = c['upperLeft'], c['lowerRight']
w, h = r - l, t - b
print(l + 0.4 * w, b + 0.4 * h, l + 0.6 * w, b + 0.6 * h)")
printf '{"type": "FeatureCollection", "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::32612"}}, "features": [{"type": "Feature", "properties": {}, "geometry": {"type": "Polygon", "coordinates": [[[%s, %s], [%s, %s], [%s, %s], [%s, %s], [%s, %s]]]}}]}\n' \
  "$x0" "$y0" "$x1" "$y0" "$x1" "$y1" "$x0" "$y1" "$x0" "$y0" >"$WORK/patch.geojson"
gdal_rasterize -q -b 1 -b 2 -b 3 -burn 60 -burn 200 -burn 90 "$WORK/patch.geojson" "$sheet"
gdaladdo -q -r average "$sheet" 2 4 8 16   # its internal overviews, as the sheet's producer would
echo "  repainted a square of $(basename "$sheet")"
utime_start=$(date +%s.%N)
"$TRAILMAP" $(args "$WORK/updated.mbtiles") --update "$WORK/full.mbtiles" >"$WORK/update.out" 2>"$WORK/update.err"
utime=$(python3 -c "import time; print(f'{time.time() - $utime_start:.2f}')")
grep -E "^(updated|tiles:)" "$WORK/update.out" | sed 's/^/  /'
timed_build "$TRAILMAP" "$WORK/rebuilt.mbtiles" "$WORK/rebuild.log"
read -r rebuild _ <"$WORK/rebuild.log.time"
python3 -c "u=$utime; r=$rebuild; print(f'  update {u:.1f} s vs full rebuild {r:.1f} s: {u / r:.2f}x')"
same=$(diff <(sqlite3 "$WORK/rebuilt.mbtiles" "SELECT zoom_level, tile_column, tile_row, tile_id FROM map ORDER BY 1, 2, 3") \
            <(sqlite3 "$WORK/updated.mbtiles" "SELECT zoom_level, tile_column, tile_row, tile_id FROM map ORDER BY 1, 2, 3") >/dev/null && echo yes || echo NO)
echo "  same tiles as the full rebuild: $same"
fi
