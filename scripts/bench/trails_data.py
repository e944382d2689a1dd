#!/usr/bin/python3
"""Helpers of scripts/bench/trails-data.sh (Debian's python3: its sqlite3 loads SpatiaLite).

  generate WAYS SEED POINTS_FILE N_POINTS   OpenStreetMap XML of WAYS trail ways on stdout
        (seeded: the same network every run) and N_POINTS query points ("lon lat", trail
        vertices drawn at random) in POINTS_FILE.
  empty-bundle FILE                          an MBTiles file with no tiles (tiles, metadata).
  gpkg-search GPKG POINTS N WARMUP RADIUS_KM OUT_PREFIX
        the benchmark's search on the GeoPackage ogr2ogr wrote (tags as columns), in-process,
        two ways: (a) its R*Tree and the attribute filter; (b) the same with SpatiaLite's
        geodesic distance to each line, kept within the radius, sorted, first 20 and the total.
  sizes FILE...                              bytes of each file and of its tables (dbstat).
"""
import math
import random
import sqlite3
import sys
import time
from xml.sax.saxutils import quoteattr

# Colorado's extent: a state-sized box.
WEST, SOUTH, EAST, NORTH = -109.05, 37.0, -102.05, 41.0

HIGHWAY = [("path", 40), ("track", 22), ("footway", 18), ("cycleway", 8), ("bridleway", 6), ("steps", 6)]
SAC = [("hiking", 45), ("mountain_hiking", 30), ("demanding_mountain_hiking", 12), ("alpine_hiking", 6),
       ("demanding_alpine_hiking", 4), ("difficult_alpine_hiking", 3)]
MTB = [("0", 30), ("1", 30), ("2", 20), ("3", 12), ("4", 6), ("5", 2)]
ACCESS = [("yes", 50), ("designated", 25), ("permissive", 5), ("no", 15), ("private", 5)]
SURFACE = [("ground", 30), ("gravel", 20), ("dirt", 20), ("rock", 10), ("compacted", 10), ("paved", 5), ("grass", 5)]
FIRST = ["Bear", "Elk", "Aspen", "Pine", "Eagle", "Cañon", "Piñon", "Lost", "Silver", "Twin", "Hidden", "Red", "Blue",
         "Cottonwood", "Spruce", "Ute", "Chimney", "Crystal", "Hermit", "O'Brien", "Mesa", "Coyote", "Juniper", "Willow"]
SECOND = ["Lake", "Creek", "Ridge", "Peak", "Gulch", "Meadow", "Pass", "Falls", "Canyon", "Basin", "Park", "Springs"]
KIND = ["Trail", "Trail", "Trail", "Path", "Loop", "Cutoff", "Connector", "Spur"]


def pick(rng, weighted):
    total = sum(w for _, w in weighted)
    r = rng.random() * total
    for v, w in weighted:
        r -= w
        if r < 0:
            return v
    return weighted[-1][0]


def generate(ways, seed, points_path, n_points):
    rng = random.Random(seed)
    out = sys.stdout
    write = out.write
    write("<?xml version='1.0' encoding='UTF-8'?>\n<osm version=\"0.6\" generator=\"trails_data.py\">\n")
    # Trail networks: clusters around trailheads, a few thousand over the state.
    clusters = [(rng.uniform(WEST + 0.1, EAST - 0.1), rng.uniform(SOUTH + 0.1, NORTH - 0.1)) for _ in range(max(1, ways // 40))]
    ends = [[] for _ in clusters]  # (node id, lon, lat) of way ends, per cluster: later ways start there
    coords = []  # every tenth vertex: where the queries are made
    node_id = 0
    way_nodes = []
    for _ in range(ways):
        c = rng.randrange(len(clusters))
        refs = []
        if ends[c] and rng.random() < 0.35:
            nid, lon, lat = rng.choice(ends[c])
            refs.append(nid)
        else:
            cx, cy = clusters[c]
            lon = min(EAST, max(WEST, cx + rng.gauss(0, 0.05)))
            lat = min(NORTH, max(SOUTH, cy + rng.gauss(0, 0.04)))
            node_id += 1
            write(f'<node id="{node_id}" version="1" lat="{lat:.7f}" lon="{lon:.7f}"/>\n')
            refs.append(node_id)
        n = min(400, 2 + int(rng.expovariate(1 / 18)))
        heading = rng.uniform(0, 2 * math.pi)
        step = rng.uniform(15, 60)  # metres
        kx = 111320 * math.cos(math.radians(lat))
        for _ in range(n - 1):
            heading += rng.gauss(0, 0.35)
            lon = min(EAST, max(WEST, lon + step * math.cos(heading) / kx))
            lat = min(NORTH, max(SOUTH, lat + step * math.sin(heading) / 110574))
            node_id += 1
            write(f'<node id="{node_id}" version="1" lat="{lat:.7f}" lon="{lon:.7f}"/>\n')
            refs.append(node_id)
            if node_id % 10 == 0:
                coords.append((lon, lat))
        ends[c].append((refs[-1], lon, lat))
        way_nodes.append(refs)
    for i, refs in enumerate(way_nodes, start=1):
        hw = pick(rng, HIGHWAY)
        tags = [("highway", hw)]
        if rng.random() < 0.45:
            tags.append(("name", f"{rng.choice(FIRST)} {rng.choice(SECOND)} {rng.choice(KIND)}"))
        if rng.random() < 0.12:
            tags.append(("ref", f"T-{rng.randrange(1, 2000)}"))
        if hw in ("path", "footway", "steps") and rng.random() < 0.5:
            tags.append(("sac_scale", pick(rng, SAC)))
        if hw in ("path", "track", "cycleway") and rng.random() < 0.2:
            tags.append(("mtb:scale", pick(rng, MTB)))
        for use, p in (("foot", 0.35), ("bicycle", 0.3), ("horse", 0.25), ("motor_vehicle", 0.05), ("ski", 0.02)):
            if rng.random() < p:
                tags.append((use, pick(rng, ACCESS)))
        if rng.random() < 0.5:
            tags.append(("surface", pick(rng, SURFACE)))
        nds = "".join(f'<nd ref="{r}"/>' for r in refs)
        tg = "".join(f"<tag k={quoteattr(k)} v={quoteattr(v)}/>" for k, v in tags)
        write(f'<way id="{i}" version="1">{nds}{tg}</way>\n')
    write("</osm>\n")
    with open(points_path, "w") as f:
        for _ in range(n_points):
            lon, lat = rng.choice(coords)
            f.write(f"{lon:.6f} {lat:.6f}\n")


def empty_bundle(path):
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE metadata (name TEXT, value TEXT);
        CREATE TABLE tiles (zoom_level INTEGER, tile_column INTEGER, tile_row INTEGER, tile_data BLOB);
        CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row);
        INSERT INTO metadata VALUES ('name', 'trails-data bench'), ('format', 'png');
    """)
    db.commit()
    db.close()


# The benchmark's filter on the tags, as TrailFieldMapping.osm reads them: difficulty easy or
# moderate (sac_scale first, then mtb:scale), foot allowed (its tag, or implied by footway and
# steps unless the tag forbids it), horse not allowed (likewise with bridleway).
ALLOWED = "('yes','designated','permissive','official')"
FORBIDDEN = "('no','private')"
FILTER = f"""
  (coalesce(l.sac_scale, '') IN ('hiking','mountain_hiking')
   OR (coalesce(l.sac_scale, '') NOT IN ('hiking','mountain_hiking','demanding_mountain_hiking','alpine_hiking',
        'demanding_alpine_hiking','difficult_alpine_hiking')
       AND coalesce(l.mtb_scale, '') IN ('0-','0','0+','1-','1','1+','2-','2','2+')))
  AND (coalesce(l.foot, '') IN {ALLOWED}
       OR (l.highway IN ('footway','steps') AND coalesce(l.foot, '') NOT IN {FORBIDDEN}))
  AND NOT (coalesce(l.horse, '') IN {ALLOWED}
           OR (l.highway = 'bridleway' AND coalesce(l.horse, '') NOT IN {FORBIDDEN}))
  AND l.highway IN ('path','footway','track','bridleway','cycleway','steps')
"""


def boxes(lon, lat, r):
    # The same box around the point as TrailMap's SearchArea (no antimeridian here).
    d_lat = r / 110.5 * 1.01
    widest = math.radians(max(abs(lat - d_lat), abs(lat + d_lat)))
    d_lon = r / (111.32 * math.cos(widest)) * 1.01
    return (lon - d_lon, lon + d_lon, lat - d_lat, lat + d_lat)


def gpkg_search(gpkg, points_path, n, warmup, radius, out_prefix):
    points = [tuple(map(float, line.split())) for line in open(points_path) if line.strip()]
    db = sqlite3.connect(":memory:")
    db.enable_load_extension(True)
    db.load_extension("mod_spatialite")
    db.execute("SELECT InitSpatialMetadata(1, 'WGS84_ONLY')")  # spatial_ref_sys for 4326's ellipsoid
    db.execute(f"ATTACH DATABASE '{gpkg}' AS g")
    box_sql = "r.minx <= :e AND r.maxx >= :w AND r.miny <= :n AND r.maxy >= :s"
    plain = f"""SELECT l.fid, l.osm_id, l.name, l.highway, l.sac_scale, l.surface FROM g.rtree_lines_geom r
                JOIN g.lines l ON l.fid = r.id WHERE {box_sql} AND {FILTER}"""
    exact = f"""SELECT count(*) OVER () AS total, fid, osm_id, name, d FROM (
                  SELECT l.fid, l.osm_id, l.name,
                         ST_Distance(MakePoint(:lon, :lat, 4326), SetSRID(GeomFromGPB(l.geom), 4326), 1) AS d
                  FROM g.rtree_lines_geom r JOIN g.lines l ON l.fid = r.id WHERE {box_sql} AND {FILTER})
                WHERE d <= :m ORDER BY d, fid LIMIT 20"""

    def params(i):
        lon, lat = points[i % len(points)]
        w, e, s, nn = boxes(lon, lat, radius)
        return {"lon": lon, "lat": lat, "w": w, "e": e, "s": s, "n": nn, "m": radius * 1000}

    for name, sql in (("rtree+filter", plain), ("rtree+filter+distance", exact)):
        for i in range(warmup):
            db.execute(sql, params(i)).fetchall()
        times, lines, hits = [], [], 0
        for i in range(n):
            p = params(warmup + i)
            t0 = time.perf_counter()
            rows = db.execute(sql, p).fetchall()
            times.append((time.perf_counter() - t0) * 1000)
            if name == "rtree+filter":
                hits += len(rows)
                lines.append(f"{len(rows)}")
            else:
                total = rows[0][0] if rows else 0
                hits += total
                lines.append(f"{total} {rows[0][4]:.1f}" if rows else "0 -")
        with open(f"{out_prefix}-{name}.txt", "w") as f:
            f.write("\n".join(lines) + "\n")
        times.sort()

        def pct(q):
            return times[min(len(times) - 1, math.ceil(q / 100 * len(times)) - 1)]
        print(f"{name}: queries {n}, radius {radius:.1f} km, mean hits {hits / n:.1f}, p50 {pct(50):.3f} ms, "
              f"p95 {pct(95):.3f} ms, p99 {pct(99):.3f} ms, max {times[-1]:.3f} ms, mean {sum(times) / n:.3f} ms")


def sizes(paths):
    for path in paths:
        db = sqlite3.connect(path)
        total = db.execute("SELECT page_count * page_size FROM pragma_page_count, pragma_page_size").fetchone()[0]
        rows = db.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
        print(f"{path}: {total} bytes; " + ", ".join(f"{n} {b}" for n, b in rows if b >= 16384))
        db.close()


def main():
    cmd = sys.argv[1]
    if cmd == "generate":
        generate(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5]))
    elif cmd == "empty-bundle":
        empty_bundle(sys.argv[2])
    elif cmd == "gpkg-search":
        gpkg_search(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]), float(sys.argv[6]), sys.argv[7])
    elif cmd == "sizes":
        sizes(sys.argv[2:])
    else:
        sys.exit(f"unknown command {cmd}")


if __name__ == "__main__":
    main()
