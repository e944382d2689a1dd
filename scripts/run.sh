#!/usr/bin/env bash
# The main job on the embedded sample: builds the sample bundles into Tiles/, verifies them,
# then serves Tiles/ and prints the viewer's URL (Ctrl-C stops the server).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release --product trailmap
bin=.build/release/trailmap
$bin build --source Tiles/sources/world.png --name "World base map" --minzoom 0 --maxzoom 4 \
  --out Tiles/world.mbtiles --attribution "Natural Earth (public domain)" \
  --description "Free low-detail base map"
$bin build --source Tiles/sources/utah.png --source Tiles/sources/colorado.png --name "Colorado and Utah" \
  --minzoom 3 --maxzoom 8 --out Tiles/colorado.mbtiles --attribution "NASA Blue Marble (public domain)"
$bin bundle verify Tiles/world.mbtiles
$bin bundle verify Tiles/colorado.mbtiles
exec $bin serve --tiles Tiles --host 127.0.0.1 --port "${PORT:-8080}" --log-level "${LOG_LEVEL:-notice}"
