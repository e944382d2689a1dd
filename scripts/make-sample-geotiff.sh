#!/usr/bin/env bash
# Re-creates the embedded sample's projected GeoTIFF, Tiles/sources/rocky-utm.tif, from the
# committed public-domain NASA Blue Marble crop Tiles/sources/colorado.png (+ colorado.pgw:
# EPSG:4326, 1/15 degree pixels, 110W..101W, 36N..42N; see scripts/make-sample-sources.py).
#
# usage: scripts/make-sample-geotiff.sh [OUT.tif]     (default: Tiles/sources/rocky-utm.tif)
#
# What it makes: a USGS-quad-like map sheet. The lat/lon quad 107.5W..104.5W, 38N..41N (the
# Colorado Front Range and Rocky Mountain National Park) is warped with gdalwarp into UTM zone
# 13N (EPSG:32613), upsampled (cubic) to 500 m pixels on a grid aligned to 500 m (-tap), cut by
# the quad's outline (edges densified every 0.05 degree, so the parallels are curved in UTM as on
# a real sheet) and cropped to it: pixels outside the quad are a nodata collar (RGB, nodata 0 on
# every band; valid pixels never hold 0 in any band: the script checks and lifts any to 1).
# Stored tiled 256x256, DEFLATE with PREDICTOR=2 (ZLEVEL 9), with internal overviews made by
# gdaladdo -r average 2 4 8 and copied in front of the full-resolution data (COG-like layout).
# About 528x673 px, ~280 KB. The output is deterministic: the same bytes on every run with the
# same GDAL (checked with GDAL 3.6.2); a newer GDAL may change bytes, not the georeferencing.
# Ends by printing a gdalinfo summary (statistics computed without writing a .aux.xml).
#
# Needs gdal-bin, python3-gdal and python3-numpy (installed with apt-get when missing).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SRC="$ROOT/Tiles/sources/colorado.png"
OUT=${1:-"$ROOT/Tiles/sources/rocky-utm.tif"}
PY=/usr/bin/python3   # Debian's python3: the one python3-gdal installs into
die() { echo "error: $*" >&2; exit 1; }

# --- dependencies (idempotent) --------------------------------------------------------------
"$ROOT/scripts/install-deps.sh" gdal-bin python3-gdal python3-numpy
[[ -f $SRC && -f ${SRC%.png}.pgw ]] || die "$SRC or its .pgw missing (scripts/make-sample-sources.py makes them)"

TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
export GDAL_PAM_ENABLED=NO   # no .aux.xml beside sources or output

# --- the quad's outline, densified, in EPSG:4326 --------------------------------------------
W=-107.5 S=38 E=-104.5 N=41
"$PY" - "$TMP/quad.geojson" "$W" "$S" "$E" "$N" <<'EOF'
import json, sys
path, (w, s, e, n) = sys.argv[1], map(float, sys.argv[2:])
k, m = round((e - w) / 0.05), round((n - s) / 0.05)
ring = ([[w + i * (e - w) / k, s] for i in range(k)] + [[e, s + j * (n - s) / m] for j in range(m)]
        + [[e - i * (e - w) / k, n] for i in range(k)] + [[w, n - j * (n - s) / m] for j in range(m)]
        + [[w, s]])
with open(path, "w") as f:
    json.dump({"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {},
               "geometry": {"type": "Polygon", "coordinates": [ring]}}]}, f)
EOF

# --- warp into UTM 13N with the collar -------------------------------------------------------
gdal_translate -q -of VRT -a_srs EPSG:4326 "$SRC" "$TMP/src.vrt"   # georeference from colorado.pgw
gdalwarp -q -t_srs EPSG:32613 -tr 500 500 -tap -r cubic \
  -cutline "$TMP/quad.geojson" -crop_to_cutline -dstnodata 0 "$TMP/src.vrt" "$TMP/warped.tif"

# cubic may overshoot to 0 in a valid pixel, which would read as nodata in that band: lift to 1
"$PY" - "$TMP/warped.tif" <<'EOF'
import sys
import numpy as np
from osgeo import gdal
ds = gdal.Open(sys.argv[1], gdal.GA_Update)
a = ds.ReadAsArray()
valid = (a != 0).any(axis=0)
fix = (a == 0) & valid
if fix.any():
    print(f"lifting {int(fix.sum())} zero samples in valid pixels to 1", file=sys.stderr)
    a[fix] = 1
    for b in range(a.shape[0]):
        ds.GetRasterBand(b + 1).WriteArray(a[b])
print(f"valid pixels: {int(valid.sum())} of {valid.size}", file=sys.stderr)
EOF

gdaladdo -q -r average "$TMP/warped.tif" 2 4 8
mkdir -p "$(dirname "$OUT")"
gdal_translate -q -co TILED=YES -co BLOCKXSIZE=256 -co BLOCKYSIZE=256 \
  -co COMPRESS=DEFLATE -co PREDICTOR=2 -co ZLEVEL=9 -co COPY_SRC_OVERVIEWS=YES \
  "$TMP/warped.tif" "$TMP/out.tif"
mv -f "$TMP/out.tif" "$OUT"

# --- summary ---------------------------------------------------------------------------------
echo "wrote $OUT ($(stat -c %s "$OUT") bytes, md5 $(md5sum "$OUT" | cut -d' ' -f1))"
crs=$(gdalsrsinfo -o epsg "$OUT" 2>/dev/null | grep -m1 EPSG || echo "?")
gdalinfo -stats "$OUT" | awk -v crs="$crs" '/^Coordinate System is:/ {print "Coordinate System is " crs; skip=1; next}
  skip && /^Data axis/ {skip=0; next} !skip' | grep -v -e '^ *STATISTICS_' -e '^  Metadata:$'
