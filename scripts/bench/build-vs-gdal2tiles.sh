#!/usr/bin/env bash
# Benchmark `trailmap build` against `gdal2tiles.py` on the same source and zoom range.
#
# usage: scripts/bench/build-vs-gdal2tiles.sh
# env:   SOURCE    PNG + world file (.pgw/.pngw/.wld) in EPSG:4326
#                  (default: a 3933x1733 crop of the US from Tiles/sources/world.png, upsampled)
#        MINZOOM   (default 3)   MAXZOOM (default 8)
#        TRAILMAP  trailmap binary (default: swift build -c release --scratch-path .build-bench)
#        WORK      scratch dir (default: mktemp -d, removed at exit)
#        THREADS   threads/processes for both tools (default 2)
#
# Prints time ratio, bytes ratio, peak RSS and PSNR with targets and PASS/FAIL. Exits non-zero only
# when something fails to run: benchmarks inform, they don't gate.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
MINZOOM=${MINZOOM:-3}
MAXZOOM=${MAXZOOM:-8}
THREADS=${THREADS:-2}
die() { echo "error: $*" >&2; exit 1; }
run() { echo "+ $*" >&2; "$@"; }

if [[ -n "${WORK:-}" ]]; then mkdir -p "$WORK"; else WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT; fi

# --- tools ----------------------------------------------------------------------------------
command -v gdal2tiles.py >/dev/null || die "gdal2tiles.py not found (apt-get install gdal-bin python3-gdal)"
command -v gdal_translate >/dev/null || die "gdal_translate not found (apt-get install gdal-bin)"
[[ -x /usr/bin/time ]] || run apt-get install -y -qq time >/dev/null || die "/usr/bin/time missing"
PY=""
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import numpy, PIL' 2>/dev/null; then PY=$p; break; fi
done
if [[ -z "$PY" ]]; then
  for p in python3 /usr/bin/python3; do
    if "$p" -c 'import numpy' 2>/dev/null && "$p" -m pip install -q pillow >&2; then PY=$p; break; fi
  done
fi
[[ -n "$PY" ]] || die "no python3 with numpy + Pillow (pip install numpy pillow)"

if [[ -z "${TRAILMAP:-}" ]]; then
  (cd "$ROOT" && run swift build -c release --scratch-path .build-bench --product trailmap >&2) \
    || die "swift build failed (Sources/ mid-edit? TRAILMAP=/path/to/trailmap uses an existing binary)"
  TRAILMAP="$ROOT/.build-bench/release/trailmap"
fi
[[ -x "$TRAILMAP" ]] || die "TRAILMAP=$TRAILMAP is not an executable"

# --- source ---------------------------------------------------------------------------------
if [[ -z "${SOURCE:-}" ]]; then
  SOURCE="$WORK/us.png"   # gdal_translate writes us.wld beside it; square 0.015 deg pixels
  run gdal_translate -q -of PNG -a_srs EPSG:4326 -projwin -125 50 -66 24 -tr 0.015 0.015 \
    -r bilinear -co WORLDFILE=YES "$ROOT/Tiles/sources/world.png" "$SOURCE" || die "gdal_translate failed"
fi
[[ -f "$SOURCE" ]] || die "SOURCE=$SOURCE not found"
base=${SOURCE%.*}
[[ -f $base.pgw || -f $base.pngw || -f $base.wld ]] || die "no world file ($base.pgw/.pngw/.wld) beside $SOURCE"

# --- runs -----------------------------------------------------------------------------------
# timed CMD...: runs CMD under /usr/bin/time; sets SECS and RSS_KB. %M is the child's ru_maxrss,
# which for a process that forks workers is the max over it and its waited-for descendants
# (not a sum over concurrent processes).
timed() {
  echo "+ $*" >&2
  /usr/bin/time -f '%e %M' -o "$WORK/time.txt" "$@" >"$WORK/out.log" 2>&1 \
    || { cat "$WORK/out.log" >&2; die "command failed: $1"; }
  read -r SECS RSS_KB <"$WORK/time.txt"
}

rm -rf "$WORK/gdal" "$WORK/trailmap.mbtiles"
echo "== gdal2tiles, z$MINZOOM-$MAXZOOM" >&2
timed gdal2tiles.py --xyz --processes="$THREADS" -r average -s EPSG:4326 -z "$MINZOOM-$MAXZOOM" \
  -x -w none -n -q "$SOURCE" "$WORK/gdal"
G_SECS=$SECS G_RSS=$RSS_KB
echo "== trailmap, z$MINZOOM-$MAXZOOM" >&2
timed "$TRAILMAP" build --source "$SOURCE" --name bench --minzoom "$MINZOOM" --maxzoom "$MAXZOOM" \
  --out "$WORK/trailmap.mbtiles" --resampling average --threads "$THREADS" --quiet
T_SECS=$SECS T_RSS=$RSS_KB

echo "== comparing tiles" >&2
run "$PY" "$ROOT/scripts/bench/compare_tiles.py" "$WORK/trailmap.mbtiles" "$WORK/gdal" >"$WORK/cmp.txt" \
  || die "compare_tiles.py failed"
declare -A C
while IFS='=' read -r k v; do [[ -n $k && $k != *" "* ]] && C[$k]=$v; done < <(grep '^[a-z_]*=' "$WORK/cmp.txt")

# --- report ---------------------------------------------------------------------------------
verdict() { "$PY" -c "import sys; print('PASS' if $1 else 'FAIL')"; }
fmt() { "$PY" -c "print(f'{$1:.2f}')"; }
time_ratio=$(fmt "$G_SECS / max($T_SECS, 0.01)")
bytes_ratio=$(fmt "${C[trailmap_bytes]} / max(${C[gdal_bytes]}, 1)")
psnr=${C[psnr]}
echo
echo "source: $SOURCE ($(gdalinfo "$SOURCE" | sed -n 's/^Size is //p') px), zoom $MINZOOM-$MAXZOOM, $THREADS threads"
printf '%-34s %-24s %-12s %s\n' figure value target result
printf '%-34s %-24s %-12s %s\n' "time ratio (gdal2tiles/trailmap)" "${time_ratio}x (${G_SECS}s / ${T_SECS}s)" ">= 2x" \
  "$(verdict "$time_ratio >= 2")"
printf '%-34s %-24s %-12s %s\n' "bytes ratio (trailmap/gdal2tiles)" "${bytes_ratio}x" "<= 0.8x" \
  "$(verdict "$bytes_ratio <= 0.8")"
printf '%-34s %-24s %-12s %s\n' "PSNR trailmap vs gdal2tiles" "$psnr dB" ">= 30 dB" "$(verdict "float('$psnr') >= 30")"
printf '%-34s %s\n' "peak RSS trailmap" "$((T_RSS / 1024)) MB"
printf '%-34s %s\n' "peak RSS gdal2tiles" "$((G_RSS / 1024)) MB (max over waited-for process tree)"
printf '%-34s %s\n' "tiles trailmap / gdal2tiles / both" "${C[trailmap_tiles]} / ${C[gdal_tiles]} / ${C[common_tiles]}"
printf '%-34s %s\n' "bytes trailmap / gdal2tiles" \
  "${C[trailmap_bytes]} / ${C[gdal_bytes]} (trailmap deduplicated: ${C[trailmap_unique_tiles]} tiles, ${C[trailmap_unique_bytes]} B; bundle file $(stat -c %s "$WORK/trailmap.mbtiles") B)"
grep -v '^[a-z_]*=' "$WORK/cmp.txt"
