#!/usr/bin/env python3
"""Writes a synthetic MBTiles bundle (TrailMap's deduplicated layout) with many distinct tile
addresses for the cache memory benchmark: a SIDE x SIDE block of zoom-11 tiles, each pointing to
one of IMAGES random blobs of 4-28 KB (tile payloads as large as real PNG tiles; the cache keeps
one copy per address, so memory behaves as with distinct images).
usage: cache-make-bundle.py OUT.mbtiles [SIDE=1024] [IMAGES=3000]"""
import os, random, sqlite3, sys

out = sys.argv[1]
side = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
images = int(sys.argv[3]) if len(sys.argv) > 3 else 3000
z, x0, y0 = 11, 0, 0
if os.path.exists(out):
    os.remove(out)
db = sqlite3.connect(out)
db.executescript("""
CREATE TABLE metadata (name TEXT NOT NULL PRIMARY KEY, value TEXT);
CREATE TABLE images (tile_id TEXT NOT NULL PRIMARY KEY, tile_data BLOB NOT NULL);
CREATE TABLE map (zoom_level INTEGER NOT NULL, tile_column INTEGER NOT NULL, tile_row INTEGER NOT NULL,
                  tile_id TEXT NOT NULL, PRIMARY KEY (zoom_level, tile_column, tile_row));
CREATE VIEW tiles AS SELECT map.zoom_level AS zoom_level, map.tile_column AS tile_column,
       map.tile_row AS tile_row, images.tile_data AS tile_data FROM map JOIN images ON images.tile_id = map.tile_id;
""")
rng = random.Random(7)
db.executemany("INSERT INTO images VALUES (?, ?)",
               ((f"img{i}", rng.randbytes(rng.randint(4096, 28672))) for i in range(images)))
n = 1 << z
db.executemany("INSERT INTO map VALUES (?, ?, ?, ?)",
               ((z, x0 + i % side, n - 1 - (y0 + i // side), f"img{rng.randrange(images)}") for i in range(side * side)))
meta = {"name": "cachebench", "format": "png", "type": "baselayer", "version": "1", "description": "synthetic",
        "attribution": "synthetic", "minzoom": str(z), "maxzoom": str(z), "bounds": "-180,-85.0511,180,85.0511",
        "center": "0,0,11"}
db.executemany("INSERT INTO metadata VALUES (?, ?)", meta.items())
db.commit()
db.close()
print(f"{out}: {side * side} tiles at zoom {z}, {images} images")
