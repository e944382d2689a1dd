#!/usr/bin/env bash
# Rate and distortion of TrailMap's tile formats against gdal2tiles' WebP, same sources, same run:
# one tiled GeoTIFF (the single case of build-vs-gdal2tiles.sh: the US in EPSG:5070 at 1000 m,
# z0-7) built by TrailMap as PNG (the reference of fidelity), lossless WebP, WebP q90 and q75,
# JPEG q85, and by gdal2tiles.py --tiledriver WEBP (lossless and q90) reading the same .tif.
#
# usage: scripts/bench/formats.sh
# env:   CASE      single (default) or mosaic (the 8 UTM sheets, z6-11; gdal2tiles reads mosaic.vrt)
#        RUNS      timed runs of each build, best taken (default 1)
#        THREADS   trailmap --threads = gdal2tiles --processes (default 2)
#        TRAILMAP  trailmap binary (default: built with swift build -c release --scratch-path .build-bench)
#        DATA      inputs of make-utm-mosaic.sh (made when missing); WORK scratch dir (default mktemp, removed)
#
# For each: build time, tile bytes (all tiles, as stored in the bundle or the folder), bytes
# against TrailMap's PNG, PSNR against TrailMap's PNG tiles (over RGBA, pixels transparent in both
# equal; "opaque" over pixels opaque in both), and each codec's own loss: TrailMap's lossy tiles
# against its PNG, gdal2tiles' q90 against its lossless WebP (both from the same pixels, so the
# figure is the codec's alone; the two builders resample differently, ~35 dB apart).
# Targets (issue "Tile formats"): lossless WebP <= 0.75x the PNG bytes with identical pixels; WebP
# q90 at most gdal2tiles' q90 bytes at a codec loss no worse than 0.5 dB, in <= 0.5x its time.
# What differs: gdal2tiles writes one file per tile (no SQLite) and every tile, TrailMap one MBTiles
# with identical tiles stored once; libwebp 1.2.4 for both; gdal2tiles' lossless uses libwebp's
# default lossless settings (quality 75 = effort, method 4), TrailMap's `--effort balanced` preset 4.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CASE=${CASE:-single}; RUNS=${RUNS:-1}; THREADS=${THREADS:-2}
die() { echo "error: $*" >&2; exit 1; }
if [[ -n "${WORK:-}" ]]; then mkdir -p "$WORK"; WORK=$(cd "$WORK" && pwd); else WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT; fi
DATA=${DATA:-$WORK/data}
"$ROOT/scripts/install-deps.sh" gdal-bin python3-gdal python3-numpy python3-pil time sqlite3 >&2
PY=/usr/bin/python3
if [[ -z "${TRAILMAP:-}" ]]; then
  (cd "$ROOT" && swift build -c release --scratch-path .build-bench --product trailmap >&2) || die "swift build failed"
  TRAILMAP="$ROOT/.build-bench/release/trailmap"
fi
case $CASE in
  single) [[ -f "$DATA/single/us-albers.tif" ]] || CASES=single "$ROOT/scripts/bench/make-utm-mosaic.sh" "$DATA" >&2
          TM_IN=(--source "$DATA/single/us-albers.tif"); G2T_IN="$DATA/single/us-albers.tif"; ZOOM=0-7 ;;
  mosaic) [[ -f "$DATA/mosaic/mosaic.vrt" ]] || CASES=mosaic "$ROOT/scripts/bench/make-utm-mosaic.sh" "$DATA" >&2
          TM_IN=(--source "$DATA/mosaic/sheets"); G2T_IN="$DATA/mosaic/mosaic.vrt"; ZOOM=6-11 ;;
  *) die "CASE must be single or mosaic" ;;
esac
cat "$G2T_IN" > /dev/null  # warm the page cache for both

best() { # NAME CMD...: best-of-RUNS wall seconds into $WORK/NAME.time
  local name=$1 b=; shift
  for _ in $(seq "$RUNS"); do
    local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1 || die "$name failed: $*"; t1=$(date +%s.%N)
    local t; t=$(echo "$t1 - $t0" | bc)
    [[ -z $b ]] || (( $(echo "$t < $b" | bc) )) && b=$t
  done
  echo "$b" > "$WORK/$name.time"
}
tm() { local name=$1; shift
  best "$name" bash -c "rm -f '$WORK/$name.mbtiles'; '$TRAILMAP' build ${TM_IN[*]@Q} --name bench --minzoom ${ZOOM%-*} --maxzoom ${ZOOM#*-} --resampling average --threads $THREADS --quiet --out '$WORK/$name.mbtiles' $*"
}
g2t() { local name=$1; shift
  best "$name" bash -c "rm -rf '$WORK/$name'; gdal2tiles.py --xyz --processes=$THREADS -r average -z $ZOOM -x -w none -n -q --tiledriver WEBP $* '$G2T_IN' '$WORK/$name'"
}
tm png; tm webp-lossless --format webp --lossless; tm webp-q90 --format webp --quality 90
tm webp-q75 --format webp --quality 75; tm jpeg-q85 --format jpeg --quality 85
g2t g2t-webp-lossless --webp-lossless; g2t g2t-webp-q90 --webp-quality 90

cmp() { "$PY" "$ROOT/scripts/bench/compare_tiles.py" "$1" "$2"; }
val() { sed -n "s/^$1=//p"; }
ref="$WORK/png.mbtiles"
pngbytes=$(cmp "$ref" "$ref" | val trailmap_bytes)
printf '%-22s %8s %12s %8s %10s %10s %12s\n' build seconds "tile bytes" "x PNG" "PSNR dB" "opaque dB" "codec loss"
for name in png webp-lossless webp-q90 webp-q75 jpeg-q85 g2t-webp-lossless g2t-webp-q90; do
  path="$WORK/$name"; [[ -d $path ]] || path="$path.mbtiles"
  out=$(cmp "$path" "$ref")
  bytes=$(echo "$out" | val trailmap_bytes)
  codec=-
  case $name in webp-q*|jpeg-*) codec=$(cmp "$path" "$ref" | val psnr) ;; g2t-webp-q90) codec=$(cmp "$path" "$WORK/g2t-webp-lossless" | val psnr) ;; esac
  printf '%-22s %8.2f %12d %8.3f %10s %10s %12s\n' "$name" "$(cat "$WORK/$name.time")" "$bytes" \
    "$(echo "$bytes / $pngbytes" | bc -l)" "$(echo "$out" | val psnr)" "$(echo "$out" | val psnr_opaque)" "$codec"
done
ours=$(cmp "$WORK/webp-q90.mbtiles" "$ref" | val trailmap_bytes); theirs=$(cmp "$WORK/g2t-webp-q90" "$ref" | val trailmap_bytes)
printf 'WebP q90: %.3fx gdal2tiles q90 bytes, %.2fx its time\n' "$(echo "$ours / $theirs" | bc -l)" \
  "$(echo "$(cat "$WORK/webp-q90.time") / $(cat "$WORK/g2t-webp-q90.time")" | bc -l)"
ll=$(cmp "$WORK/webp-lossless.mbtiles" "$ref" | val psnr)
printf 'lossless WebP: %.3fx the PNG bytes, PSNR against PNG %s (inf = identical)\n' \
  "$(echo "$(cmp "$WORK/webp-lossless.mbtiles" "$ref" | val trailmap_bytes) / $pngbytes" | bc -l)" "$ll"
