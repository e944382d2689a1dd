#!/usr/bin/env bash
# Elevation profiles (issue 38): a 1,000-sample profile's time on the server (POST /api/v1/profile
# over HTTP on a real socket, curl's total time) and on the device (profile-bench: TerrainSampler
# over the bundle, in-process), p50/p95 over RUNS; and the profile's ascent against the same line
# sampled by GDAL from the source DEM at the same spacing (DEMSampler: bilinear on the DEM in its
# own CRS). The DEM is a synthetic mountain range (sum of cones) in UTM 32N made by gdal_translate;
# the terrain bundle is made from it by gdalwarp (bilinear, Float32) onto the tiles' grid, Terrarium.
# Usage: scripts/bench/profile.sh [SIZE_PX] [RUNS] [WORK_DIR]   (CONFIG=debug to skip a release build;
# RECORD=0 to leave docs/benchmarks.md as it is)
set -euo pipefail
cd "$(dirname "$0")/../.."
size="${1:-2000}"
runs="${2:-200}"
work="${3:-$(mktemp -d)}"
config="${CONFIG:-release}"
mkdir -p "$work/tiles"
swift build -c "$config" --product profile-bench >&2
swift build -c "$config" --product trailmap >&2
bin="$(swift build -c "$config" --show-bin-path)"

# The DEM: 20 m pixels, several cones on a tilted plane.
python3 - "$size" "$work/dem.asc" <<'PY'
import math, sys
n, out = int(sys.argv[1]), sys.argv[2]
west, north, px = 480000.0, 5120000.0, 20.0
peaks = [(0.3, 0.3, 1400, 0.35), (0.7, 0.4, 1100, 0.25), (0.5, 0.75, 1700, 0.4), (0.2, 0.8, 900, 0.2)]
with open(out, "w") as f:
    f.write(f"ncols {n}\nnrows {n}\nxllcorner {west}\nyllcorner {north - n * px}\ncellsize {px}\nNODATA_value -9999\n")
    for r in range(n):
        y = (r + 0.5) / n
        row = []
        for c in range(n):
            x = (c + 0.5) / n
            h = 400 + 300 * y
            for (cx, cy, height, slope) in peaks:
                d = math.hypot(x - cx, y - cy) * n * px
                h = max(h, 400 + height - d * slope)
            row.append(f"{h:.2f}")
        f.write(" ".join(row) + "\n")
PY
gdal_translate -q -a_srs EPSG:32632 -ot Float32 "$work/dem.asc" "$work/dem.tif"
bounds=$(gdalinfo -json "$work/dem.tif" | python3 -c '
import json, sys
w = json.load(sys.stdin)["wgs84Extent"]["coordinates"][0]
lons = [p[0] for p in w]; lats = [p[1] for p in w]
print(max(min(lons), -180) + 0.001, min(lats) + 0.001, max(lons) - 0.001, max(lats) - 0.001)')
read -r W S E N <<<"$bounds"
"$bin/profile-bench" make "$work/dem.tif" "$W" "$S" "$E" "$N" 14 "$work/tiles/terrain.mbtiles"

echo "== device"
device=$("$bin/profile-bench" run "$work/dem.tif" "$work/tiles/terrain.mbtiles" "$W" "$S" "$E" "$N" "$runs")
echo "$device"

echo "== server"
cat > "$work/products.json" <<'JSON'
{"products": [{"productId": "terrain", "title": "Terrain", "category": "Terrain",
  "price": {"amount": "0", "currency": "USD"}, "bundle": "terrain.mbtiles"}]}
JSON
"$bin/trailmap" catalog publish --products "$work/products.json" --tiles "$work/tiles" --catalog "$work/catalog.sqlite" >/dev/null
"$bin/trailmap" store sandbox init "$work/sandbox" --bundle-id com.trailmap.bench >/dev/null
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$bin/trailmap" serve --tiles "$work/tiles" --port "$port" --catalog "$work/catalog.sqlite" --store-sandbox "$work/sandbox" --log-level error &
server=$!
trap 'kill $server 2>/dev/null; wait 2>/dev/null || true' EXIT
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.1; done
# The same zig-zag line as the device's first run, with the spacing that gives 1,000 samples.
python3 - "$W" "$S" "$E" "$N" "$work/line.json" <<'PY'
import json, sys
w, s, e, n = map(float, sys.argv[1:5])
pts = [[w + (e - w) * (0.2 if i % 2 == 0 else 0.8), s + (n - s) * (0.15 + 0.7 * i / 11)] for i in range(12)]
json.dump({"type": "LineString", "coordinates": pts}, open(sys.argv[5], "w"))
PY
spacing=$(python3 - "$W" "$S" "$E" "$N" <<'PY'
import math, sys
w, s, e, n = map(float, sys.argv[1:5])
pts = [[w + (e - w) * (0.2 if i % 2 == 0 else 0.8), s + (n - s) * (0.15 + 0.7 * i / 11)] for i in range(12)]
def hav(a, b):
    r = 6371008.8
    p1, p2 = math.radians(a[1]), math.radians(b[1])
    h = math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(math.radians(b[0] - a[0]) / 2) ** 2
    return 2 * r * math.asin(min(1, math.sqrt(h)))
print(sum(hav(a, b) for a, b in zip(pts, pts[1:])) / 999)
PY
)
url="http://127.0.0.1:$port/api/v1/profile?spacingM=$spacing"
curl -sf -X POST -H 'Content-Type: application/json' --data @"$work/line.json" "$url" |
  python3 -c 'import json,sys; p=json.load(sys.stdin); print("server ascent %.1f m, %d samples" % (p["ascentM"], len(p["samples"])))'
server=$(for _ in $(seq "$runs"); do
  curl -s -o /dev/null -w '%{time_total}\n' -X POST -H 'Content-Type: application/json' --data @"$work/line.json" "$url"
done | python3 -c '
import sys
t = sorted(float(x) * 1000 for x in sys.stdin)
print("server profile (1000 samples, HTTP): p50 %.2f ms, p95 %.2f ms over %d requests" % (t[len(t) // 2], t[min(len(t) - 1, int(len(t) * 0.95))], len(t)))')
echo "$server"

# The row of docs/benchmarks.md (RECORD=0 skips it).
figures=$(DEVICE="$device" SERVER="$server" SIZE="$size" python3 -c '
import os, re
d, s = os.environ["DEVICE"], os.environ["SERVER"]
dev = re.search(r"p50 ([0-9.]+) ms, p95 ([0-9.]+) ms over (\d+) runs", d)
srv = re.search(r"p50 ([0-9.]+) ms, p95 ([0-9.]+) ms over (\d+) requests", s)
asc = re.search(r"worst of 5 lines: ([0-9.]+) %", d)
n = os.environ["SIZE"]
print(f"{n}x{n} px DEM, 1,000-sample profiles: device p50 {dev[1]} ms, p95 **{dev[2]} ms** over {dev[3]} runs; "
      f"server (HTTP) p50 {srv[1]} ms, p95 **{srv[2]} ms** over {srv[3]} requests; ascent {asc[1]}% off GDAL (worst of 5 lines)")')
python3 scripts/bench/record-figures.py profile.sh "$figures"
