#!/usr/bin/env python3
"""Re-creates the Colorado sample's trail lines and place list (made-up trails, real town names):

- Tiles/sources/colorado-trails.geojson: OpenStreetMap-tagged LineStrings in EPSG:4326
  (`highway`, `name`, `ref`, `sac_scale`, `mtb:scale`, `foot`, `bicycle`, `horse`,
  `motor_vehicle`, `surface`, `osm_id`), as `trailmap build --trails` reads them with its OSM
  preset. Some trails come in two or three segments of one name that meet end to end.
- Tiles/sources/colorado-places.txt: the towns in GeoNames' tab-separated text format.

Trails start near towns in the mountains and wander uphill-ish as smoothed random walks, a few
hundred metres a step. Seeded, standard library only: the same bytes on every run.

usage: make-sample-trail-lines.py [OUT_DIR [TRAILS]]   (benchmarks make bigger networks)
"""
import json, math, os, random, sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tiles", "sources")
count = int(sys.argv[2]) if len(sys.argv) > 2 else 160
rng = random.Random(20261126)

# Real towns (rounded coordinates); the trails start around the mountain ones.
TOWNS = [
    ("Estes Park", 40.3772, -105.5217, 5904), ("Boulder", 40.0150, -105.2705, 105673), ("Leadville", 39.2508, -106.2925, 2602),
    ("Aspen", 39.1911, -106.8175, 7004), ("Ouray", 38.0228, -107.6714, 898), ("Telluride", 37.9375, -107.8123, 2607),
    ("Durango", 37.2753, -107.8801, 19071), ("Breckenridge", 39.4817, -106.0384, 5078), ("Salida", 38.5347, -105.9989, 5882),
    ("Crested Butte", 38.8697, -106.9878, 1639), ("Steamboat Springs", 40.4850, -106.8317, 13214),
    ("Glenwood Springs", 39.5505, -107.3248, 9963), ("Fort Collins", 40.5853, -105.0844, 169810),
    ("Colorado Springs", 38.8339, -104.8214, 478961), ("Denver", 39.7392, -104.9903, 715522), ("Silverton", 37.8119, -107.6645, 622),
    ("Buena Vista", 38.8422, -106.1311, 2855), ("Nederland", 39.9614, -105.5108, 1471), ("Lake City", 38.0300, -107.3153, 432),
    ("Pagosa Springs", 37.2694, -107.0098, 1571), ("Grand Lake", 40.2522, -105.8228, 471), ("Georgetown", 39.7061, -105.6975, 1118),
]
MOUNTAIN = [t for t in TOWNS if t[2] < -105.2]

FEATURES = ["Bear Lake", "Elk Meadow", "Crater Lake", "Lost Creek", "Eagle Peak", "Hidden Valley", "Aspen Grove", "Silver Basin",
            "Columbine", "Blue Lake", "Red Mountain", "Cathedral", "Piñon Ridge", "Cañon Creek", "Timberline", "Moose Pond",
            "Ice Lake", "Wildflower", "Granite Pass", "Beaver Pond", "Hermit Park", "Chasm Falls", "Pika Ridge", "Ptarmigan",
            "Sky Pond", "Lulu City", "Bierstadt", "Ouzel Falls", "Marmot Pass", "Lupine", "Snowmass", "Fourmile", "Rabbit Ears",
            "Crystal Mill", "Devil's Causeway", "Mayflower Gulch", "Hanging Lake", "Booth Falls", "Missouri Lakes", "Lake Agnes"]
KINDS = ["Trail", "Trail", "Trail", "Loop", "Cutoff", "Connector", "Path"]
# (highway, sac_scale or None, mtb:scale or None, tags)
STYLES = [
    ("path", "hiking", None, {"foot": "designated", "bicycle": "no", "horse": "no"}),
    ("path", "mountain_hiking", None, {"foot": "designated", "bicycle": "no", "horse": "no"}),
    ("path", "mountain_hiking", "2", {"foot": "yes", "bicycle": "yes", "horse": "yes"}),
    ("path", "demanding_mountain_hiking", None, {"foot": "yes", "bicycle": "no"}),
    ("path", "alpine_hiking", None, {"foot": "yes", "bicycle": "no", "horse": "no"}),
    ("path", "difficult_alpine_hiking", None, {"foot": "yes"}),
    ("footway", None, None, {}),
    ("bridleway", "hiking", None, {"foot": "yes", "horse": "designated", "bicycle": "no"}),
    ("cycleway", None, "1", {"foot": "yes", "bicycle": "designated"}),
    ("track", None, "3", {"motor_vehicle": "no", "bicycle": "yes", "horse": "yes", "foot": "yes"}),
    ("track", None, None, {"motor_vehicle": "yes", "foot": "yes"}),
    ("steps", None, None, {"foot": "yes", "bicycle": "no"}),
]
SURFACES = ["dirt", "gravel", "ground", "rock", "compacted", "grass", None]


def walk(lon, lat, steps):
    """A smoothed random walk from (lon, lat), steps of about 150-300 m."""
    heading, turn, pts = rng.uniform(0, 2 * math.pi), 0.0, [(lon, lat)]
    for _ in range(steps):
        turn = 0.8 * turn + rng.gauss(0, 0.12)
        heading += turn
        step_km = rng.uniform(0.15, 0.3)
        lat += step_km / 111.32 * math.sin(heading)
        lon += step_km / (111.32 * math.cos(math.radians(lat))) * math.cos(heading)
        pts.append((lon, lat))
    return pts


features, used, osm_id = [], set(), 9_000_000_000
for i in range(count):
    town = rng.choice(MOUNTAIN)
    start = (town[2] + rng.uniform(-0.25, 0.25), town[1] + rng.uniform(-0.2, 0.2))
    name = None
    if rng.random() < 0.9:
        while name is None or name in used:
            name = f"{rng.choice(FEATURES)} {rng.choice(KINDS)}"
        used.add(name)
    highway, sac, mtb, uses = rng.choice(STYLES)
    ref = f"{rng.randint(1, 999)}" if rng.random() < 0.3 else None
    surface = rng.choice(SURFACES)
    pts = walk(*start, rng.randint(12, 120))
    # A third of the named trails come as two or three segments that meet end to end.
    pieces = [pts]
    if name and rng.random() < 0.33 and len(pts) > 30:
        cut = sorted(rng.sample(range(8, len(pts) - 8), rng.randint(1, 2)))
        pieces = [pts[a:b + 1] for a, b in zip([0] + cut, cut + [len(pts) - 1])]
    for piece in pieces:
        osm_id += rng.randint(1, 5000)
        # Every tag is a column, null where a line lacks it, as ogr2ogr writes an OSM extract.
        tags = {k: None for k in ("name", "ref", "highway", "sac_scale", "mtb:scale", "surface", "foot", "bicycle", "horse",
                                  "motor_vehicle", "ski")}
        tags.update({"osm_id": str(osm_id), "highway": highway})
        if name: tags["name"] = name
        if ref: tags["ref"] = ref
        if sac: tags["sac_scale"] = sac
        if mtb: tags["mtb:scale"] = mtb
        if surface: tags["surface"] = surface
        tags.update(uses)
        features.append({"type": "Feature", "properties": tags,
                         "geometry": {"type": "LineString", "coordinates": [[round(x, 5), round(y, 5)] for x, y in piece]}})

os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "colorado-trails.geojson"), "w", encoding="utf-8") as f:
    json.dump({"type": "FeatureCollection", "name": "colorado-trails",
               "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:OGC:1.3:CRS84"}},
               "features": features}, f, ensure_ascii=False, separators=(",", ":"))
    f.write("\n")
with open(os.path.join(out, "colorado-places.txt"), "w", encoding="utf-8") as f:
    for n, (name, lat, lon, pop) in enumerate(TOWNS):
        ascii_name = name
        row = [str(5_400_000 + n), name, ascii_name, "", f"{lat:.4f}", f"{lon:.4f}", "P", "PPL", "US", "", "CO", "", "", "",
               str(pop), "", "", "America/Denver", "2026-11-26"]
        f.write("\t".join(row) + "\n")
print(f"wrote colorado-trails.geojson ({len(features)} lines, {len(used)} named trails) and colorado-places.txt ({len(TOWNS)} places)")
