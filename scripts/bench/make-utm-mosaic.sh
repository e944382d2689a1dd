#!/usr/bin/env bash
# Makes the inputs of scripts/bench/build-vs-gdal2tiles.sh from the public-domain rasters in
# Tiles/sources/ (see scripts/make-sample-sources.py): a mosaic of UTM map sheets with nodata
# collars, and one larger single GeoTIFF.
#
# usage: scripts/bench/make-utm-mosaic.sh OUTDIR
# env:   CASES    which to make: mosaic,single (default both)
#        PIXEL    sheet pixel size in metres (default 50; zoom 11 is ~59 m/px at 39N)
#        SINGLE_PIXEL  single GeoTIFF pixel size in metres (default 1000; zoom 7 is ~940 m/px
#                 at 40N; 500 suits zoom 0-8 at ~4x the pixels, time and memory)
#        DETAIL   1 (default): add the synthetic relief texture below; 0: upsampled imagery only
#        SINGLE_RELIEF  std. deviation in m of the single case's synthetic terrain (default 6000:
#                 the vertical exaggeration of a small-scale shaded relief)
#        VRT_RESAMPLING  kernel of the per-sheet warped VRTs of mosaic.vrt (default bilinear)
#
# Writes (about 30 s, ~1.5 GB peak RAM, ~65 MB of files with the defaults, on 2 cores):
#   OUTDIR/mosaic/sheets/sheet_<S>n<W>w.tif   8 map sheets, each the 1x1 degree lat/lon quad with
#       south-west corner <S>N <W>W, for S in 38..39 and W in 110..107: 110W..106W x 38N..40N
#       (western Colorado / eastern Utah), so the mosaic spans two UTM zones. Quads west of 108W
#       are in UTM 12N (EPSG:32612), the others in UTM 13N (EPSG:32613); each sheet is warped
#       into its own zone (bilinear) on a PIXEL grid aligned to PIXEL (~1780x2260 px at 50 m).
#       Pixels whose centre lies outside the quad grown by 0.75 px are a transparent collar, as
#       on a USGS quad (the parallels curve in UTM), and the sheet is cropped to the rest. The
#       0.75 px (more than half a pixel's diagonal) makes neighbouring sheets overlap by ~1.5 px
#       so that their union has no gaps; a gdalwarp -cutline (rasterized in the source grid)
#       left 1-px holes along the seams once the sheets were reprojected again, with or without
#       CUTLINE_ALL_TOUCHED. Tiled 256x256, internal overviews (gdaladdo -r average 2 4 8 16).
#       Encodings vary as in real collections:
#         38n109w (zone 12)  LZW + PREDICTOR=2, nodata 0
#         39n107w (zone 13)  JPEG (YCbCr, quality 90) with an internal mask (no nodata value)
#         38n110w (zone 12)  DEFLATE, RGBA (alpha band, no nodata value)
#         the other five     DEFLATE + PREDICTOR=2, RGB, nodata 0
#       Valid pixels never hold 0 in any band, so nodata 0 marks only the collar.
#   OUTDIR/mosaic/mosaic.vrt  the sheets as one dataset for gdal2tiles. gdalbuildvrt refuses
#       sources in different CRSs, so each sheet is first wrapped in a warped VRT in EPSG:3857,
#       OUTDIR/mosaic/3857/*.vrt (gdalwarp -of VRT -dstalpha -r VRT_RESAMPLING, all on one grid
#       aligned to the same pixel size, PIXEL/cos(39N), i.e. the sheets' own resolution, so
#       nothing is upsampled needlessly), and the mosaic is gdalbuildvrt of those, in name order
#       (alpha-masked: collars never cover a neighbour; checked: no transparent pixel inside the
#       mosaic's outline). This is what gdal2tiles itself does to a UTM input (it wraps any
#       non-3857 input in a warped VRT, nearest-neighbour), done per sheet; the warping is lazy,
#       so gdal2tiles still pays for reprojection while it reads. Bilinear rather than
#       gdal2tiles' own nearest keeps its tiles comparable with a resampling builder; it costs
#       gdal2tiles ~12% more time (17.7 s vs 15.6 s at z6-11 here), and the two gdal2tiles
#       outputs differ by 43 dB PSNR.
#   OUTDIR/single/us-albers.tif  the conterminous US in EPSG:5070 (NAD83 / Conus Albers, the
#       projection of USGS national raster products): x -2,400 km..2,300 km, y 200..3,200 km at
#       SINGLE_PIXEL m (4700x3000 px by default), from the Natural Earth shaded relief world.png
#       (0.5 degree px) upsampled cubic; every pixel valid (no collar: the rectangle is inside
#       the world image). Tiled 256x256, DEFLATE + PREDICTOR=2, internal overviews (average 2..16).
#       Albers rather than EPSG:4326 so that both tools reproject through a real projection.
#
# DETAIL: the public sources are coarse (Blue Marble 1/15 degree = ~7 km px, world.png 0.5
# degree), so upsampled to 50 m they are flat gradients whose PNG tiles compress trivially and
# say little about a real build. With DETAIL=1 the imagery is multiplied by the hillshade of a
# seeded fractal terrain (spectral synthesis, numpy RandomState(seed), amplitude ~ f^-1.8); on
# the map sheets it is also crossed by brown contour lines every 100 m (index contours every
# 500 m darker), as on a topo sheet. For the mosaic the texture is made once on a 2-arcsecond
# lat/lon grid over the whole area, so it runs on across sheet edges; for the single GeoTIFF on
# its own Albers grid (no contours there: at 1 km px they would be a line every few pixels). The
# output is the same pixels on every run (numpy's seeded generator and FFT, GDAL's warps).
#
# Needs gdal-bin, python3-gdal, python3-numpy (installed with apt-get when missing).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SRC="$ROOT/Tiles/sources"
PY=/usr/bin/python3   # Debian's python3: the one python3-gdal installs into
CASES=${CASES:-mosaic,single}
PIXEL=${PIXEL:-50}
SINGLE_PIXEL=${SINGLE_PIXEL:-1000}
DETAIL=${DETAIL:-1}
SINGLE_RELIEF=${SINGLE_RELIEF:-6000}
VRT_RESAMPLING=${VRT_RESAMPLING:-bilinear}
die() { echo "error: $*" >&2; exit 1; }
[[ $# -eq 1 ]] || die "usage: $0 OUTDIR"
mkdir -p "$1"; OUTDIR=$(cd "$1" && pwd)

# --- dependencies (idempotent) --------------------------------------------------------------
"$ROOT/scripts/install-deps.sh" gdal-bin python3-gdal python3-numpy
for f in colorado world; do [[ -f $SRC/$f.png && -f $SRC/$f.pgw ]] || die "$SRC/$f.png/.pgw missing"; done

TMP=$(mktemp -d "$OUTDIR/.tmp.XXXXXX"); trap 'rm -rf "$TMP"' EXIT
export GDAL_PAM_ENABLED=NO   # no .aux.xml files
SECONDS=0
log() { echo "[$SECONDS s] $*" >&2; }

# texture IN.tif OUT.tif PIXEL_X_M PIXEL_Y_M SEED RELIEF_M CONTOURS: imagery x hillshade of a
# fractal terrain of RELIEF_M standard deviation, plus contour lines if CONTOURS=1 (DETAIL=1), or
# a plain copy (DETAIL=0); values clipped to 1..255 (0 is nodata).
texture() {
  "$PY" - "$@" "$DETAIL" <<'EOF'
import sys
import numpy as np
from osgeo import gdal
src, dst, px, py, seed, relief, contours, detail = (sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]),
    int(sys.argv[5]), float(sys.argv[6]), sys.argv[7] == "1", sys.argv[8] == "1")
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
    dem *= relief / dem.std()                        # metres
    gy, gx = np.gradient(dem, py, px)
    # hillshade, sun from the north-west at 45 degrees
    az, alt = np.radians(315), np.radians(45)
    slope = np.arctan(np.hypot(gx, gy)); aspect = np.arctan2(-gx, gy)
    shade = np.sin(alt) * np.cos(slope) + np.cos(alt) * np.sin(slope) * np.cos(az - aspect)
    del gx, gy, slope, aspect
    img *= (0.45 + 0.8 * np.clip(shade, 0, 1))[None]; del shade
    if contours:
        # contours: where the 100 m band changes to the right or below; index contours every 500 m
        band = np.floor(dem / 100).astype(np.int32)
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
    del dem
img = np.clip(np.rint(img), 1, 255).astype(np.uint8)
out = gdal.GetDriverByName("GTiff").Create(dst, w, h, img.shape[0], gdal.GDT_Byte, ["TILED=YES"])
out.SetGeoTransform(ds.GetGeoTransform()); out.SetProjection(ds.GetProjection())
for b in range(img.shape[0]):
    out.GetRasterBand(b + 1).WriteArray(img[b])
    out.GetRasterBand(b + 1).SetColorInterpretation(ds.GetRasterBand(b + 1).GetColorInterpretation())
out = None
EOF
}

# sheet SRC.tif W S E N EPSG PIXEL nodata|alpha OUT.tif: SRC warped (bilinear) into EPSG on a
# PIXEL grid aligned to PIXEL; pixels whose centre lies outside the quad W..E x S..N grown by
# 0.75 px are the collar (RGB 0 with nodata 0, or alpha 0), cropped to the remaining pixels. The
# 0.75 px growth (> half a pixel's diagonal) makes neighbouring sheets overlap by ~1.5 px, so
# their union leaves no gap. (A gdalwarp -cutline is applied in the source grid and left
# 1-px-wide holes along the seams after reprojection, CUTLINE_ALL_TOUCHED or not.)
sheet() {
  "$PY" - "$@" <<'EOF'
import math, sys
import numpy as np
from osgeo import gdal, osr
src, (w, s, e, n), epsg, px, kind, dst = sys.argv[1], map(float, sys.argv[2:6]), int(sys.argv[6]), float(sys.argv[7]), sys.argv[8], sys.argv[9]
geo = osr.SpatialReference(); geo.ImportFromEPSG(4326); geo.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
utm = osr.SpatialReference(); utm.ImportFromEPSG(epsg); utm.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
fwd, inv = osr.CoordinateTransformation(geo, utm), osr.CoordinateTransformation(utm, geo)
edge = [(w + (e - w) * i / 100, y) for i in range(101) for y in (s, n)] + [(x, s + (n - s) * i / 100) for i in range(101) for x in (w, e)]
xy = np.array(fwd.TransformPoints(edge))[:, :2]
x0, y0 = math.floor(xy[:, 0].min() / px - 1) * px, math.floor(xy[:, 1].min() / px - 1) * px
x1, y1 = math.ceil(xy[:, 0].max() / px + 1) * px, math.ceil(xy[:, 1].max() / px + 1) * px
ds = gdal.Warp("", src, format="MEM", dstSRS=utm.ExportToWkt(), outputBounds=(x0, y0, x1, y1),
               xRes=px, yRes=px, resampleAlg="bilinear")
img = ds.ReadAsArray()
_, h, wd = img.shape
# lon/lat of pixel centres: exact on a coarse grid (every 32 px), bilinear in between (error << 1 m)
step = 32
cy, cx = np.arange(0, h + step, step, dtype=float), np.arange(0, wd + step, step, dtype=float)
gx, gy = np.meshgrid(x0 + (cx + .5) * px, y1 - (cy + .5) * px)
ll = np.array(inv.TransformPoints(np.c_[gx.ravel(), gy.ravel()].tolist()))[:, :2].reshape(len(cy), len(cx), 2)
r, c = np.arange(h) / step, np.arange(wd) / step
ri, ci = np.minimum(r.astype(int), len(cy) - 2), np.minimum(c.astype(int), len(cx) - 2)
fr, fc = (r - ri)[:, None, None], (c - ci)[None, :, None]
g = lambda dr, dc: ll[ri[:, None] + dr, ci[None, :] + dc]
lonlat = (g(0, 0) * (1 - fc) + g(0, 1) * fc) * (1 - fr) + (g(1, 0) * (1 - fc) + g(1, 1) * fc) * fr
mlat = (s + n) / 2
dlon, dlat = 0.75 * px / (111320 * math.cos(math.radians(mlat))), 0.75 * px / 110574
valid = ((lonlat[..., 0] >= w - dlon) & (lonlat[..., 0] <= e + dlon)
         & (lonlat[..., 1] >= s - dlat) & (lonlat[..., 1] <= n + dlat))
del lonlat
rows, cols = np.nonzero(valid.any(1))[0], np.nonzero(valid.any(0))[0]
r0, r1, c0, c1 = int(rows[0]), int(rows[-1]) + 1, int(cols[0]), int(cols[-1]) + 1
img, valid = img[:, r0:r1, c0:c1], valid[r0:r1, c0:c1]
img = np.where(valid, np.maximum(img, 1), 0).astype(np.uint8)   # valid pixels never 0: 0 is nodata
bands = list(img) + ([np.where(valid, 255, 0).astype(np.uint8)] if kind == "alpha" else [])
out = gdal.GetDriverByName("GTiff").Create(dst, c1 - c0, r1 - r0, len(bands), gdal.GDT_Byte, ["TILED=YES"])
out.SetGeoTransform((x0 + c0 * px, px, 0, y1 - r0 * px, 0, -px)); out.SetProjection(utm.ExportToWkt())
for i, b in enumerate(bands):
    band = out.GetRasterBand(i + 1); band.WriteArray(b)
    band.SetColorInterpretation([gdal.GCI_RedBand, gdal.GCI_GreenBand, gdal.GCI_BlueBand, gdal.GCI_AlphaBand][i])
    if kind == "nodata":
        band.SetNoDataValue(0)
out = None
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
  texture "$TMP/bm-up.tif" "$TMP/master.tif" 43 62 1839 600 1   # px in m at 39N: lon 43, lat 62
  rm -f "$TMP/bm-up.tif"
  R3857=$("$PY" -c "import math; print(round($PIXEL / math.cos(math.radians(39)), 3))")
  for S in 39 38; do
    for W in 110 109 108 107; do
      name="sheet_${S}n${W}w"; zone=$((W > 108 ? 12 : 13))
      case $name in
        sheet_38n110w) kind=alpha; co=(-co COMPRESS=DEFLATE -co PREDICTOR=2 -co ZLEVEL=6)
                       ovr=(--config COMPRESS_OVERVIEW DEFLATE --config PREDICTOR_OVERVIEW 2) ;;
        sheet_38n109w) kind=nodata; co=(-co COMPRESS=LZW -co PREDICTOR=2)
                       ovr=(--config COMPRESS_OVERVIEW LZW --config PREDICTOR_OVERVIEW 2) ;;
        sheet_39n107w) kind=alpha; co=(-co COMPRESS=JPEG -co PHOTOMETRIC=YCBCR -co JPEG_QUALITY=90)
                       ovr=(--config COMPRESS_OVERVIEW JPEG --config PHOTOMETRIC_OVERVIEW YCBCR
                            --config JPEG_QUALITY_OVERVIEW 90 --config INTERLEAVE_OVERVIEW PIXEL) ;;
        *)             kind=nodata; co=(-co COMPRESS=DEFLATE -co PREDICTOR=2 -co ZLEVEL=6)
                       ovr=(--config COMPRESS_OVERVIEW DEFLATE --config PREDICTOR_OVERVIEW 2) ;;
      esac
      log "mosaic: $name (EPSG:326$zone, ${co[*]})"
      sheet "$TMP/master.tif" "-$W" "$S" "-$((W - 1))" "$((S + 1))" "326$zone" "$PIXEL" "$kind" "$TMP/$name.tif"
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
  texture "$TMP/us-up.tif" "$TMP/us.tif" "$SINGLE_PIXEL" "$SINGLE_PIXEL" 5070 "$SINGLE_RELIEF" 0
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
