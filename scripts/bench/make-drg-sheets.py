"""Synthetic scanned-topographic-map sheets (DRG-like), a benchmark input that is not the
continuous-tone relief of make-utm-mosaic.sh: a 13-colour palette, 12 m contours, woodland tint,
water, roads, grid ticks, text-like blocks; four 7.5' x 7.5' quads at ~3 m drawn in lon/lat
(seeded: the same files every run), then warped nearest to their UTM zone (12N or 13N) with a
nodata collar (index 255), LZW, tiled.

usage: /usr/bin/python3 scripts/bench/make-drg-sheets.py OUTDIR   (needs python3-gdal, numpy)
then:  CASES=files FILES="$(echo OUTDIR/sheets/*.tif)" FILES_ZOOM=10-15 \
         scripts/bench/build-vs-gdal2tiles.sh"""
import sys, os, subprocess
import numpy as np
import noise
from osgeo import gdal
gdal.UseExceptions()
out = sys.argv[1]; os.makedirs(out + "/src", exist_ok=True); os.makedirs(out + "/sheets", exist_ok=True)
rng = np.random.default_rng(7)
PAL = [(255,255,255),(205,230,190),(150,110,60),(120,80,40),(120,180,230),(40,90,200),(0,0,0),(200,30,30),
       (250,200,120),(90,150,90),(180,180,180),(230,120,40),(100,100,100)]
def smooth(shape, scale): return noise.smooth(rng, shape, scale)
res = 0.125 / 3000  # degrees per pixel (~3.6 m north-south at 39N)
quads = [(-108.125, 39.0), (-108.0, 39.0), (-108.125, 39.125), (-108.0, 39.125)]
for n, (w, s) in enumerate(quads):
    H = W = 3000
    elev = 2500 + 400 * smooth((H, W), 400) + 60 * smooth((H, W), 60)
    img = np.zeros((H, W), np.uint8)                     # white
    img[smooth((H, W), 150) > 0.2] = 1                    # woodland tint
    water = elev < 2500 - 420
    img[water] = 4
    cont = np.floor(elev / 12.0)                          # 12 m contours
    edge = (cont != np.roll(cont, 1, 0)) | (cont != np.roll(cont, 1, 1))
    idx = np.floor(elev / 60.0); iedge = (idx != np.roll(idx, 1, 0)) | (idx != np.roll(idx, 1, 1))
    img[edge & ~water] = 2; img[iedge & ~water] = 3
    img[iedge & water] = 5
    yy, xx = np.mgrid[0:H, 0:W]
    for _ in range(6):                                    # roads: wavy lines
        y0 = rng.uniform(0, H); a = rng.uniform(50, 300); p = rng.uniform(500, 2000)
        d = np.abs(yy - (y0 + a * np.sin(xx / p * 6.28)))
        img[d < 2.5] = 6
        img[(d >= 2.5) & (d < 4)] = 11 if _ % 2 else 6
    for _ in range(4):                                    # streams
        x0 = rng.uniform(0, W); d = np.abs(xx - (x0 + 150 * np.sin(yy / 700.0)))
        img[d < 1.5] = 5
    for k in range(1, 10):                                # grid ticks
        img[:, k * 300:k * 300 + 2][::7] = 7; img[k * 300:k * 300 + 2, :][:, ::7] = 7
    for _ in range(120):                                  # labels: small black blocks of text-like noise
        y, x = rng.integers(0, H - 20), rng.integers(0, W - 120)
        blk = rng.random((12, 100)) < 0.35; img[y:y+12, x:x+100][blk] = 6
    src = f"{out}/src/q{n}.tif"
    d = gdal.GetDriverByName("GTiff").Create(src, W, H, 1, gdal.GDT_Byte, ["COMPRESS=LZW"])
    d.SetGeoTransform((w, res, 0, s + 0.125, 0, -res)); d.SetProjection("EPSG:4326")
    b = d.GetRasterBand(1); ct = gdal.ColorTable()
    for i, c in enumerate(PAL): ct.SetColorEntry(i, c + (255,))
    b.SetColorTable(ct); b.WriteArray(img); d = None
    zone = 12 if w < -108 else 13
    subprocess.run(["gdalwarp", "-q", "-overwrite", "-t_srs", f"EPSG:326{zone}", "-tr", "3", "3", "-r", "near",
                    "-dstnodata", "255", "-co", "COMPRESS=LZW", "-co", "TILED=YES", src, f"{out}/sheets/q{n}-utm{zone}.tif"], check=True)
print("done")
