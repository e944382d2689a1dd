#!/usr/bin/env bash
# Region updates by patch, measured: a region of 8 UTM sheets is built and published, a device
# installs it; then about 5% of the region's source area is repainted, the region is rebuilt
# (--update) and published again, and the device runs `regions update`. Prints the bytes the
# server sent for the update (the patch) against the whole bundle (target <= 15% for a 5%
# change), the time to publish (index + patch) and the device's update time, and checks that
# the patched bundle holds the published version's tiles.
#
# usage: scripts/bench/delta.sh
# env:   ZOOM      zoom range (default 6-13, ~8,000 tiles)
#        DATA      inputs of scripts/bench/make-utm-mosaic.sh (made there if missing; default /tmp/tm-bench)
#        TRAILMAP  trailmap binary (default: built with swift build -c release --scratch-path .build-bench)
#        WORK      scratch dir (default: mktemp -d, removed at exit)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ZOOM=${ZOOM:-6-13}
MINZ=${ZOOM%-*} MAXZ=${ZOOM#*-}
source "$ROOT/scripts/lib/mosaic-bench.sh"
T=$TRAILMAP
mkdir -p "$WORK/tiles"
build() { "$T" build --source "$WORK/sheets" --name Delta --minzoom "$MINZ" --maxzoom "$MAXZ" --out "$WORK/tiles/region.mbtiles" --quiet "$@"; }
now() { date +%s.%N; }
secs() { python3 -c "print(f'{$2 - $1:.2f}')"; }

echo "== delta: 8 UTM sheets, zooms $ZOOM"
build --bundle-version 1.0.0
cat >"$WORK/products.json" <<EOF
{"products": [{"productId": "delta", "title": "Delta", "category": "Bench", "description": "bench",
  "price": {"amount": "1.99", "currency": "USD"}, "bundle": "region.mbtiles"}]}
EOF
serve_store
dev=(--server "$url" --state-dir "$WORK/device/state" --tiles "$WORK/device/tiles")
"$T" account register --email bench@example.com --password correct-horse-battery "${dev[@]}" >/dev/null
"$T" regions buy delta "${dev[@]}" >/dev/null
"$T" regions install delta --quiet "${dev[@]}" >/dev/null
echo "  v1: $(du -k "$WORK/tiles/region.mbtiles" | cut -f1) KB, $(sqlite3 "$WORK/tiles/region.mbtiles" 'SELECT COUNT(*) FROM map') tiles, installed on the device"

# Repaint ~5% of the sources' area, keeping its texture: a window of 63% x 63% of one of the 8
# sheets (0.4 of a sheet) is cut out, its colours remapped (brighter, channels scaled apart), and
# warped back into the sheet in place.
sheet=$WORK/sheets/sheet_38n109w.tif
read -r w h < <(gdalinfo -json "$sheet" | python3 -c "import json, sys; print(*json.load(sys.stdin)['size'])")
x=$((w * 185 / 1000)) y=$((h * 185 / 1000)) cw=$((w * 63 / 100)) ch=$((h * 63 / 100))
gdal_translate -q -srcwin "$x" "$y" "$cw" "$ch" -b 1 -b 2 -b 3 -scale_1 0 255 40 255 -scale_2 0 255 0 200 -scale_3 0 255 20 240 \
  -a_nodata none "$sheet" "$WORK/window.tif"
gdalwarp -q "$WORK/window.tif" "$sheet"
gdaladdo -q -r average "$sheet" 2 4 8 16   # its internal overviews, as the sheet's producer would
echo "  repainted 40% of $(basename "$sheet") (5% of the 8 sheets' area), texture kept"
t0=$(now); build --bundle-version 2.0.0 --update "$WORK/tiles/region.mbtiles"; t1=$(now)
"$T" catalog publish --products "$WORK/products.json" --tiles "$WORK/tiles" --catalog "$WORK/catalog.sqlite" >"$WORK/publish.out"; t2=$(now)
full=$(stat -c %s "$WORK/tiles/region.mbtiles")
patch=$(python3 -c "import json; print(json.load(open('$WORK/tiles/.trailmap-patches/delta/1-2.patch.json'))['size'])")
echo "  v2: rebuilt with --update in $(secs "$t0" "$t1") s; published (index + patch) in $(secs "$t1" "$t2") s"
for _ in $(seq 50); do "$T" regions show delta "${dev[@]}" | grep -qE 'version: +2$' && break; sleep 0.2; done
"$T" regions status "${dev[@]}" | grep delta | sed 's/^/  status: /'
t3=$(now); "$T" regions update delta --quiet "${dev[@]}" >"$WORK/update.out"; t4=$(now)
sed 's/^/  /' "$WORK/update.out"
python3 -c "p=$patch; f=$full; print(f'  patch {p:,} B vs bundle {f:,} B: {p / f:.1%} of the bundle (target <= 15%)')"
echo "  device update (download + apply + content check + swap): $(secs "$t3" "$t4") s"
same=$(diff <(sqlite3 "$WORK/tiles/region.mbtiles" "SELECT zoom_level, tile_column, tile_row, hex(tile_data) FROM tiles ORDER BY 1, 2, 3") \
            <(sqlite3 "$WORK/device/tiles/region.mbtiles" "SELECT zoom_level, tile_column, tile_row, hex(tile_data) FROM tiles ORDER BY 1, 2, 3") >/dev/null && echo yes || echo NO)
echo "  the device's tiles equal the published version's: $same"
