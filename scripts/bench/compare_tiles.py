#!/usr/bin/env python3
"""Compare a TrailMap MBTiles bundle with a gdal2tiles --xyz folder.

usage: compare_tiles.py BUNDLE.mbtiles XYZ_DIR

Prints `key=value` lines (read by build-vs-gdal2tiles.sh) followed by a short
per-zoom / per-colour-type breakdown. PSNR is over RGBA of every tile present in
both sets; pixels transparent (alpha 0) in both count as equal.
Needs numpy and Pillow.
"""
import collections, io, math, os, sqlite3, sys

import numpy as np
from PIL import Image

COLOUR = {0: "gray", 2: "rgb", 3: "palette", 4: "gray+a", 6: "rgba"}


def colour_type(png):
    # IHDR: 8-byte signature, 4 len, 4 "IHDR", 4 w, 4 h, 1 depth, 1 colour type
    return f"{COLOUR.get(png[25], png[25])}/{png[24]}bit" if png[:8] == b"\x89PNG\r\n\x1a\n" else "not-png"


def rgba(png):
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"), dtype=np.float64)


def main(bundle, xyz_dir):
    db = sqlite3.connect(f"file:{bundle}?mode=ro", uri=True)
    tm = {}
    for z, x, row, data in db.execute("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles"):
        tm[(z, x, (1 << z) - 1 - row)] = bytes(data)  # TMS row -> XYZ y
    tm_unique = db.execute("SELECT COUNT(*), COALESCE(SUM(LENGTH(tile_data)), 0) FROM images").fetchone() \
        if db.execute("SELECT 1 FROM sqlite_master WHERE name='images'").fetchone() else (len(tm), sum(map(len, tm.values())))

    gd = {}
    for z in filter(str.isdigit, os.listdir(xyz_dir)):
        for x in filter(str.isdigit, os.listdir(os.path.join(xyz_dir, z))):
            d = os.path.join(xyz_dir, z, x)
            for f in os.listdir(d):
                if f.endswith(".png"):
                    with open(os.path.join(d, f), "rb") as fh:
                        gd[(int(z), int(x), int(f[:-4]))] = fh.read()

    common = sorted(tm.keys() & gd.keys())
    sse_z, n_z = collections.Counter(), collections.Counter()
    for key in common:
        a, b = rgba(tm[key]), rgba(gd[key])
        if a.shape != b.shape:
            sys.exit(f"tile {key}: size {a.shape} vs {b.shape}")
        diff = (a - b) ** 2
        diff[(a[..., 3] == 0) & (b[..., 3] == 0)] = 0.0
        sse_z[key[0]] += diff.sum()
        n_z[key[0]] += diff.size

    def psnr(sse, n):
        return float("inf") if sse == 0 else 10 * math.log10(255.0 ** 2 / (sse / n))

    tb, gb = sum(map(len, tm.values())), sum(map(len, gd.values()))
    print(f"trailmap_tiles={len(tm)}")
    print(f"gdal_tiles={len(gd)}")
    print(f"common_tiles={len(common)}")
    print(f"trailmap_bytes={tb}")
    print(f"trailmap_unique_tiles={tm_unique[0]}")
    print(f"trailmap_unique_bytes={tm_unique[1]}")
    print(f"gdal_bytes={gb}")
    print(f"psnr={psnr(sum(sse_z.values()), sum(n_z.values())) if common else float('nan'):.2f}")

    print("\n  zoom  trailmap(tiles/bytes)  gdal2tiles(tiles/bytes)  common  PSNR dB")
    for z in sorted({k[0] for k in tm} | {k[0] for k in gd}):
        t = [v for k, v in tm.items() if k[0] == z]
        g = [v for k, v in gd.items() if k[0] == z]
        p = f"{psnr(sse_z[z], n_z[z]):7.2f}" if n_z[z] else "    n/a"
        print(f"  {z:4d}  {len(t):6d} / {sum(map(len, t)):11d}  {len(g):6d} / {sum(map(len, g)):11d}"
              f"  {sum(1 for k in common if k[0] == z):6d}  {p}")
    for label, tiles in (("trailmap", tm), ("gdal2tiles", gd)):
        c = collections.Counter(colour_type(v) for v in tiles.values())
        avg = {t: sum(len(v) for v in tiles.values() if colour_type(v) == t) // n for t, n in c.items()}
        print(f"  {label} colour types: " + ", ".join(f"{t}: {n} tiles, avg {avg[t]} B" for t, n in c.most_common()))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
