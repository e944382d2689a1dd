#!/usr/bin/env bash
# Makes the embedded sample's DEM, Tiles/sources/rocky-dem.tif: synthetic relief (no real
# elevation data) over the Rocky Mountain sample's area, for `trailmap build --dem` (scripts/run.sh
# builds a hillshade bundle and a terrain-tile bundle from it).
#
# usage: scripts/make-sample-dem.sh [OUT.tif]     (default: Tiles/sources/rocky-dem.tif)
#
# What it makes: an Int16 GeoTIFF in UTM zone 13N (EPSG:32613), 90 m pixels, over about
# 105.95W..105.49W, 40.13N..40.56N: a plain at 2400 m rising westwards to a ridge, with a few
# peaks (smooth bumps) and a valley cut along the ridge's flank; metres (band unit "m"), nodata
# -32768 with a small void (a lake) so that voids are exercised. The elevations come from a
# closed formula written by python3 as an ASCII grid and turned into the GeoTIFF by
# gdal_translate (DEFLATE, PREDICTOR=2, tiled): the same bytes on every run with the same GDAL.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${1:-"$ROOT/Tiles/sources/rocky-dem.tif"}
"$ROOT/scripts/install-deps.sh" gdal-bin python3 >/dev/null
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

python3 - "$TMP/dem.asc" <<'PY'
import math, sys
# UTM 13N box around the sample's Rocky Mountain extent, 90 m pixels.
x0, y0, cell, cols, rows = 420000.0, 4442000.0, 90.0, 440, 540
peaks = [(431000, 4475000, 1500, 3000), (437000, 4463000, 1200, 2500), (446000, 4481000, 900, 2200),
         (452000, 4458000, 700, 3500), (428000, 4455000, 1100, 2800)]
lake = (455000, 4470000, 600)
out = [f"ncols {cols}", f"nrows {rows}", f"xllcorner {x0}", f"yllcorner {y0}", f"cellsize {cell}", "NODATA_value -32768"]
for r in range(rows):
    y = y0 + (rows - r - 0.5) * cell
    line = []
    for c in range(cols):
        x = x0 + (c + 0.5) * cell
        if math.hypot(x - lake[0], y - lake[1]) < lake[2]:
            line.append("-32768"); continue
        west = (x0 + cols * cell - x) / (cols * cell)           # 0 east .. 1 west
        e = 2400 + 900 * west ** 1.5                             # rising to the ridge
        for px, py, h, s in peaks:
            e += h * math.exp(-((x - px) ** 2 + (y - py) ** 2) / (2 * s * s))
        e -= 250 * math.exp(-((x - 440000 - 0.3 * (y - 4442000)) ** 2) / (2 * 900 ** 2))  # a valley
        e += 40 * math.sin(x / 1300) * math.cos(y / 1700)       # rolling ground
        line.append(str(int(round(e))))
    out.append(" ".join(line))
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY
mkdir -p "$(dirname "$OUT")"
gdal_translate -q -of GTiff -ot Int16 -a_srs EPSG:32613 -co TILED=YES -co COMPRESS=DEFLATE -co PREDICTOR=2 \
  "$TMP/dem.asc" "$TMP/dem.tif"
# Elevations in metres: the band's unit, as a surveyed DEM names it.
printf '<PAMDataset><PAMRasterBand band="1"><UnitType>m</UnitType></PAMRasterBand></PAMDataset>\n' > "$TMP/dem.tif.aux.xml"
gdal_translate -q -co TILED=YES -co COMPRESS=DEFLATE -co PREDICTOR=2 "$TMP/dem.tif" "$OUT"
rm -f "$OUT.aux.xml"
gdalinfo "$OUT" | grep -E "Size is|PROJCRS|NoData|Unit Type|Upper Left|Lower Right" || true
