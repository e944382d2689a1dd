"""Synthetic shaded-relief sheets, a continuous-tone gray benchmark input with fine texture: a
seeded DEM (three scales of smoothed noise, 2,300-3,300 m) on four 0.25-degree quads in lon/lat,
shaded by gdaldem hillshade, then warped bilinear to UTM 13N at 10 m with nodata 0 collars,
DEFLATE, tiled. The same files every run.

usage: /usr/bin/python3 scripts/bench/make-hillshade-sheets.py OUTDIR   (python3-gdal, numpy, gdal-bin)
then:  CASES=files FILES="$(echo OUTDIR/sheets/*.tif)" FILES_ZOOM=9-14 \\
         scripts/bench/build-vs-gdal2tiles.sh"""
import os, subprocess, sys
import numpy as np
import noise
from osgeo import gdal
gdal.UseExceptions()
out = sys.argv[1]
os.makedirs(out + "/dem", exist_ok=True); os.makedirs(out + "/sheets", exist_ok=True)
rng = np.random.default_rng(11)
def smooth(shape, scale): return noise.smooth(rng, shape, scale)
for n, (w, s) in enumerate([(-107.25, 39.0), (-107.0, 39.0), (-107.25, 39.25), (-107.0, 39.25)]):
    H = W = 2500
    e = 2800 + 500 * smooth((H, W), 300) + 80 * smooth((H, W), 40) + 10 * smooth((H, W), 5)
    dem, shade = f"{out}/dem/dem{n}.tif", f"{out}/dem/hs{n}.tif"
    d = gdal.GetDriverByName("GTiff").Create(dem, W, H, 1, gdal.GDT_Float32)
    d.SetGeoTransform((w, 0.25 / W, 0, s + 0.25, 0, -0.25 / H)); d.SetProjection("EPSG:4326")
    d.GetRasterBand(1).WriteArray(e.astype("float32")); d = None
    subprocess.run(["gdaldem", "hillshade", "-q", "-s", "111120", "-compute_edges", dem, shade], check=True)
    subprocess.run(["gdalwarp", "-q", "-overwrite", "-t_srs", "EPSG:32613", "-tr", "10", "10", "-r", "bilinear", "-dstnodata", "0",
                    "-co", "COMPRESS=DEFLATE", "-co", "TILED=YES", shade, f"{out}/sheets/hs{n}-utm13.tif"], check=True)
print("done")
