#!/usr/bin/python3
"""Trails overlay benchmark helper (scripts/bench/trails-render.sh).

generate OUT_DIR [LINES] [TILES_PER_ZOOM]: a state-sized network of random-walk trails
    (lines.geojson, EPSG:4326), the tiles to draw (tiles.txt, z10-16, each holding some line),
    and the style both renderers use (style.json, TrailRendering's TrailStyle).
mapnik OUT_DIR: draws the same tiles with Mapnik (python3-mapnik), the same widths, colours
    and casing, timing mapnik.render alone; writes a sample of the tiles for the comparison.
compare OUT_DIR: coverage agreement of TrailMap's tiles and Mapnik's on the sample.
"""
import json
import math
import os
import random
import sys
import time

ZOOMS = range(10, 17)
# Colorado's extent, as a state-sized area.
WEST, SOUTH, EAST, NORTH = -109.0, 37.0, -102.05, 41.0
DIFFICULTIES = ["easy", "moderate", "hard", "expert", "unknown"]
SAMPLE_EVERY = 10  # every 10th tile of each zoom is written and compared


def merc(lon, lat):
    x = lon * 20037508.342789244 / 180
    y = math.log(math.tan((90 + lat) * math.pi / 360)) * 6378137.0
    return x, y


def tile_of(lon, lat, z):
    x, y = merc(lon, lat)
    span = 2 * 20037508.342789244 / (1 << z)
    return z, int((x + 20037508.342789244) // span), int((20037508.342789244 - y) // span)


def tile_bounds(z, x, y):
    span = 2 * 20037508.342789244 / (1 << z)
    minx = -20037508.342789244 + x * span
    maxy = 20037508.342789244 - y * span
    return minx, maxy - span, minx + span, maxy


def generate(out, count=6000, per_zoom=300):
    rng = random.Random(37)
    features = []
    for i in range(count):
        lon, lat = rng.uniform(WEST, EAST), rng.uniform(SOUTH, NORTH)
        heading = rng.uniform(0, 2 * math.pi)
        pts = [[lon, lat]]
        for _ in range(rng.randint(40, 400)):
            heading += rng.gauss(0, 0.35)
            step = rng.uniform(15, 60)  # metres
            lon += math.cos(heading) * step / (111320 * math.cos(math.radians(lat)))
            lat += math.sin(heading) * step / 110540
            pts.append([round(lon, 7), round(lat, 7)])
        features.append({"type": "Feature",
                         "properties": {"id": "t%d" % i, "name": "Trail %d" % i,
                                        "difficulty": DIFFICULTIES[i % 5]},
                         "geometry": {"type": "LineString", "coordinates": pts}})
    with open(os.path.join(out, "lines.geojson"), "w") as f:
        json.dump({"type": "FeatureCollection", "features": features}, f)
    tiles = []
    for z in ZOOMS:
        chosen = set()
        while len(chosen) < per_zoom:
            coords = rng.choice(features)["geometry"]["coordinates"]
            lon, lat = rng.choice(coords)
            chosen.add(tile_of(lon, lat, z))
        tiles += sorted(chosen)
    with open(os.path.join(out, "tiles.txt"), "w") as f:
        f.write("".join("%d %d %d\n" % t for t in tiles))
    style = {
        "lineWidth": [{"zoom": 10, "value": 1.5}, {"zoom": 14, "value": 2.5}, {"zoom": 17, "value": 4}],
        "casingWidth": [{"zoom": 10, "value": 0.75}, {"zoom": 16, "value": 1.5}],
        "casingColor": "#ffffff",
        "colors": {"easy": "#2ea043", "moderate": "#1f64d6", "hard": "#d62828", "expert": "#141414", "unknown": "#786e64"},
        "labelMinZoom": 99,
    }
    with open(os.path.join(out, "style.json"), "w") as f:
        json.dump(style, f)
    print("generated %d lines, %d vertices, %d tiles" % (
        count, sum(len(f["geometry"]["coordinates"]) for f in features), len(tiles)))


def stop_value(stops, z):
    stops = sorted(stops, key=lambda s: s["zoom"])
    if z <= stops[0]["zoom"]:
        return stops[0]["value"]
    for a, b in zip(stops, stops[1:]):
        if z <= b["zoom"]:
            return a["value"] + (b["value"] - a["value"]) * (z - a["zoom"]) / (b["zoom"] - a["zoom"])
    return stops[-1]["value"]


def mapnik_map(mapnik, out, style, z):
    m = mapnik.Map(256, 256, "epsg:3857")
    m.background = mapnik.Color(0, 0, 0, 0)
    line = stop_value(style["lineWidth"], z)
    casing = stop_value(style["casingWidth"], z)
    m.buffer_size = int(math.ceil(line / 2 + casing)) + 2
    cs, ls = mapnik.Style(), mapnik.Style()
    r = mapnik.Rule()
    sym = mapnik.LineSymbolizer()
    sym.stroke = mapnik.Color(style["casingColor"])
    sym.stroke_width = line + 2 * casing
    sym.stroke_linecap = mapnik.stroke_linecap.ROUND_CAP
    sym.stroke_linejoin = mapnik.stroke_linejoin.ROUND_JOIN
    r.symbols.append(sym)
    cs.rules.append(r)
    for d in DIFFICULTIES:
        r = mapnik.Rule()
        r.filter = mapnik.Expression("[difficulty] = '%s'" % d)
        sym = mapnik.LineSymbolizer()
        sym.stroke = mapnik.Color(style["colors"][d])
        sym.stroke_width = line
        sym.stroke_linecap = mapnik.stroke_linecap.ROUND_CAP
        sym.stroke_linejoin = mapnik.stroke_linejoin.ROUND_JOIN
        r.symbols.append(sym)
        ls.rules.append(r)
    m.append_style("casing", cs)
    m.append_style("lines", ls)
    layer = mapnik.Layer("trails", "epsg:4326")
    layer.datasource = mapnik.Datasource(type="geojson", file=os.path.join(out, "lines.geojson"))
    layer.styles.append("casing")
    layer.styles.append("lines")
    m.layers.append(layer)
    return m


def read_tiles(out):
    with open(os.path.join(out, "tiles.txt")) as f:
        return [tuple(int(v) for v in row.split()) for row in f if row.strip()]


def run_mapnik(out):
    import mapnik
    with open(os.path.join(out, "style.json")) as f:
        style = json.load(f)
    tiles = read_tiles(out)
    t0 = time.perf_counter()
    maps = {z: mapnik_map(mapnik, out, style, z) for z in ZOOMS}
    # The GeoJSON datasource loads and indexes on first use: one warm-up render per map.
    for z, m in maps.items():
        m.zoom_to_box(mapnik.Box2d(*tile_bounds(z, *tile_of(-105, 39, z)[1:])))
        mapnik.render(m, mapnik.Image(256, 256))
    prepare = time.perf_counter() - t0
    per_zoom = {}
    cpu_zoom = {}
    total = 0.0
    cpu_total = 0.0
    count = {}
    for z, x, y in tiles:
        m = maps[z]
        m.zoom_to_box(mapnik.Box2d(*tile_bounds(z, x, y)))
        im = mapnik.Image(256, 256)
        s, c = time.perf_counter(), time.thread_time()
        mapnik.render(m, im)
        d, cpu = time.perf_counter() - s, time.thread_time() - c
        total += d
        cpu_total += cpu
        per_zoom[z] = per_zoom.get(z, 0.0) + d
        cpu_zoom[z] = cpu_zoom.get(z, 0.0) + cpu
        count[z] = count.get(z, 0) + 1
        if count[z] % SAMPLE_EVERY == 1:
            folder = os.path.join(out, "mapnik", str(z), str(x))
            os.makedirs(folder, exist_ok=True)
            im.save(os.path.join(folder, "%d.png" % y), "png32")
    print("mapnik %s: prepare %.3f s, tiles %d, render %.3f s, cpu %.3f s" % (
        mapnik.mapnik_version(), prepare, len(tiles), total, cpu_total))
    for z in sorted(per_zoom):
        print("z%d %d tiles %.3f s, cpu %.3f s" % (z, count[z], per_zoom[z], cpu_zoom[z]))


def alpha_of(mapnik, np, path):
    im = mapnik.Image.open(path)
    a = np.frombuffer(im.tostring(), dtype=np.uint8).reshape(im.height(), im.width(), 4)[:, :, 3]
    return a


def dilate(np, mask):
    out = mask.copy()
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            shifted = np.zeros_like(mask)
            ys = slice(max(dy, 0), mask.shape[0] + min(dy, 0))
            yd = slice(max(-dy, 0), mask.shape[0] + min(-dy, 0))
            xs = slice(max(dx, 0), mask.shape[1] + min(dx, 0))
            xd = slice(max(-dx, 0), mask.shape[1] + min(-dx, 0))
            shifted[yd, xd] = mask[ys, xs]
            out |= shifted
    return out


def compare(out):
    import mapnik
    import numpy as np
    rows = {}
    for root, _, files in os.walk(os.path.join(out, "mapnik")):
        for name in files:
            rel = os.path.relpath(os.path.join(root, name), os.path.join(out, "mapnik"))
            z = int(rel.split(os.sep)[0])
            ours_path = os.path.join(out, "trailmap", rel)
            if not os.path.exists(ours_path):
                continue
            theirs = alpha_of(mapnik, np, os.path.join(root, name)) >= 128
            ours = alpha_of(mapnik, np, ours_path) >= 128
            r = rows.setdefault(z, [0, 0, 0, 0, 0, 0])
            r[0] += 1
            r[1] += int(ours.sum())
            r[2] += int(theirs.sum())
            r[3] += int((ours & ~dilate(np, theirs)).sum())  # ours more than 1 px from Mapnik's
            r[4] += int((theirs & ~dilate(np, ours)).sum())  # Mapnik's more than 1 px from ours
            r[5] += int((ours & theirs).sum())
    print("| zoom | tiles | TrailMap px | Mapnik px | TrailMap px >1 px from Mapnik's | Mapnik px >1 px from TrailMap's | IoU |")
    print("|---|---|---|---|---|---|---|")
    for z in sorted(rows):
        n, a, b, ab, ba, both = rows[z]
        union = a + b - both
        print("| %d | %d | %d | %d | %d (%.3f%%) | %d (%.3f%%) | %.3f |" % (
            z, n, a, b, ab, 100.0 * ab / max(a, 1), ba, 100.0 * ba / max(b, 1), both / max(union, 1)))


if __name__ == "__main__":
    cmd, out = sys.argv[1], sys.argv[2]
    if cmd == "generate":
        generate(out, *(int(v) for v in sys.argv[3:5]))
    elif cmd == "mapnik":
        run_mapnik(out)
    elif cmd == "compare":
        compare(out)
    else:
        sys.exit("unknown command " + cmd)
