#!/usr/bin/env bash
# Areas on demand, measured: three area products (caps 2, 10 and 50 MB) over one large region
# bundle. For each cap, an account asks for the area around the bundle's centre at every zoom
# with a radius too large (422 area_too_large gives the largest radius that fits), quotes that
# radius (the area bundle is cut then), buys it with a sandbox Consumable and downloads it.
# Prints per cap: the area's size and zooms, the time to quote (the cut), the time from purchase
# to downloadable (POST /areas answered until the download's first byte) and the download time,
# and checks that the download is the quoted size and SHA-256.
#
# usage: scripts/bench/areas.sh
# env:   BUNDLE    a large bundle (default: the UTM mosaic built at zooms 6-14, ~50,000 tiles)
#        DATA, TRAILMAP, WORK   as in scripts/lib/mosaic-bench.sh
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$ROOT/scripts/lib/mosaic-bench.sh"
T=$TRAILMAP
mkdir -p "$WORK/tiles"
if [ -n "${BUNDLE:-}" ]; then
  ln -sf "$(realpath "$BUNDLE")" "$WORK/tiles/region.mbtiles"
else
  echo "== building the region: 8 UTM sheets, zooms 6-14"
  "$T" build --source "$WORK/sheets" --name Region --minzoom 6 --maxzoom 14 --out "$WORK/tiles/region.mbtiles" --quiet
fi
cat >"$WORK/products.json" <<JSON
{"products": [
 {"productId": "region", "title": "Region", "category": "Bench", "price": {"amount": "4.99", "currency": "USD"}, "bundle": "region.mbtiles"},
 {"productId": "area-2", "title": "Area 2 MB", "category": "Areas", "price": {"amount": "0.49", "currency": "USD"},
  "area": {"maxBytes": 2000000, "from": ["region.mbtiles"]}},
 {"productId": "area-10", "title": "Area 10 MB", "category": "Areas", "price": {"amount": "0.99", "currency": "USD"},
  "area": {"maxBytes": 10000000, "from": ["region.mbtiles"]}},
 {"productId": "area-50", "title": "Area 50 MB", "category": "Areas", "price": {"amount": "2.99", "currency": "USD"},
  "area": {"maxBytes": 50000000, "from": ["region.mbtiles"]}}]}
JSON
serve_store
read -r w s e n < <(sqlite3 "$WORK/tiles/region.mbtiles" "SELECT value FROM metadata WHERE name = 'bounds'" | tr ',' ' ')
top=$(sqlite3 "$WORK/tiles/region.mbtiles" "SELECT MAX(zoom_level) FROM map")
echo "== areas around the centre of $(du -m "$(realpath "$WORK/tiles/region.mbtiles")" | cut -f1) MB of region, zooms up to $top"
URL=$url W=$w S=$s E=$e N=$n TOP=$top python3 - <<'PY'
import hashlib, json, os, time, urllib.request, urllib.error
url = os.environ["URL"]
lon = (float(os.environ["W"]) + float(os.environ["E"])) / 2
lat = (float(os.environ["S"]) + float(os.environ["N"])) / 2
top = int(os.environ["TOP"])

def call(method, path, body=None, token=None, raw=False):
    req = urllib.request.Request(url + path, method=method, data=None if body is None else json.dumps(body).encode())
    req.add_header("Content-Type", "application/json")
    if token: req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=600) as r:
            data = r.read()
            return r.status, (data if raw else json.loads(data or b"{}"))
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")

creds = {"email": "bench@example.com", "password": "correct-horse-battery"}
call("POST", "/api/v1/accounts", creds)
token = call("POST", "/api/v1/sessions", creds)[1]["token"]
print(f"  {'cap':>6} {'radius':>9} {'zooms':>6} {'size':>12} {'tiles':>7} {'quote (cut)':>12} {'purchase->downloadable':>23} {'download':>9}")
for cap in (2, 10, 50):
    product = f"area-{cap}"
    status, refused = call("POST", "/api/v1/areas/quotes", {"center": [lon, lat], "radiusKm": 150, "maxzoom": top, "productId": product}, token)
    radius = refused["error"]["largestRadiusKm"] if status == 422 else 150
    t0 = time.perf_counter()
    status, q = call("POST", "/api/v1/areas/quotes", {"center": [lon, lat], "radiusKm": radius, "maxzoom": top, "productId": product}, token)
    t1 = time.perf_counter()
    assert status == 201, (status, q)
    jws = call("POST", "/api/v1/sandbox/transactions", {"productId": product}, token)[1]["signedTransaction"]
    t2 = time.perf_counter()
    status, area = call("POST", "/api/v1/areas", {"quoteId": q["quoteId"], "signedTransaction": jws}, token)
    assert status == 201, (status, area)
    req = urllib.request.Request(url + area["downloadURL"], headers={"Authorization": "Bearer " + token})
    with urllib.request.urlopen(req, timeout=600) as r:
        first = r.read(1)
        t3 = time.perf_counter()
        body = first + r.read()
    t4 = time.perf_counter()
    assert len(body) == q["size"] == area["size"], (len(body), q["size"])
    assert hashlib.sha256(body).hexdigest() == area["sha256"]
    print(f"  {cap:>4}MB {radius:>7.1f}km {q['minzoom']:>2}-{q['maxzoom']:<3} {q['size']:>12,} {q['tiles']:>7,} {t1 - t0:>11.2f}s "
          f"{(t3 - t2) * 1000:>20.1f} ms {t4 - t3:>8.2f}s")
print("  each download is the quoted size and SHA-256")
PY
