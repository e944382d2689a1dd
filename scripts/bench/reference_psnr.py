#!/usr/bin/env python3
"""PSNR of both tools' top-zoom tiles against a third rendering: `gdalwarp -r average` of the
sources straight to each tile's extent (EPSG:3857, 256 px, with alpha), over the pixels opaque in
all three. PSNR against gdal2tiles says how alike the two tools' tiles are, not which is nearer
the sources; this says that (gdal2tiles warps a file in another CRS by nearest neighbour before
it averages, which aliases fine detail).

usage: reference_psnr.py ZOOM COUNT TRAILMAP.mbtiles GDAL2TILES_DIR SOURCE...
Tiles: COUNT of the top zoom's tiles that both tools made, taken from the middle half of the
columns and rows (away from the sources' edges), in a seeded random order. Prints one line per
tile and the key=value lines ref_gdal, ref_trailmap (mean dB) and ref_tiles.
Needs Debian's python3 with python3-gdal and python3-numpy.
"""
import math
import os
import random
import sqlite3
import sys

import numpy as np
from osgeo import gdal

gdal.UseExceptions()
ORIGIN = 20037508.342789244


def rgba(ds):
    """A dataset's bands as float RGBA (gray and gray+alpha widened)."""
    a = ds.ReadAsArray().astype(float)
    if a.ndim == 2:
        a = a[None]
    n = a.shape[0]
    if n == 1:
        a = np.concatenate([a, a, a, np.full_like(a[:1], 255)])
    elif n == 2:
        a = np.concatenate([a[:1], a[:1], a[:1], a[1:]])
    elif n == 3:
        a = np.concatenate([a, np.full_like(a[:1], 255)])
    return a.transpose(1, 2, 0)


def decode(data, name):
    path = f"/vsimem/{name}.png"
    gdal.FileFromMemBuffer(path, data)
    try:
        return rgba(gdal.Open(path))
    finally:
        gdal.Unlink(path)


def psnr(a, b, mask):
    err = ((a - b)[mask] ** 2).mean()
    return 99.0 if err == 0 else 10 * math.log10(255 ** 2 / err)


def main():
    z, count, mbtiles, gdir = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
    sources = sys.argv[5:]
    db = sqlite3.connect(f"file:{mbtiles}?mode=ro", uri=True)
    xs = sorted(int(x) for x in os.listdir(f"{gdir}/{z}"))
    candidates = []
    for x in xs[len(xs) // 4: max(3 * len(xs) // 4, len(xs) // 4 + 1)]:
        ys = sorted(int(f[:-4]) for f in os.listdir(f"{gdir}/{z}/{x}") if f.endswith(".png"))
        candidates += [(x, y) for y in ys[len(ys) // 4: max(3 * len(ys) // 4, len(ys) // 4 + 1)]]
    random.seed(1)
    results = []
    for x, y in random.sample(candidates, min(count, len(candidates))):
        row = db.execute("select tile_data from tiles where zoom_level=? and tile_column=? and tile_row=?",
                         (z, x, 2 ** z - 1 - y)).fetchone()
        if row is None:
            continue
        size = 2 * ORIGIN / 2 ** z
        minx, maxy = -ORIGIN + x * size, ORIGIN - y * size
        ref = rgba(gdal.Warp("", sources, format="MEM", dstSRS="EPSG:3857", outputBounds=(minx, maxy - size, minx + size, maxy),
                             width=256, height=256, resampleAlg="average", dstAlpha=True))
        g = rgba(gdal.Open(f"{gdir}/{z}/{x}/{y}.png"))
        t = decode(bytes(row[0]), f"t{x}-{y}")
        opaque = (ref[..., 3] == 255) & (g[..., 3] == 255) & (t[..., 3] == 255)
        if opaque.sum() < 1000:
            continue
        mask = np.repeat(opaque[..., None], 3, 2)
        results.append((psnr(g[..., :3], ref[..., :3], mask), psnr(t[..., :3], ref[..., :3], mask)))
        print(f"  z{z} {x}/{y}: against gdalwarp -r average: gdal2tiles {results[-1][0]:.2f} dB, trailmap {results[-1][1]:.2f} dB")
    if results:
        mean = np.array(results).mean(0)
        print(f"ref_gdal={mean[0]:.2f}\nref_trailmap={mean[1]:.2f}\nref_tiles={len(results)}")
    else:
        print("ref_gdal=nan\nref_trailmap=nan\nref_tiles=0")


if __name__ == "__main__":
    main()
