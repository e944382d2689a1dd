#!/usr/bin/env bash
# Trails overlay drawing: TrailMap's TrailRendering against Mapnik (Debian python3-mapnik)
# on the same generated state-sized network of random-walk trails, the same tiles at z10-16, the
# same widths, colours and casing; each times its rendering alone, single-threaded. Then the
# lines' coverage of both on a sample of the tiles (alpha >= 128, within one pixel).
# Usage: scripts/bench/trails-render.sh [LINES] [TILES_PER_ZOOM] [WORK_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/install-deps.sh python3-mapnik python3-numpy libcairo2-dev libpango1.0-dev fonts-dejavu-core
lines="${1:-6000}"
per_zoom="${2:-300}"
work="${3:-$(mktemp -d)}"
mkdir -p "$work"
swift build -c release --product trails-render-bench >&2
bin="$(swift build -c release --show-bin-path)/trails-render-bench"
/usr/bin/python3 scripts/bench/trails_mapnik.py generate "$work" "$lines" "$per_zoom"
echo "## TrailMap (TrailRendering)"
"$bin" "$work/lines.geojson" "$work/tiles.txt" --style "$work/style.json" | tee "$work/trailmap.txt"
echo "## Mapnik"
/usr/bin/python3 scripts/bench/trails_mapnik.py mapnik "$work" | tee "$work/mapnik.txt"
# The sample Mapnik wrote, drawn again by TrailMap to PNG files for the comparison (untimed).
find "$work/mapnik" -name '*.png' | sed -E "s|$work/mapnik/([0-9]+)/([0-9]+)/([0-9]+)\.png|\1 \2 \3|" > "$work/sample.txt"
"$bin" "$work/lines.geojson" "$work/sample.txt" --style "$work/style.json" --out "$work/trailmap" > /dev/null
ours=$(sed -nE 's/.* render ([0-9.]+) s, cpu ([0-9.]+) s$/\1 \2/p' "$work/trailmap.txt")
theirs=$(sed -nE 's/.* render ([0-9.]+) s, cpu ([0-9.]+) s$/\1 \2/p' "$work/mapnik.txt")
read -r ow oc <<< "$ours"
read -r tw tc <<< "$theirs"
echo "## render time: TrailMap ${ow} s (cpu ${oc} s), Mapnik ${tw} s (cpu ${tc} s);" \
  "ratio wall $(echo "scale=3; $ow / $tw" | bc), cpu $(echo "scale=3; $oc / $tc" | bc)"
echo "## coverage (sample)"
/usr/bin/python3 scripts/bench/trails_mapnik.py compare "$work"
echo "work: $work"
scripts/bench/record-figures.py trails-render.sh "$lines generated trails, $per_zoom tiles a zoom at z10-16, single-threaded render alone: **$(echo "scale=2; $ow / $tw" | bc | sed 's/^\./0./')x Mapnik's wall time** (${ow} s vs ${tw} s), $(echo "scale=2; $oc / $tc" | bc | sed 's/^\./0./')x its CPU time; coverage per zoom: scripts/bench/trails-render.sh's table"
