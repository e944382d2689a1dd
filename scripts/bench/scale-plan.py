#!/usr/bin/env python3
"""The country-scale plan of docs/scale.md, on paper: from measured per-tile costs (scripts/bench/
scale-inputs.sh prints them as KEY=VALUE lines), the tiles, core-hours, nodes, storage, merge and
writer limits of a z0-16 build of the contiguous US from 1 m imagery, and the serving fleet for a
request rate.

usage: scripts/bench/scale-inputs.sh | python3 scripts/bench/scale-plan.py [--nodes-cores 32] [--hours 24] [--rps 20000]
"""
import argparse, math, sys

ap = argparse.ArgumentParser()
ap.add_argument("--node-cores", type=int, default=32, help="cores per build node")
ap.add_argument("--hours", type=float, default=24, help="wall-clock target of the build")
ap.add_argument("--rps", type=float, default=20000, help="peak tile requests per second to serve")
ap.add_argument("--area-km2", type=float, default=8.08e6, help="contiguous US, land and water (Census: 3.12 M sq mi)")
ap.add_argument("--lat", type=float, default=38.5, help="the area's mean latitude (for the tiles' ground size)")
ap.add_argument("--source-m", type=float, default=1.0, help="imagery pixel size")
args = ap.parse_args()
m = {}
for line in sys.stdin:
    if "=" in line and not line.startswith("#"):
        k, v = line.strip().split("=", 1)
        try: m[k] = float(v)
        except ValueError: m[k] = v

z = 16
tile_m = 40075016.686 / 2 ** z * math.cos(math.radians(args.lat))      # ground size of a z16 tile
top = args.area_km2 * 1e6 / tile_m ** 2
total = top * 4 / 3                                                      # + every zoom above (1/4 each)
print(f"tiles: z16 {top / 1e6:.1f} M (ground {tile_m:.0f} m, {tile_m / 256:.2f} m/px at {args.lat} N), z0-16 {total / 1e6:.1f} M")
src_px = (tile_m / 256 / args.source_m) ** 2
print(f"source pixels per z16 pixel: {src_px:.1f}; source: {args.area_km2 * 1e6 / args.source_m ** 2 / 1e12:.1f} T px "
      f"({args.area_km2 * 1e6 / args.source_m ** 2 * 3 / 1e12:.0f} TB as 8-bit RGB)")
# The read's growth with the source pixels a tile covers: one-zoom builds at three zooms of the
# 50 m mosaic, fitted ms = a + b * ratio (least squares), the top zoom's extra read at the
# target ratio added to 3/4 of the pyramid's tiles.
pts = []
for k, v in m.items():
    if k.startswith("png.z") and k.endswith(".ms_per_tile"):
        zz = int(k[5:].split(".")[0])
        px = 40075016.686 * math.cos(math.radians(39)) / 2 ** zz / 256
        pts.append(((px / m.get("bench_source_m", 50)) ** 2, v))
b = 0.0
if len(pts) >= 2:
    mx = sum(r for r, _ in pts) / len(pts); my = sum(t for _, t in pts) / len(pts)
    b = sum((r - mx) * (t - my) for r, t in pts) / sum((r - mx) ** 2 for r, _ in pts)
    print("read: " + ", ".join(f"{t:.2f} ms/tile at {r:.2f} source px per tile px" for r, t in sorted(pts)) + f"; slope {b:.2f} ms per unit of ratio")
top_z = int(m.get("bench_top", 12))
bench_r = ((40075016.686 * math.cos(math.radians(39)) / 2 ** top_z / 256) / m.get("bench_source_m", 50)) ** 2
extra = 0.75 * max(b, 0) * (src_px - bench_r)
print()
print(f"| format | CPU ms/tile measured (pyramid) | at 1 m sources | core-hours | nodes of {args.node_cores} cores for {args.hours:.0f} h | bytes/tile | storage z0-16 |")
print("|---|---|---|---|---|---|---|")
for f in ("png", "webp-lossless", "webp-q90"):
    if f"{f}.ms_per_tile" not in m: continue
    t = m[f"{f}.ms_per_tile"]
    bts = m.get(f"{f}.z{top_z - 2}.bytes", m[f"{f}.bytes"])
    core_h = total * (t + extra) / 1000 / 3600
    nodes = core_h / args.hours / args.node_cores
    print(f"| {f} | {t:.2f} | {t + extra:.2f} | {core_h:,.0f} | {math.ceil(nodes)} ({core_h / args.node_cores:,.0f} node-hours) | {bts / 1000:.1f} KB | {total * bts / 1e12:.2f} TB |")
print()
if "merge.seconds" in m:
    m["merge_copy_tps"] = m["merge.tiles"] / m["merge.seconds"]
if "merge_copy_tps" in m:
    copy_h = total / m["merge_copy_tps"] / 3600
    print(f"merge: {m['merge_copy_tps']:,.0f} tiles/s measured (copy and the levels above the units) -> {total / 1e6:.0f} M tiles in {copy_h:.1f} h on one machine")
if "writer_tps" in m:
    for f in ("png", "webp-lossless", "webp-q90"):
        if f"{f}.ms_per_tile" not in m: continue
        per_core = 1000 / (m[f"{f}.ms_per_tile"] + extra)
        print(f"single writer ({f}): {m['writer_tps']:,.0f} tiles/s = the output of {m['writer_tps'] / per_core:.0f} rendering cores (one shard saturates it at that many threads)")
print()
if "serve_cached_rps_core" in m:
    hit = [0.0, 0.8, 0.9, 0.95, 0.99]
    print(f"| CDN hit ratio | origin req/s at {args.rps:,.0f} req/s | origin cores (cached / from disk) | replicas of 8 cores (N+1) |")
    print("|---|---|---|---|")
    for h in hit:
        origin = args.rps * (1 - h)
        c1 = origin / m["serve_cached_rps_core"]; c2 = origin / m["serve_disk_rps_core"]
        print(f"| {h:.0%} | {origin:,.0f} | {c1:.1f} / {c2:.1f} | {math.ceil(c2 / 8 / 0.6) + 1} |")
