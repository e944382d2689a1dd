#!/usr/bin/env bash
# Benchmark of the terrain layer (docs/terrain.md), on one DEM, in one run:
#  1. speed: `trailmap build --dem DEM --hillshade` zooms MINZ-MAXZ against `gdaldem hillshade` of
#     the DEM (a tiled GeoTIFF, gdal2tiles' natural input) followed by `gdal2tiles.py` of the shaded raster (the same zooms, -r average, as many
#     processes as trailmap threads);
#  2. hillshade fidelity: PSNR of both tile sets against the reference for each sampled tile:
#     `gdalwarp -r average` of the DEM straight to the tile (EPSG:3857, one pixel of border; at
#     zooms finer than the DEM's native one `-r bilinear`, as average there repeats DEM pixels in
#     steps that the hillshade would draw), then
#     `gdaldem hillshade -s cos(latitude) -compute_edges` (gdaldem multiplies the pixel size by -s:
#     a Web Mercator metre is cos(latitude) metres on the ground), border cut off;
#  3. terrain tiles: `trailmap build --dem DEM --format terrarium` at the DEM's native zoom (the one
#     trailmap chooses: pixels not finer than the DEM's), decoded, RMSE against `gdalwarp -r
#     bilinear` of the DEM to the same tiles.
#
# usage: scripts/bench/terrain.sh [DEM]    (default: the sample DEM, made by scripts/make-sample-dem.sh)
# env:   MINZ, MAXZ   hillshade zooms (default 8-12)
#        THREADS      trailmap --threads = gdal2tiles --processes (default 2)
#        SAMPLES      tiles sampled per zoom for the fidelity figures (default 4)
#        ROUNDS       timed rounds of the two tools, back to back (default 1)
#        TRAILMAP     trailmap binary (default .build/release/trailmap, else .build/debug/trailmap)
#        WORK         scratch folder (default: mktemp -d, removed at exit)
# Keep it small on a shared machine: the defaults run in well under a minute on the sample DEM.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# The run itself goes through a second copy of this script, its output kept; this copy then writes
# the figures into docs/benchmarks.md (scripts/bench/record-figures.py; RECORD=0: not written).
if [ -z "${TERRAIN_BENCH_LOG:-}" ]; then
  export TERRAIN_BENCH_LOG
  TERRAIN_BENCH_LOG=$(mktemp)
  trap 'rm -f "$TERRAIN_BENCH_LOG"' EXIT
  "$0" "$@" | tee "$TERRAIN_BENCH_LOG"
  log=$TERRAIN_BENCH_LOG
  rounds=$(grep -oE 'ratio [0-9.]+x wall, [0-9.]+x CPU' "$log" | sed 's/ratio //' | paste -sd ';' | sed 's/;/; /g')
  psnr=$(grep -oE 'trailmap mean [0-9.]+ dB \(min [0-9.]+\), gdaldem\+gdal2tiles mean [0-9.]+ dB' "$log" | head -n 1)
  rmse=$(grep -oE 'RMSE [0-9.]+ m' "$log" | head -n 1)
  dem=$(head -n 1 "$log" | sed -E 's/^DEM ([^,]*),.*/\1/')
  "$ROOT/scripts/bench/record-figures.py" terrain.sh "DEM $(basename "$dem"), zooms ${MINZ:-8}-${MAXZ:-12}, ${THREADS:-2} threads, $(grep -c '^round ' "$log") round(s), trailmap against gdaldem + gdal2tiles, per round: **$rounds**; hillshade PSNR against gdaldem on each tile's warped DEM: $psnr; terrarium $rmse at the native zoom. Per-zoom figures and earlier runs: [notes/terrain-measurements.md](notes/terrain-measurements.md)"
  exit 0
fi
"$ROOT/scripts/install-deps.sh" gdal-bin python3 sqlite3 >/dev/null
MINZ=${MINZ:-8} MAXZ=${MAXZ:-12} THREADS=${THREADS:-2} SAMPLES=${SAMPLES:-4} ROUNDS=${ROUNDS:-1}
TRAILMAP=${TRAILMAP:-}
[ -n "$TRAILMAP" ] || { [ -x "$ROOT/.build/release/trailmap" ] && TRAILMAP="$ROOT/.build/release/trailmap" || TRAILMAP="$ROOT/.build/debug/trailmap"; }
[ -x "$TRAILMAP" ] || { echo "error: no trailmap binary at $TRAILMAP (swift build -c release --product trailmap)" >&2; exit 1; }
if [ -z "${WORK:-}" ]; then WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT; fi
mkdir -p "$WORK"
DEM=${1:-"$WORK/dem.tif"}
[ -f "$DEM" ] || "$ROOT/scripts/make-sample-dem.sh" "$DEM" >/dev/null
echo "DEM $DEM, zooms $MINZ-$MAXZ, $THREADS thread(s), trailmap $TRAILMAP"

# Timed with GNU time: wall seconds and CPU (user + sys, the children's too), ROUNDS times, the two
# tools back to back in each round (the machine's load moves both alike); the load average first.
timed() { /usr/bin/time -f "%e %U %S" -o "$WORK/time" "$@"; read -r wall user sys <"$WORK/time"; echo "$wall $(python3 -c "print($user + $sys)")"; }
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
# A DEM in degrees: gdaldem's documented scale for degrees against metres (`-s 111120`), without
# which its slopes are nearly flat.
GDALDEM_SCALE=""
if gdalsrsinfo -o proj4 "$DEM" 2>/dev/null | grep -q "+proj=longlat"; then GDALDEM_SCALE="-s 111120"; echo "geographic DEM: gdaldem -s 111120"; fi
for round in $(seq "$ROUNDS"); do
  rm -rf "$WORK/hs.mbtiles" "$WORK/hs.tif" "$WORK/g2t"
  # The DEM, and both tools' programs and libraries, read into the page cache first (this
  # machine's kernel reclaims cold pages: a cold start of trailmap spent over a second loading
  # GDAL's libraries from disk), so that neither tool pays for the disk.
  cat "$DEM" >/dev/null
  "$TRAILMAP" --help >/dev/null
  gdalinfo --version >/dev/null
  gdal2tiles.py --help >/dev/null 2>&1 || true
  read -r ours ours_cpu < <(timed "$TRAILMAP" build --dem "$DEM" --hillshade --name bench --minzoom "$MINZ" --maxzoom "$MAXZ" \
    --threads "$THREADS" --out "$WORK/hs.mbtiles" -q)
  # gdaldem writes a tiled GeoTIFF (gdal2tiles reads it by blocks), then gdal2tiles cuts it.
  read -r dem_wall dem_cpu < <(timed gdaldem hillshade -q -compute_edges $GDALDEM_SCALE -co TILED=YES "$DEM" "$WORK/hs.tif")
  read -r g2t_wall g2t_cpu < <(timed gdal2tiles.py -q -z "$MINZ-$MAXZ" -r average --processes="$THREADS" "$WORK/hs.tif" "$WORK/g2t")
  python3 - "$round" "$ours" "$ours_cpu" "$dem_wall" "$dem_cpu" "$g2t_wall" "$g2t_cpu" <<'PY'
import sys
r = sys.argv[1]; ours, ours_cpu, dw, dc, gw, gc = map(float, sys.argv[2:])
ref, ref_cpu = dw + gw, dc + gc
print(f"round {r}: hillshade bundle: trailmap {ours:.2f} s (CPU {ours_cpu:.2f} s); gdaldem + gdal2tiles {ref:.2f} s "
      f"(CPU {ref_cpu:.2f} s); ratio {ours / ref:.2f}x wall, {ours_cpu / ref_cpu:.2f}x CPU")
PY
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

"$TRAILMAP" build --dem "$DEM" --format terrarium --name bench --threads "$THREADS" --out "$WORK/terrain.mbtiles" -q

python3 - "$WORK" "$DEM" "$MINZ" "$MAXZ" "$SAMPLES" <<'PY'
import math, os, random, sqlite3, subprocess, sys
work, dem, minz, maxz, samples = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
R = 6378137.0; O = math.pi * R
def run(*a): subprocess.run(a, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
def grid(path, band=1):
    """One band of a raster as a flat list of numbers, through gdal_translate's ASCII grid."""
    asc = path + f".b{band}.asc"
    args = ["gdal_translate", "-q", "-of", "AAIGrid", "-b", str(band)]
    if ".png" in path:  # a tile (or its expanded colours) without georeference: north up, or the grid is written flipped
        args += ["-a_ullr", "0", "256", "256", "0"]
    run(*args, path, asc)
    vals = []
    for line in open(asc):
        if line[:1].isalpha(): continue
        vals += [float(v) for v in line.split()]
    return vals
def rgba(png):
    """A tile's four channels, whatever the PNG stores: palette (expanded), grey, grey + alpha,
    RGB or RGBA (an opaque tile's encoder drops its alpha, a grey one's colours)."""
    tif = png + ".rgba.tif"
    if subprocess.run(["gdal_translate", "-q", "-expand", "rgba", png, tif], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode != 0:
        tif = png
    info = subprocess.run(["gdalinfo", tif], check=True, capture_output=True, text=True).stdout
    count = sum(1 for line in info.splitlines() if line.startswith("Band "))
    bands = [grid(tif, k) for k in range(1, count + 1)]
    if count <= 2: bands = [bands[0]] * 3 + bands[1:]   # grey: R = G = B
    if len(bands) == 3: bands.append([255.0] * len(bands[0]))  # opaque
    return bands
def bounds(z, x, y):
    s = 2 * O / (1 << z); return (-O + x * s, O - (y + 1) * s, -O + (x + 1) * s, O - y * s)
def tile_png(db, z, x, y, out):
    row = sqlite3.connect(db).execute("select tile_data from tiles where zoom_level=? and tile_column=? and tile_row=?",
                                      (z, x, (1 << z) - 1 - y)).fetchone()
    if row is None: return None
    open(out, "wb").write(row[0]); return out
def psnr(a, b, mask):
    se = [(p - q) ** 2 for p, q, m in zip(a, b, mask) if m]
    if not se: return None
    mse = sum(se) / len(se); return 99.0 if mse == 0 else 10 * math.log10(255 * 255 / mse)
random.seed(1)
db = f"{work}/terrain.mbtiles"
# The DEM's native zoom: the highest whose pixels are not finer than the DEM's (trailmap's choice).
zn = int(sqlite3.connect(db).execute("select value from metadata where name='maxzoom'").fetchone()[0])
ours_all, g2t_all, per_zoom = [], [], {}
for z in range(minz, maxz + 1):
    tiles = [(z, c, (1 << z) - 1 - r) for c, r in sqlite3.connect(f"{work}/hs.mbtiles").execute(
        "select tile_column, tile_row from tiles where zoom_level=?", (z,))]
    for (z, x, y) in random.sample(tiles, min(samples, len(tiles))):
        b = bounds(z, x, y); px = (b[2] - b[0]) / 256
        ref = f"{work}/ref-{z}-{x}-{y}"
        run("gdalwarp", "-q", "-overwrite", "-t_srs", "EPSG:3857", "-te", str(b[0] - px), str(b[1] - px), str(b[2] + px), str(b[3] + px),
            "-ts", "258", "258", "-r", "average" if z <= zn else "bilinear", "-dstnodata", "-9999", "-ot", "Float32", dem, ref + "-dem.tif")
        lat = math.degrees(2 * math.atan(math.exp((b[1] + b[3]) / 2 / R)) - math.pi / 2)
        run("gdaldem", "hillshade", "-q", "-compute_edges", "-s", str(math.cos(math.radians(lat))), ref + "-dem.tif", ref + "-hs.tif")
        run("gdal_translate", "-q", "-srcwin", "1", "1", "256", "256", ref + "-hs.tif", ref + ".tif")
        theirs = grid(ref + ".tif")
        ours_png = tile_png(f"{work}/hs.mbtiles", z, x, y, ref + "-ours.png")
        channels = rgba(ours_png)
        ours, ours_a = channels[0], channels[3]
        g = f"{work}/g2t/{z}/{x}/{(1 << z) - 1 - y}.png"
        mask = [t != 0 and a > 0 for t, a in zip(theirs, ours_a)]
        p = psnr(ours, theirs, mask)
        if p is not None: ours_all.append(p); per_zoom.setdefault(z, []).append(p)
        if os.path.exists(g):
            gv, ga = grid(g, 1), grid(g, 2)
            q = psnr(gv, theirs, [t != 0 and a > 0 for t, a in zip(theirs, ga)])
            if q is not None: g2t_all.append(q)
        print(f"  z{z} {x}/{y}: trailmap {p if p is None else round(p, 1)} dB, gdaldem+gdal2tiles "
              f"{'-' if not os.path.exists(g) else (None if q is None else round(q, 1))} dB")
def mean(v): return sum(v) / len(v) if v else float("nan")
for z in sorted(per_zoom):
    v = per_zoom[z]
    print(f"  z{z}: trailmap PSNR mean {mean(v):.1f} dB, min {min(v):.1f} dB over {len(v)} tiles")
print(f"terrain native zoom {zn}: reference -r average at zooms up to it, bilinear above")
print(f"hillshade PSNR against gdaldem on each tile's warped DEM: trailmap mean {mean(ours_all):.1f} dB "
      f"(min {min(ours_all, default=float('nan')):.1f}), gdaldem+gdal2tiles mean {mean(g2t_all):.1f} dB "
      f"(min {min(g2t_all, default=float('nan')):.1f})")
tiles = [(zn, c, (1 << zn) - 1 - r) for c, r in sqlite3.connect(db).execute("select tile_column, tile_row from tiles where zoom_level=?", (zn,))]
se, n = 0.0, 0
for (z, x, y) in random.sample(tiles, min(samples, len(tiles))):
    b = bounds(z, x, y); ref = f"{work}/tref-{z}-{x}-{y}.tif"
    run("gdalwarp", "-q", "-overwrite", "-t_srs", "EPSG:3857", "-te", *map(str, b), "-ts", "256", "256", "-r", "bilinear",
        "-dstnodata", "-9999", "-ot", "Float32", dem, ref)
    theirs = grid(ref)
    png = tile_png(db, z, x, y, ref + ".png")
    if png is None: continue
    r_, g_, b_, a_ = rgba(png)
    for t, r, g, bl, a in zip(theirs, r_, g_, b_, a_):
        if t == -9999 or a == 0: continue
        e = r * 256 + g + bl / 256 - 32768
        se += (e - t) ** 2; n += 1
print(f"terrain tiles (terrarium) at the native zoom {zn}: RMSE {math.sqrt(se / max(n, 1)):.3f} m over {n} pixels "
      f"against gdalwarp -r bilinear")
PY
