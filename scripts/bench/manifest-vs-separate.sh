#!/usr/bin/env bash
# Benchmark a levels-of-detail build (`trailmap build --manifest`: two map series and an
# overlay) against what a user did without it: one build per run of zooms that the same layers
# serve, then a merge of the bundles with sqlite3. Same machine, same run, same threads.
#
# usage: scripts/bench/manifest-vs-separate.sh
# env:   RUNS      timed runs of each way, interleaved (default 1)
#        THREADS   trailmap --threads (default 2)
#        TRAILMAP  trailmap binary (default: built with swift build -c release --scratch-path .build-bench)
#        DATA      inputs of scripts/bench/make-utm-mosaic.sh (made there if missing, ~30 s; default $WORK/data)
#        WORK      scratch dir (default: mktemp -d, removed at exit)
#
# The region: the 8 UTM map sheets of the mosaic case (110W-106W x 38N-40N, 50 m px) as the fine
# series at zooms 9-11; the single Albers GeoTIFF of the US (1000 m px) as the coarse series at
# zooms 6-8, cut to the sheets' extent (--bounds); a transparent trails overlay (made by
# scripts/make-sample-trails.py over the same extent at 0.001 degree, 300 made-up trails) at 8-11.
#   manifest: one `trailmap build --manifest` with those three layers.
#   separate: `build` z6-7 (coarse), `build` z8 (coarse + trails), `build` z9-11 (sheets + trails),
#             each with --bounds, then the bundles merged with sqlite3 (tiles, images, zoom range).
# Prints each way's time (best of RUNS), the ratio, the bytes of both bundles and how many tiles
# of the two are the same image (by the bundles' content hashes).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RUNS=${RUNS:-1}
THREADS=${THREADS:-2}
BOUNDS=-110,38,-106,40
die() { echo "error: $*" >&2; exit 1; }
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS=$RUNS is not a positive integer"
if [[ -n "${WORK:-}" ]]; then mkdir -p "$WORK"; WORK=$(cd "$WORK" && pwd)
else WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT; fi
DATA=${DATA:-$WORK/data}
command -v sqlite3 >/dev/null || "$ROOT/scripts/install-deps.sh" sqlite3 || die "sqlite3 missing"

if [[ -z "${TRAILMAP:-}" ]]; then
  (cd "$ROOT" && swift build -c release --scratch-path .build-bench --product trailmap >&2) || die "swift build failed"
  TRAILMAP="$ROOT/.build-bench/release/trailmap"
fi
[[ -d "$DATA/mosaic/sheets" && -f "$DATA/single/us-albers.tif" ]] || "$ROOT/scripts/bench/make-utm-mosaic.sh" "$DATA" >&2
SHEETS="$DATA/mosaic/sheets" COARSE="$DATA/single/us-albers.tif"
mkdir -p "$WORK/overlay"
[[ -f "$WORK/overlay/trails.png" ]] || python3 "$ROOT/scripts/make-sample-trails.py" "$BOUNDS" 0.001 "$WORK/overlay" 300 >&2
TRAILS="$WORK/overlay/trails.png"

cat >"$WORK/region.json" <<EOF
{"name": "Bench region", "bounds": [${BOUNDS}],
 "layers": [
   {"name": "coarse", "title": "1 km relief", "sources": ["$COARSE"], "minzoom": 6, "maxzoom": 8},
   {"name": "sheets", "title": "50 m map sheets", "sources": ["$SHEETS"], "minzoom": 9, "maxzoom": 11},
   {"name": "trails", "title": "Trails", "kind": "overlay", "sources": ["$TRAILS"], "minzoom": 8, "maxzoom": 11}]}
EOF

now() { date +%s.%N; }
common=("--bounds=$BOUNDS" --threads "$THREADS" --quiet)
manifest() {
  rm -f "$WORK/manifest.mbtiles"
  "$TRAILMAP" build --manifest "$WORK/region.json" --out "$WORK/manifest.mbtiles" --threads "$THREADS" --quiet
}
separate() {
  rm -f "$WORK"/part*.mbtiles "$WORK/separate.mbtiles"
  "$TRAILMAP" build --name "Bench region" --source "$COARSE" --minzoom 6 --maxzoom 7 --out "$WORK/part1.mbtiles" "${common[@]}"
  "$TRAILMAP" build --name "Bench region" --source "$COARSE" --source "$TRAILS" --minzoom 8 --maxzoom 8 --out "$WORK/part2.mbtiles" "${common[@]}"
  "$TRAILMAP" build --name "Bench region" --source "$SHEETS" --source "$TRAILS" --minzoom 9 --maxzoom 11 --out "$WORK/part3.mbtiles" "${common[@]}"
  cp "$WORK/part1.mbtiles" "$WORK/separate.mbtiles"
  sqlite3 "$WORK/separate.mbtiles" <<EOF
ATTACH '$WORK/part2.mbtiles' AS p2; ATTACH '$WORK/part3.mbtiles' AS p3;
BEGIN;
INSERT OR IGNORE INTO images SELECT * FROM p2.images; INSERT INTO map SELECT * FROM p2.map;
INSERT OR IGNORE INTO images SELECT * FROM p3.images; INSERT INTO map SELECT * FROM p3.map;
UPDATE metadata SET value = '11' WHERE name = 'maxzoom';
COMMIT;
EOF
}

best_m= best_s=
for run in $(seq "$RUNS"); do
  t0=$(now); manifest; t1=$(now); separate; t2=$(now)
  m=$(echo "$t1 - $t0" | bc) s=$(echo "$t2 - $t1" | bc)
  echo "run $run: manifest ${m}s, separate + merge ${s}s" >&2
  [[ -z $best_m ]] || (( $(echo "$m < $best_m" | bc) )) && best_m=$m
  [[ -z $best_s ]] || (( $(echo "$s < $best_s" | bc) )) && best_s=$s
done

tiles() { sqlite3 "$1" "SELECT count(*), sum(length(tile_data)) FROM tiles"; }
same=$(sqlite3 "$WORK/manifest.mbtiles" "ATTACH '$WORK/separate.mbtiles' AS s;
  SELECT count(*) FROM map a JOIN s.map b USING (zoom_level, tile_column, tile_row) WHERE a.tile_id = b.tile_id")
printf 'manifest build          %6.2f s  tiles,bytes %s  file %s B\n' "$best_m" "$(tiles "$WORK/manifest.mbtiles")" "$(stat -c %s "$WORK/manifest.mbtiles")"
printf 'separate builds + merge %6.2f s  tiles,bytes %s  file %s B\n' "$best_s" "$(tiles "$WORK/separate.mbtiles")" "$(stat -c %s "$WORK/separate.mbtiles")"
printf 'time ratio manifest/separate %.2fx; identical tiles: %s\n' "$(echo "$best_m / $best_s" | bc -l)" "$same"
