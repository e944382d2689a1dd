#!/usr/bin/env bash
# The measured inputs of docs/scale.md (per-tile CPU cost and bytes per tile by format, the read
# cost's growth with the source pixels a tile covers, the merge's rates), printed as KEY=VALUE
# lines for scripts/bench/scale-plan.py. Short single-thread builds of the UTM mosaic (the
# benchmark sources of big-build.sh), so the figures are per core.
#
# usage: scripts/bench/scale-inputs.sh | python3 scripts/bench/scale-plan.py
# env:   DATA      inputs of scripts/bench/make-utm-mosaic.sh (made there if missing; default /tmp/tm-bench)
#        TRAILMAP  trailmap binary (default: built with swift build -c release --scratch-path .build-bench)
#        TOP       the pyramid's top zoom (default 12; the mosaic's 50 m pixels are ~30 m tile pixels there)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
TOP=${TOP:-12}
source "$ROOT/scripts/lib/mosaic-bench.sh"
S=$WORK/sheets
echo "bench_top=$TOP"
echo "# $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $TRAILMAP, sources $(ls "$S" | wc -l) sheets ($(du -sh "$S" | cut -f1))"
# build NAME ARGS...: prints NAME.seconds (user+sys CPU), NAME.tiles, NAME.bytes (tile bytes / tiles)
build() {
  local name=$1; shift
  local out=$WORK/$name.mbtiles
  /usr/bin/time -f "%e %U %S" -o "$WORK/$name.time" "$TRAILMAP" build --source "$S" --name Scale --threads 1 --out "$out" --quiet "$@"
  read -r wall user sys <"$WORK/$name.time"
  local tiles bytes
  tiles=$(sqlite3 "$out" "SELECT COUNT(*) FROM tiles")
  bytes=$(sqlite3 "$out" "SELECT SUM(LENGTH(tile_data)) FROM tiles")
  python3 -c "print(f'$name.ms_per_tile={($user + $sys) * 1000 / $tiles:.3f}'); print(f'$name.tiles=$tiles'); print(f'$name.bytes={$bytes / $tiles:.0f}'); print(f'# $name: {$tiles} tiles, wall {$wall} s, CPU {$user + $sys:.2f} s')"
}
# The read: one zoom alone, from the sources, at three ratios of source pixels to tile pixels.
for z in $((TOP - 2)) $((TOP - 1)) $TOP; do
  build "png.z$z" --minzoom "$z" --maxzoom "$z"
done
# Every format over the whole pyramid (3/4 of the tiles at the top zoom, as at any scale).
build png --minzoom 6 --maxzoom "$TOP"
build webp-lossless --minzoom 6 --maxzoom "$TOP" --format webp --lossless
build webp-q90 --minzoom 6 --maxzoom "$TOP" --format webp --quality 90
for f in webp-lossless webp-q90; do build "$f.z$((TOP - 2))" --minzoom $((TOP - 2)) --maxzoom $((TOP - 2)) $( [ $f = webp-q90 ] && echo --format webp --quality 90 || echo --format webp --lossless); done
# The merge: 4 shards of the PNG pyramid, merged (copy rate; the zooms above the units).
for k in 1 2 3 4; do "$TRAILMAP" build --source "$S" --name Scale --threads 1 --minzoom 6 --maxzoom "$TOP" --shard $k/4 --out "$WORK/part-$k.mbtiles" --quiet; done
/usr/bin/time -f "%e %U %S" -o "$WORK/merge.time" "$TRAILMAP" bundle merge "$WORK"/part-*.mbtiles --out "$WORK/merged.mbtiles" >"$WORK/merge.out"
cat "$WORK/merge.out" | sed 's/^/# /'
read -r wall user sys <"$WORK/merge.time"
same=$(cmp <(sqlite3 "$WORK/png.mbtiles" "SELECT zoom_level, tile_column, tile_row, hex(tile_data) FROM tiles ORDER BY 1, 2, 3") \
           <(sqlite3 "$WORK/merged.mbtiles" "SELECT zoom_level, tile_column, tile_row, hex(tile_data) FROM tiles ORDER BY 1, 2, 3") >/dev/null && echo yes || echo NO)
echo "# merged equals the single build: $same; merge wall $wall s"
python3 - "$WORK/merge.out" "$wall" <<'PY'
import re, sys
line = open(sys.argv[1]).read()
m = re.search(r"(\d+) tiles \((\d+) made above", line)
tiles, upper = int(m.group(1)), int(m.group(2))
print(f"merge.tiles={tiles}\nmerge.upper={upper}\nmerge.seconds={sys.argv[2]}")
PY
# The writer alone: tile-sized blobs into an MBTiles-shaped SQLite table, WAL, 256 a transaction.
python3 - "$WORK/png.mbtiles" "$WORK/writer.sqlite" <<'PY'
import sqlite3, sys, time
src = sqlite3.connect(sys.argv[1])
blobs = [b for (b,) in src.execute("SELECT tile_data FROM tiles ORDER BY random() LIMIT 2000")]
db = sqlite3.connect(sys.argv[2], isolation_level=None)
db.execute("PRAGMA journal_mode=WAL"); db.execute("PRAGMA synchronous=NORMAL")
db.execute("CREATE TABLE images (tile_id INTEGER PRIMARY KEY, tile_data BLOB)")
db.execute("CREATE TABLE map (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_id INTEGER, PRIMARY KEY (zoom_level, tile_column, tile_row))")
n, t0 = 100000, time.time()
for start in range(0, n, 256):
    db.execute("BEGIN")
    for i in range(start, min(start + 256, n)):
        db.execute("INSERT INTO images VALUES (?, ?)", (i, blobs[i % len(blobs)]))
        db.execute("INSERT INTO map VALUES (16, ?, ?, ?)", (i % 4096, i // 4096, i))
    db.execute("COMMIT")
dt = time.time() - t0
print(f"writer_tps={n / dt:.0f}\n# writer: {n} tiles of the PNG build's sizes in {dt:.1f} s (Python sqlite3, one thread)")
PY
