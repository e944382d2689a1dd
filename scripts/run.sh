#!/usr/bin/env bash
# The main job on the embedded sample: builds the sample bundles into Tiles/ (once; PNG + world
# file sources, a UTM GeoTIFF, Colorado from a manifest with levels of detail, a hillshade and
# terrain tiles from a synthetic DEM), verifies
# them, publishes Catalog/products.json into Catalog/catalog.sqlite, creates a sandbox store in
# Catalog/sandbox (once), then serves Tiles/ with the store API and prints the URL (Ctrl-C stops).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product trailmap
bin=.build/release/trailmap
build() { # OUT NAME MINZOOM MAXZOOM SOURCES...
  local out=$1 name=$2 lo=$3 hi=$4; shift 4
  [ -f "$out" ] && return 0
  local args=(); for s in "$@"; do args+=(--source "$s"); done
  # WebP q90 (README: Tile formats).
  $bin build "${args[@]}" --name "$name" --minzoom "$lo" --maxzoom "$hi" --out "$out" --format webp --quality 90 \
    --attribution "$( [[ $name == World* ]] && echo 'Natural Earth (public domain)' || echo 'NASA Blue Marble (public domain)')"
}
build Tiles/world.mbtiles "World base map" 0 4 Tiles/sources/world.png
# Two map series and vector trails from a build manifest: relief at zooms 3-5, imagery at 6-8, trails
# (scripts/make-sample-trail-lines.py) drawn over both and stored in the bundle for search.
[ -f Tiles/colorado.mbtiles ] || $bin build --manifest Tiles/colorado.json --out Tiles/colorado.mbtiles
build Tiles/utah.mbtiles "Utah" 3 8 Tiles/sources/utah.png
# A map sheet in UTM zone 13N with a nodata collar (scripts/make-sample-geotiff.sh), read through GDAL.
build Tiles/front-range.mbtiles "Front Range map sheet" 5 10 Tiles/sources/rocky-utm.tif
# Terrain from a synthetic DEM (scripts/make-sample-dem.sh): shaded relief computed at each zoom's own
# resolution with the sample trails drawn over it (each trail over the DEM stores its ascent and
# grades: trail searches near Estes Park answer them), and terrain tiles (Terrarium, for MapLibre's
# raster-dem source), each a bundle of its own.
[ -f Tiles/sources/rocky-dem.tif ] || scripts/make-sample-dem.sh Tiles/sources/rocky-dem.tif
[ -f Tiles/rocky-relief.mbtiles ] || $bin build --dem Tiles/sources/rocky-dem.tif --hillshade --hillshade-mode multidirectional \
  --trails Tiles/sources/colorado-trails.geojson --trails-preset osm \
  --name "Rocky Mountain relief" --minzoom 8 --maxzoom 12 --out Tiles/rocky-relief.mbtiles --attribution "Synthetic relief (TrailMap sample)"
[ -f Tiles/rocky-terrain.mbtiles ] || $bin build --dem Tiles/sources/rocky-dem.tif --format terrarium \
  --name "Rocky Mountain terrain" --minzoom 8 --maxzoom 12 --out Tiles/rocky-terrain.mbtiles --attribution "Synthetic relief (TrailMap sample)"
[ -f Tiles/rocky-mountain.mbtiles ] || $bin bundle extract Tiles/colorado.mbtiles \
  --bbox -105.95,40.13,-105.49,40.56 --out Tiles/rocky-mountain.mbtiles
for b in world colorado utah rocky-mountain front-range rocky-relief rocky-terrain; do $bin bundle verify "Tiles/$b.mbtiles"; done
# SAMPLES_ONLY=1: stop here (scripts/replicas.sh builds the samples this way, then serves them its way).
[ "${SAMPLES_ONLY:-0}" = 1 ] && exit 0
$bin catalog publish --products Catalog/products.json --tiles Tiles --catalog Catalog/catalog.sqlite
# Place names for trail searches (GET /api/v1/trails?near=Estes%20Park): GeoNames text format.
$bin catalog places load Tiles/sources/colorado-places.txt --tiles Tiles
[ -f Catalog/sandbox/store.json ] || $bin store sandbox init Catalog/sandbox --bundle-id com.trailmap.app
echo "Store page: http://127.0.0.1:${PORT:-8080}/store  ·  API: http://127.0.0.1:${PORT:-8080}/api/v1/openapi.json"
exec $bin serve --tiles Tiles --host 127.0.0.1 --port "${PORT:-8080}" --log-level "${LOG_LEVEL:-notice}" \
  --catalog Catalog/catalog.sqlite --store-sandbox Catalog/sandbox
