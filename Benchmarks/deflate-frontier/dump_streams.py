#!/usr/bin/env python3
"""Dump the IDAT streams (filtered rows, before deflate) of a sample of a bundle's tiles.

usage: dump_streams.py BUNDLE.mbtiles OUT_DIR [COUNT] [SEED]

The streams are exactly what the bundle's builder compressed (for TrailMap's default: per-row
least-entropy filters on truecolour, no filter on palettes). Files are named
NNNN_sSTRIDE_bBPP_KIND.bin, STRIDE counting the filter byte. Python standard library only.
"""
import os, random, sqlite3, sys, zlib


def chunks(png):
    i = 8
    while i + 8 <= len(png):
        n = int.from_bytes(png[i:i + 4], "big")
        yield png[i + 4:i + 8], png[i + 8:i + 8 + n]
        i += 12 + n


def main(bundle, out_dir, count=200, seed=7):
    db = sqlite3.connect(f"file:{bundle}?mode=ro", uri=True)
    tiles = [bytes(r[0]) for r in db.execute("SELECT tile_data FROM images")]
    random.Random(seed).shuffle(tiles)
    os.makedirs(out_dir, exist_ok=True)
    for i, png in enumerate(tiles[:count]):
        parts = list(chunks(png))
        ihdr = next(d for t, d in parts if t == b"IHDR")
        width, depth, ctype = int.from_bytes(ihdr[0:4], "big"), ihdr[8], ihdr[9]
        channels = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
        bpp = max(1, channels * depth // 8)
        stride = (width * channels * depth + 7) // 8 + 1
        kind = "palette" if ctype == 3 else "truecolour"
        raw = zlib.decompress(b"".join(d for t, d in parts if t == b"IDAT"))
        with open(os.path.join(out_dir, f"{i:04d}_s{stride}_b{bpp}_{kind}.bin"), "wb") as f:
            f.write(raw)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], *(int(a) for a in sys.argv[3:5]))
