#!/usr/bin/env bash
# Makes the inputs of scripts/bench/build-vs-gdal2tiles.sh from the public-domain rasters in
# Tiles/sources/ (see scripts/make-sample-sources.py): a mosaic of UTM map sheets with nodata
# collars, and one larger single GeoTIFF.
#
# usage: scripts/bench/make-utm-mosaic.sh OUTDIR
# env:   CASES    which to make: mosaic,single (default both)
#        PIXEL    sheet pixel size in metres (default 50; zoom 11 is ~59 m/px at 39N)
#        SINGLE_PIXEL  single GeoTIFF pixel size in metres (default 1000; zoom 7 is ~940 m/px at 40N)
#        DETAIL   1 (default): add the synthetic relief texture below; 0: upsampled imagery only
#        VRT_RESAMPLING  kernel of the per-sheet warped VRTs of mosaic.vrt (default bilinear)
#
# Writes (about 30 s and ~200 MB with the defaults, on 2 cores):
#   OUTDIR/mosaic/sheets/sheet_<S>n<W>w.tif   8 map sheets, each the 1x1 degree lat/lon quad with
#       south-west corner <S>N <W>W, for S in 38..39 and W in 110..107: 110W..106W x 38N..40N
#       (western Colorado / eastern Utah), so the mosaic spans two UTM zones. Quads west of 108W
#       are in UTM 12N (EPSG:32612), the others in UTM 13N (EPSG:32613); each sheet is warped
#       into its own zone (bilinear), on a PIXEL grid aligned to PIXEL (-tap), cut by the quad's
#       outline (densified, so parallels curve as on a USGS quad) and cropped to it: everything
#       outside the quad is a transparent collar. Tiled 256x256, internal overviews (gdaladdo -r
#       average 2 4 8 16). Encodings vary as in real collections:
#         38n109w (zone 12)  LZW + PREDICTOR=2, nodata 0
#         39n107w (zone 13)  JPEG (YCbCr, quality 90) with an internal mask (no nodata value)
#         38n110w (zone 12)  DEFLATE, RGBA (alpha band, no nodata value)
#         the other five     DEFLATE + PREDICTOR=2, RGB, nodata 0
#       Valid pixels never hold 0 in any band, so nodata 0 marks only the collar.
#   OUTDIR/mosaic/mosaic.vrt  the sheets as one dataset for gdal2tiles. gdalbuildvrt refuses
#       sources in different CRSs, so each sheet is first wrapped in a warped VRT in EPSG:3857
#       (gdalwarp -of VRT -dstalpha -r VRT_RESAMPLING, all on one grid aligned to the same pixel
#       size, PIXEL/cos(39N), i.e. about the sheets' own resolution, so nothing is upsampled
#       needlessly) and the mosaic is gdalbuildvrt of those (alpha-masked: collars never cover a
#       neighbour). This is what gdal2tiles itself would do to a UTM input (it wraps any
#       non-3857 input in a warped VRT, nearest-neighbour), done once per sheet; the warping
#       is lazy, so gdal2tiles still pays for reprojection while it reads. Bilinear (not
#       gdal2tiles' own nearest) keeps its tiles comparable to a resampling builder; both
#       kernels cost gdal2tiles about the same.
#   OUTDIR/single/us-albers.tif  the conterminous US in EPSG:5070 (NAD83 / Conus Albers, the
#       projection of USGS national raster products): x -2,400 km..2,300 km, y 200..3,200 km at
#       SINGLE_PIXEL m (4700x3000 px by default), from the Natural Earth shaded relief world.png
#       (0.5 degree px) upsampled cubic; every pixel valid (no collar: the rectangle is inside
#       the world image). Tiled 256x256, DEFLATE + PREDICTOR=2, internal overviews (average 2..16).
#
# DETAIL: the public sources are coarse (Blue Marble 1/15 degree = ~7 km px, world.png 0.5
# degree), so upsampled to 50 m they are flat gradients whose PNG tiles compress trivially and
# say little about a real build. With DETAIL=1 the imagery is multiplied by the hillshade of a
# seeded fractal terrain (spectral synthesis, numpy RandomState(seed), amplitude ~ f^-1.8) and
# crossed by brown contour lines every 100 m (index contours every 500 m darker), as on a topo
# sheet. For the mosaic the texture is made once on a 2-arcsecond lat/lon grid over the whole
# area, so it runs on across sheet edges; for the single GeoTIFF on its own Albers grid. The
# texture is deterministic given numpy's FFT; the files are the same pixels on each run.
#
# Needs gdal-bin, python3-gdal, python3-numpy (installed with apt-get when missing); ~1 GB RAM.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SRC="$ROOT/Tiles/sources"
PY=/usr/bin/python3   # Debian's python3: the one python3-gdal installs into
CASES=${CASES:-mosaic,single}
PIXEL=${PIXEL:-50}
SINGLE_PIXEL=${SINGLE_PIXEL:-1000}
DETAIL=${DETAIL:-1}
VRT_RESAMPLING=${VRT_RESAMPLING:-bilinear}
die() { echo "error: $*" >&2; exit 1; }
[[ $# -eq 1 ]] || die "usage: $0 OUTDIR"
mkdir -p "$1"; OUTDIR=$(cd "$1" && pwd)

# --- dependencies (idempotent) --------------------------------------------------------------
missing=()
for p in gdal-bin python3-gdal python3-numpy; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
for f in colorado world; do [[ -f $SRC/$f.png && -f $SRC/$f.pgw ]] || die "$SRC/$f.png/.pgw missing"; done

TMP=$(mktemp -d "$OUTDIR/.tmp.XXXXXX"); trap 'rm -rf "$TMP"' EXIT
export GDAL_PAM_ENABLED=NO   # no .aux.xml files
SECONDS=0
log() { echo "[$SECONDS s] $*" >&2; }

# texture IN.tif OUT.tif PIXEL_X_M PIXEL_Y_M SEED: imagery x hillshade of a fractal terrain, plus
# contour lines (DETAIL=1) or a plain copy (DETAIL=0); values clipped to 1..255 (0 is nodata).
texture() {
  "$PY" - "$@" "$DETAIL" <<'EOF'
import sys
import numpy as np
from osgeo import gdal
src, dst, px, py, seed, detail = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), sys.argv[6] == "1"
ds = gdal.Open(src)
img = ds.ReadAsArray().astype(np.float32)            # bands, rows, cols
_, h, w = img.shape
if detail:
    F = np.fft.rfft2(np.random.RandomState(seed).standard_normal((h, w)).astype(np.float32))
    fy = np.fft.fftfreq(h).astype(np.float32)[:, None]
    fx = np.fft.rfftfreq(w).astype(np.float32)[None, :]
    f = np.sqrt(fx * fx + fy * fy); f[0, 0] = 1
    F *= f ** -1.8; F[0, 0] = 0
    dem = np.fft.irfft2(F, s=(h, w)).astype(np.float32); del F, f
    dem *= 600 / dem.std()                           # metres: relief of a mountain range
    gy, gx = np.gradient(dem, py, px)
    # hillshade, sun from the north-west at 45 degrees
    az, alt = np.radians(315), np.radians(45)
    slope = np.arctan(np.hypot(gx, gy)); aspect = np.arctan2(-gx, gy)
    shade = np.sin(alt) * np.cos(slope) + np.cos(alt) * np.sin(slope) * np.cos(az - aspect)
    del gx, gy, slope, aspect
    img *= (0.45 + 0.8 * np.clip(shade, 0, 1))[None]; del shade
    # contours: where the 100 m band changes to the right or below
    band = np.floor(dem / 100).astype(np.int32); del dem
    line = np.zeros((h, w), bool)
    line[:, :-1] |= band[:, :-1] != band[:, 1:]
    line[:-1, :] |= band[:-1, :] != band[1:, :]
    index = np.zeros((h, w), bool)
    b5 = np.floor_divide(band, 5)
    index[:, :-1] |= b5[:, :-1] != b5[:, 1:]
    index[:-1, :] |= b5[:-1, :] != b5[1:, :]
    brown = np.array([150, 95, 50], np.float32)[:, None]
    for m, k in ((line & ~index, 0.55), (index, 0.85)):
        img[:, m] = img[:, m] * (1 - k) + brown * k
img = np.clip(np.rint(img), 1, 255).astype(np.uint8)
out = gdal.GetDriverByName("GTiff").Create(dst, w, h, img.shape[0], gdal.GDT_Byte, ["TILED=YES"])
out.SetGeoTransform(ds.GetGeoTransform()); out.SetProjection(ds.GetProjection())
for b in range(img.shape[0]):
    out.GetRasterBand(b + 1).WriteArray(img[b])
    out.GetRasterBand(b + 1).SetColorInterpretation(ds.GetRasterBand(b + 1).GetColorInterpretation())
out = None
EOF
}

# quad W S E N OUT.geojson: the quad's outline, edges densified every 0.02 degree
quad() {
  "$PY" - "$@" <<'EOF'
import json, sys
(w, s, e, n), path = map(float, sys.argv[1:5]), sys.argv[5]
k, m = round((e - w) / 0.02), round((n - s) / 0.02)
ring = ([[w + i * (e - w) / k, s] for i in range(k)] + [[e, s + j * (n - s) / m] for j in range(m)]
        + [[e - i * (e - w) / k, n] for i in range(k)] + [[w, n - j * (n - s) / m] for j in range(m)]
        + [[w, s]])
with open(path, "w") as f:
    json.dump({"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {},
               "geometry": {"type": "Polygon", "coordinates": [ring]}}]}, f)
EOF
}

TILED=(-co TILED=YES -co BLOCKXSIZE=256 -co BLOCKYSIZE=256)

# --- mosaic -----------------------------------------------------------------------------------
if [[ ,$CASES, == *,mosaic,* ]]; then
  M="$OUTDIR/mosaic"; rm -rf "$M"; mkdir -p "$M/sheets" "$M/3857"
  # master lat/lon grid over 110W..106W x 38N..40N plus a 0.05 degree margin, 2 arcsec px
  log "mosaic: master texture (Blue Marble, 1/1800 degree px)"
  gdal_translate -q -of VRT -a_srs EPSG:4326 "$SRC/colorado.png" "$TMP/bm.vrt"
  gdalwarp -q -te -110.05 37.95 -105.95 40.05 -tr 0.000555555555555556 0.000555555555555556 \
    -r cubic "$TMP/bm.vrt" "$TMP/bm-up.tif"
  texture "$TMP/bm-up.tif" "$TMP/master.tif" 43 62 1839   # px in m at 39N: lon 43, lat 62
  rm -f "$TMP/bm-up.tif"
  R3857=$("$PY" -c "import math; print(round($PIXEL / math.cos(math.radians(39)), 3))")
  for S in 39 38; do
    for W in 110 109 108 107; do
      name="sheet_${S}n${W}w"; zone=$((W > 108 ? 12 : 13))
      quad "-$W" "$S" "-$((W - 1))" "$((S + 1))" "$TMP/$name.geojson"
      case $name in
        sheet_38n110w) dst=(-dstalpha); co=(-co COMPRESS=DEFLATE -co PREDICTOR=2 -co ZLEVEL=6)
                       ovr=(--config COMPRESS_OVERVIEW DEFLATE --config PREDICTOR_OVERVIEW 2) ;;
        sheet_38n109w) dst=(-dstnodata 0); co=(-co COMPRESS=LZW -co PREDICTOR=2)
                       ovr=(--config COMPRESS_OVERVIEW LZW --config PREDICTOR_OVERVIEW 2) ;;
        sheet_39n107w) dst=(-dstalpha); co=(-co COMPRESS=JPEG -co PHOTOMETRIC=YCBCR -co JPEG_QUALITY=90)
                       ovr=(--config COMPRESS_OVERVIEW JPEG --config PHOTOMETRIC_OVERVIEW YCBCR
                            --config JPEG_QUALITY_OVERVIEW 90 --config INTERLEAVE_OVERVIEW PIXEL) ;;
        *)             dst=(-dstnodata 0); co=(-co COMPRESS=DEFLATE -co PREDICTOR=2 -co ZLEVEL=6)
                       ovr=(--config COMPRESS_OVERVIEW DEFLATE --config PREDICTOR_OVERVIEW 2) ;;
      esac
      log "mosaic: $name (EPSG:326$zone, ${co[*]})"
      gdalwarp -q -t_srs "EPSG:326$zone" -tr "$PIXEL" "$PIXEL" -tap -r bilinear \
        -cutline "$TMP/$name.geojson" -crop_to_cutline -wo CUTLINE_ALL_TOUCHED=TRUE "${dst[@]}" "$TMP/master.tif" "$TMP/$name.tif"
      if [[ $name == sheet_39n107w ]]; then   # RGB + internal mask from the alpha band
        gdal_translate -q --config GDAL_TIFF_INTERNAL_MASK YES -b 1 -b 2 -b 3 -mask 4 "${TILED[@]}" "${co[@]}" \
          "$TMP/$name.tif" "$M/sheets/$name.tif"
      else
        gdal_translate -q "${TILED[@]}" "${co[@]}" "$TMP/$name.tif" "$M/sheets/$name.tif"
      fi
      gdaladdo -q --config GDAL_TIFF_INTERNAL_MASK YES "${ovr[@]}" -r average "$M/sheets/$name.tif" 2 4 8 16
      rm -f "$TMP/$name.tif"
      # the sheet in EPSG:3857 as a lazy warped VRT, on the mosaic's common aligned grid
      (cd "$M/3857" && gdalwarp -q -of VRT -t_srs EPSG:3857 -tr "$R3857" "$R3857" -tap \
        -r "$VRT_RESAMPLING" -dstalpha "../sheets/$name.tif" "$name.vrt")
    done
  done
  (cd "$M" && gdalbuildvrt -q mosaic.vrt 3857/*.vrt)
  log "mosaic: wrote $M ($(du -sh "$M/sheets" | cut -f1) of sheets)"
fi

# --- single GeoTIFF ---------------------------------------------------------------------------
if [[ ,$CASES, == *,single,* ]]; then
  D="$OUTDIR/single"; rm -rf "$D"; mkdir -p "$D"
  log "single: Natural Earth relief -> EPSG:5070 at $SINGLE_PIXEL m"
  gdal_translate -q -of VRT -a_srs EPSG:4326 "$SRC/world.png" "$TMP/world.vrt"
  gdalwarp -q -t_srs EPSG:5070 -te -2400000 200000 2300000 3200000 -tr "$SINGLE_PIXEL" "$SINGLE_PIXEL" \
    -r cubic "$TMP/world.vrt" "$TMP/us-up.tif"
  texture "$TMP/us-up.tif" "$TMP/us.tif" "$SINGLE_PIXEL" "$SINGLE_PIXEL" 5070
  rm -f "$TMP/us-up.tif"
  gdal_translate -q "${TILED[@]}" -co COMPRESS=DEFLATE -co PREDICTOR=2 -co ZLEVEL=6 "$TMP/us.tif" "$D/us-albers.tif"
  gdaladdo -q --config COMPRESS_OVERVIEW DEFLATE --config PREDICTOR_OVERVIEW 2 -r average "$D/us-albers.tif" 2 4 8 16
  log "single: wrote $D/us-albers.tif ($(du -sh "$D/us-albers.tif" | cut -f1))"
fi

# --- summary ---------------------------------------------------------------------------------
for f in "$OUTDIR"/mosaic/sheets/*.tif "$OUTDIR"/single/*.tif "$OUTDIR"/mosaic/mosaic.vrt; do
  [[ -f $f ]] || continue
  "$PY" - "$f" "$OUTDIR" <<'EOF'
import os, sys
from osgeo import gdal, osr
p = sys.argv[1]; ds = gdal.Open(p)
srs = osr.SpatialReference(wkt=ds.GetProjection()); srs.AutoIdentifyEPSG()
b = ds.GetRasterBand(1)
md = ds.GetMetadata("IMAGE_STRUCTURE")
trans = ("alpha" if ds.RasterCount == 4 else f"nodata {b.GetNoDataValue():g}" if b.GetNoDataValue() is not None
         else "mask" if b.GetMaskFlags() == gdal.GMF_PER_DATASET else "none")
print(f"{os.path.relpath(p, sys.argv[2]):28s} {ds.RasterXSize:6d}x{ds.RasterYSize:<6d} {ds.RasterCount}b "
      f"EPSG:{srs.GetAuthorityCode(None)} {ds.GetGeoTransform()[1]:.2f} m {md.get('COMPRESSION', ds.GetDriver().ShortName):8s} "
      f"{trans:9s} ovr {b.GetOverviewCount()} {os.path.getsize(p) / 1e6:7.1f} MB")
EOF
done
log "done: $OUTDIR"
