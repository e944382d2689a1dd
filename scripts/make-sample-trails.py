#!/usr/bin/env python3
"""Re-creates Tiles/sources/trails.png + trails.pgw: the sample's transparent "trails" overlay
(a made-up trail network, not real trails) over the Colorado sample's extent, 110W-101W x
36N-42N, EPSG:4326 at 0.005 degree per pixel (1800x1200 px, RGBA; transparent but for the lines).

Seeded, standard library only: the same bytes on every run. Each trail is a smoothed random walk
from a trailhead (a dark dot), drawn as a 3-px brown line.

usage: make-sample-trails.py [W,S,E,N PIXEL_DEGREES OUT_DIR [TRAILS]]   (benchmarks make bigger ones)
"""
import math, os, random, struct, sys, zlib

W, S, E, N, PX = -110.0, 36.0, -101.0, 42.0, 0.005
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tiles", "sources")
count = 40
if len(sys.argv) >= 4:
    W, S, E, N = (float(v) for v in sys.argv[1].split(","))
    PX, out = float(sys.argv[2]), sys.argv[3]
    count = int(sys.argv[4]) if len(sys.argv) > 4 else count
width, height = round((E - W) / PX), round((N - S) / PX)
rgba = bytearray(width * height * 4)


def stamp(cx, cy, radius, colour):
    for y in range(int(cy - radius), int(cy + radius) + 1):
        for x in range(int(cx - radius), int(cx + radius) + 1):
            if 0 <= x < width and 0 <= y < height and (x - cx) ** 2 + (y - cy) ** 2 <= radius * radius:
                rgba[(y * width + x) * 4:(y * width + x) * 4 + 4] = bytes(colour)


rng = random.Random(20261123)
for _ in range(count):
    x, y = rng.uniform(50, width - 50), rng.uniform(50, height - 50)
    heading, turn = rng.uniform(0, 2 * math.pi), 0.0
    stamp(x, y, 5, (40, 30, 20, 255))
    for _ in range(rng.randint(150, 500)):
        turn = 0.85 * turn + rng.gauss(0, 0.08)
        heading += turn
        x, y = x + 1.5 * math.cos(heading), y + 1.5 * math.sin(heading)
        if not (2 <= x < width - 2 and 2 <= y < height - 2):
            break
        stamp(x, y, 1.5, (150, 60, 20, 255))


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


raw = b"".join(b"\0" + bytes(rgba[y * width * 4:(y + 1) * width * 4]) for y in range(height))
png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0))
       + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))
with open(os.path.join(out, "trails.png"), "wb") as f:
    f.write(png)
with open(os.path.join(out, "trails.pgw"), "w") as f:
    f.write(f"{PX:.15f}\n0\n0\n{-PX:.15f}\n{W + PX / 2:.15f}\n{N - PX / 2:.15f}\n")
print(f"wrote trails.png ({width}x{height}, {len(png)} bytes) and trails.pgw")
