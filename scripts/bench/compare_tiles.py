#!/usr/bin/env python3
"""Compare two tile sets: a TrailMap MBTiles bundle and a gdal2tiles --xyz folder.

usage: compare_tiles.py A B
       A, B: each an MBTiles file (rows in TMS order, `tiles` table or view; TrailMap's
             deduplicated `images` + `map` schema is recognised) or an XYZ folder Z/X/Y.png
             (or .webp, .jpg: gdal2tiles --xyz --tiledriver). Tiles may be PNG, WebP or JPEG. build-vs-gdal2tiles.sh passes the trailmap bundle as A and
             the gdal2tiles folder as B; the keys say "trailmap" for A and "gdal" for B.

Prints `key=value` lines (read by build-vs-gdal2tiles.sh) followed by a short
per-zoom / per-colour-type breakdown. PSNR is over RGBA of every tile present in
both sets; pixels transparent (alpha 0) in both count as equal, whatever their RGB.
psnr_opaque is the same over the pixels opaque in both (the interior, without the edges where
a source ends: gdal2tiles averages transparent black into partly transparent edge pixels,
darkening them, so edges dominate the error where the two disagree); edge_pixels counts the
pixels partly transparent in either set and not transparent in both.
Tiles present in only one set are counted (only_trailmap, only_gdal), not compared.
Needs numpy and Pillow (Debian: python3-numpy python3-pil).
"""
import collections, hashlib, io, math, os, sqlite3, sys

import numpy as np
from PIL import Image

COLOUR = {0: "gray", 2: "rgb", 3: "palette", 4: "gray+a", 6: "rgba"}


def colour_type(png):
    # IHDR: 8-byte signature, 4 len, 4 "IHDR", 4 w, 4 h, 1 depth, 1 colour type
    return f"{COLOUR.get(png[25], png[25])}/{png[24]}bit" if png[:8] == b"\x89PNG\r\n\x1a\n" else "not-png"


def rgba(png):
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"), dtype=np.float64)


def unique(tiles):
    digests = {hashlib.sha256(v).digest(): len(v) for v in tiles.values()}
    return len(digests), sum(digests.values())


def load(path):
    """{(z, x, y_xyz): png bytes}, (unique tiles, unique bytes)"""
    tiles = {}
    if os.path.isdir(path):
        for z in filter(str.isdigit, os.listdir(path)):
            for x in filter(str.isdigit, os.listdir(os.path.join(path, z))):
                d = os.path.join(path, z, x)
                for f in os.listdir(d):
                    stem, ext = os.path.splitext(f)
                    if ext in (".png", ".webp", ".jpg", ".jpeg") and stem.isdigit():
                        with open(os.path.join(d, f), "rb") as fh:
                            tiles[(int(z), int(x), int(stem))] = fh.read()
        return tiles, unique(tiles)
    if not os.path.isfile(path):
        sys.exit(f"{path}: neither an MBTiles file nor a folder")
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    for z, x, row, data in db.execute("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles"):
        tiles[(z, x, (1 << z) - 1 - row)] = bytes(data)  # TMS row -> XYZ y
    if db.execute("SELECT 1 FROM sqlite_master WHERE name='images'").fetchone():
        stored = db.execute("SELECT COUNT(*), COALESCE(SUM(LENGTH(tile_data)), 0) FROM images").fetchone()
    else:
        stored = unique(tiles)
    db.close()
    return tiles, tuple(stored)


def main(a_path, b_path):
    tm, tm_unique = load(a_path)
    gd, gd_unique = load(b_path)

    common = sorted(tm.keys() & gd.keys())
    sse_z, n_z = collections.Counter(), collections.Counter()
    sse_opaque = n_opaque = n_edge = 0
    for key in common:
        a, b = rgba(tm[key]), rgba(gd[key])
        if a.shape != b.shape:
            sys.exit(f"tile {key}: size {a.shape} vs {b.shape}")
        diff = (a - b) ** 2
        diff[(a[..., 3] == 0) & (b[..., 3] == 0)] = 0.0
        sse_z[key[0]] += diff.sum()
        n_z[key[0]] += diff.size
        opaque = (a[..., 3] == 255) & (b[..., 3] == 255)
        sse_opaque += diff[opaque].sum()
        n_opaque += 4 * int(opaque.sum())
        n_edge += int((~opaque & ~((a[..., 3] == 0) & (b[..., 3] == 0))).sum())

    def psnr(sse, n):
        return float("inf") if sse == 0 else 10 * math.log10(255.0 ** 2 / (sse / n))

    tb, gb = sum(map(len, tm.values())), sum(map(len, gd.values()))
    print(f"trailmap_tiles={len(tm)}")
    print(f"gdal_tiles={len(gd)}")
    print(f"common_tiles={len(common)}")
    print(f"only_trailmap={len(tm.keys() - gd.keys())}")
    print(f"only_gdal={len(gd.keys() - tm.keys())}")
    print(f"trailmap_bytes={tb}")
    print(f"trailmap_unique_tiles={tm_unique[0]}")
    print(f"trailmap_unique_bytes={tm_unique[1]}")
    print(f"gdal_bytes={gb}")
    print(f"gdal_unique_tiles={gd_unique[0]}")
    print(f"psnr={psnr(sum(sse_z.values()), sum(n_z.values())) if common else float('nan'):.2f}")
    print(f"psnr_opaque={psnr(sse_opaque, n_opaque) if n_opaque else float('nan'):.2f}")
    print(f"edge_pixels={n_edge}")

    print("\n  zoom  A=trailmap(tiles/bytes)  B=gdal2tiles(tiles/bytes)  common  PSNR dB")
    for z in sorted({k[0] for k in tm} | {k[0] for k in gd}):
        t = [v for k, v in tm.items() if k[0] == z]
        g = [v for k, v in gd.items() if k[0] == z]
        p = f"{psnr(sse_z[z], n_z[z]):7.2f}" if n_z[z] else "    n/a"
        print(f"  {z:4d}  {len(t):6d} / {sum(map(len, t)):11d}    {len(g):6d} / {sum(map(len, g)):11d}"
              f"  {sum(1 for k in common if k[0] == z):6d}  {p}")
    for label, tiles in (("A", tm), ("B", gd)):
        c = collections.Counter(colour_type(v) for v in tiles.values())
        avg = {t: sum(len(v) for v in tiles.values() if colour_type(v) == t) // n for t, n in c.items()}
        print(f"  {label} colour types: " + ", ".join(f"{t}: {n} tiles, avg {avg[t]} B" for t, n in c.most_common()))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
