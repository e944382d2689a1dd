#!/usr/bin/env bash
# Trails as data, speed and size (issue 37): TrailMap's ingest, search and bundle tables against
# named references on the same generated OpenStreetMap network (WAYS trail ways, seeded, over
# Colorado's extent; written as OSM XML and turned into .osm.pbf by osmium).
#   ingest: trails-data-bench ingest (GDAL's OSM driver, the OSM preset, TrailStoreWriter: trails,
#           R*Tree, FTS5) against `ogr2ogr -f GPKG` of the lines layer (GDAL's OSM driver, GPKG
#           with its R*Tree) and `osmium export` to GeoJSON lines (no index, no database).
#   search: N radius + filter searches (10 km, easy or moderate, foot, not horse, 20 results)
#           around the same points, in-process, against Python's sqlite3 on the GeoPackage
#           ogr2ogr wrote (tags as columns): its R*Tree + the attribute filter, and the same with
#           SpatiaLite's geodesic distance, sorted, first 20.
#   size:   the bundle's bytes minus an empty bundle's, against the GeoPackage files.
#   experiment: our ingest with the trails handed to the writer in id order (--sort-by-id).
# Every step is bounded by `timeout`. Usage: scripts/bench/trails-data.sh [WAYS] [QUERIES] [RUNS] [WORK_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/install-deps.sh gdal-bin osmium-tool sqlite3 libsqlite3-mod-spatialite
ways="${1:-100000}"
queries="${2:-1000}"
runs="${3:-1}"
work="${4:-$(mktemp -d)}"
warmup=50
limit=900 # seconds, each step
mkdir -p "$work"
py=/usr/bin/python3 # Debian's: its sqlite3 loads extensions (SpatiaLite)
helper=scripts/bench/trails_data.py
swift build -c release --product trails-data-bench >&2
bin="$(swift build -c release --show-bin-path)/trails-data-bench"
# Reference settings: one transaction, no fsync, the OSM driver's node index in memory.
gdal_opts=(-gt unlimited --config OSM_MAX_TMPFILE_SIZE 4096 --config OGR_SQLITE_SYNCHRONOUS OFF)

echo "## machine: $(nproc) cores, $(sed -nE 's/^model name\s*: //p' /proc/cpuinfo | head -1), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "## generating $ways ways"
timeout "$limit" "$py" "$helper" generate "$ways" 37 "$work/points.txt" $((queries + warmup)) \
  | timeout "$limit" osmium cat -F osm -o "$work/trails.osm.pbf" -O -
osmium fileinfo -e "$work/trails.osm.pbf" | grep -E "Number of (nodes|ways)" | sed 's/^ */   /'
# The lines layer with the tags the search filters on as columns (for the search reference).
sed -E '/^\[lines\]/,/^\[/ s/^attributes=.*/attributes=name,highway,ref,surface,sac_scale,mtb:scale,foot,bicycle,horse,motor_vehicle,ski/' \
  /usr/share/gdal/osmconf.ini > "$work/tags.ini"
"$py" "$helper" empty-bundle "$work/empty.mbtiles"

timed() { # NAME COMMAND...: wall, user+sys, peak RSS (MB) into $work/NAME.time
  local name=$1; shift
  rm -f "$work/$name.time"
  /usr/bin/time -f "%e %U %S %M" -o "$work/$name.time.raw" timeout "$limit" "$@" > "$work/$name.log" 2>&1
  awk '{printf "%.3f %.3f %.0f\n", $1, $2 + $3, $4 / 1024}' "$work/$name.time.raw" > "$work/$name.time"
}
best() { sort -n "$work/$1".all | head -1; } # fastest run: wall cpu peak

: > "$work/ours.all"; : > "$work/sorted.all"; : > "$work/gpkg.all"; : > "$work/gpkg-tags.all"; : > "$work/osmium.all"
for run in $(seq "$runs"); do
  echo "## ingest, run $run"
  cp "$work/empty.mbtiles" "$work/ours.mbtiles"
  timed ours "$bin" ingest "$work/trails.osm.pbf" "$work/ours.mbtiles"
  grep '^ingest:' "$work/ours.log"; cat "$work/ours.time" >> "$work/ours.all"
  # Experiment: the same trails handed to the writer in id order (the table's B-tree order).
  cp "$work/empty.mbtiles" "$work/sorted.mbtiles"
  timed sorted "$bin" ingest "$work/trails.osm.pbf" "$work/sorted.mbtiles" --sort-by-id
  grep '^ingest:' "$work/sorted.log" | sed 's/^ingest:/ingest in id order:/'; cat "$work/sorted.time" >> "$work/sorted.all"
  rm -f "$work/default.gpkg" "$work/ref.gpkg" "$work/osmium.geojsonseq"
  timed gpkg ogr2ogr -f GPKG "${gdal_opts[@]}" "$work/default.gpkg" "$work/trails.osm.pbf" lines
  cat "$work/gpkg.time" >> "$work/gpkg.all"
  timed gpkg-tags ogr2ogr -f GPKG "${gdal_opts[@]}" --config OSM_CONFIG_FILE "$work/tags.ini" "$work/ref.gpkg" "$work/trails.osm.pbf" lines
  cat "$work/gpkg-tags.time" >> "$work/gpkg-tags.all"
  timed osmium osmium export -f geojsonseq --geometry-types=linestring -O -o "$work/osmium.geojsonseq" "$work/trails.osm.pbf"
  cat "$work/osmium.time" >> "$work/osmium.all"
  echo "   ours $(cat "$work/ours.time"); ogr2ogr $(cat "$work/gpkg.time"); ogr2ogr tags $(cat "$work/gpkg-tags.time"); osmium $(cat "$work/osmium.time") (wall s, cpu s, peak MB)"
done
trails=$(sed -nE 's/.* trails ([0-9]+),.*/\1/p' "$work/ours.log")
gpkg_rows=$(sqlite3 "$work/ref.gpkg" "SELECT count(*) FROM lines")
osmium_rows=$(wc -l < "$work/osmium.geojsonseq")
echo "   rows: ours $trails trails, GeoPackage $gpkg_rows lines, osmium $osmium_rows lines"

echo "## search, $queries queries after $warmup"
: > "$work/search-ours.all"; : > "$work/search-ref.all"
for run in $(seq "$runs"); do
  timeout "$limit" "$bin" search "$work/ours.mbtiles" "$queries" --points "$work/points.txt" --warmup "$warmup" \
    --out "$work/ours-search.txt" | tee -a "$work/search-ours.all"
  timeout "$limit" "$py" "$helper" gpkg-search "$work/ref.gpkg" "$work/points.txt" "$queries" "$warmup" 10 "$work/ref" \
    | tee -a "$work/search-ref.all"
done
same=$(paste -d' ' "$work/ours-search.txt" "$work/ref-rtree+filter+distance.txt" | awk '$1 == $3 {n++} END {print n + 0}')
echo "   same total as SpatiaLite's in $same of $queries queries"

echo "## size"
"$py" "$helper" sizes "$work/ours.mbtiles" "$work/default.gpkg" "$work/ref.gpkg"
empty=$(stat -c %s "$work/empty.mbtiles")
ours_bytes=$(( $(stat -c %s "$work/ours.mbtiles") - empty ))
sorted_bytes=$(( $(stat -c %s "$work/sorted.mbtiles") - empty ))
gpkg_bytes=$(stat -c %s "$work/default.gpkg")
tags_bytes=$(stat -c %s "$work/ref.gpkg")
osmium_bytes=$(stat -c %s "$work/osmium.geojsonseq")
pbf_bytes=$(stat -c %s "$work/trails.osm.pbf")

pctl() { sed -nE "s/^$1:.* $2 ([0-9.]+) ms.*/\1/p" "$3" | sort -n | head -1; } # best run's percentile
ratio() { echo "scale=3; $1 / $2" | bc | sed 's/^\./0./'; }
read -r ow oc om <<< "$(best ours)"
read -r dw dc dm <<< "$(best sorted)"
read -r gw gc gm <<< "$(best gpkg)"
read -r tw tc tm <<< "$(best gpkg-tags)"
read -r sw sc sm <<< "$(best osmium)"
o95=$(pctl search p95 "$work/search-ours.all"); o50=$(pctl search p50 "$work/search-ours.all"); o99=$(pctl search p99 "$work/search-ours.all")
a95=$(pctl 'rtree\+filter' p95 "$work/search-ref.all"); a50=$(pctl 'rtree\+filter' p50 "$work/search-ref.all")
b95=$(pctl 'rtree\+filter\+distance' p95 "$work/search-ref.all"); b50=$(pctl 'rtree\+filter\+distance' p50 "$work/search-ref.all")
echo
echo "## results ($ways ways, $trails trails, best of $runs)"
printf "%-58s %14s %14s %10s\n" "measure" "TrailMap" "reference" "ratio"
printf "%-58s %14s %14s %10s\n" "ingest wall s vs ogr2ogr -f GPKG (lines)" "$ow" "$gw" "$(ratio "$ow" "$gw")"
printf "%-58s %14s %14s %10s\n" "ingest cpu s vs ogr2ogr -f GPKG (lines)" "$oc" "$gc" "$(ratio "$oc" "$gc")"
printf "%-58s %14s %14s %10s\n" "ingest wall s vs ogr2ogr, tags as columns" "$ow" "$tw" "$(ratio "$ow" "$tw")"
printf "%-58s %14s %14s %10s\n" "ingest wall s vs osmium export geojsonseq" "$ow" "$sw" "$(ratio "$ow" "$sw")"
printf "%-58s %14s %14s %10s\n" "(experiment) ingest in id order, wall s vs ogr2ogr" "$dw" "$gw" "$(ratio "$dw" "$gw")"
printf "%-58s %14s %14s %10s\n" "ingest peak MB vs ogr2ogr / osmium" "$om" "$gm / $sm" "$(ratio "$om" "$gm")"
printf "%-58s %14s %14s %10s\n" "search p50 ms vs GPKG R*Tree + filter + SpatiaLite distance" "$o50" "$b50" "$(ratio "$o50" "$b50")"
printf "%-58s %14s %14s %10s\n" "search p95 ms vs GPKG R*Tree + filter + SpatiaLite distance" "$o95" "$b95" "$(ratio "$o95" "$b95")"
printf "%-58s %14s %14s %10s\n" "search p95 ms vs GPKG R*Tree + filter only" "$o95" "$a95" "$(ratio "$o95" "$a95")"
printf "%-58s %14s %14s %10s\n" "search p99 ms" "$o99" "" ""
printf "%-58s %14s %14s %10s\n" "bytes vs ogr2ogr -f GPKG (lines)" "$ours_bytes" "$gpkg_bytes" "$(ratio "$ours_bytes" "$gpkg_bytes")"
printf "%-58s %14s %14s %10s\n" "bytes vs ogr2ogr -f GPKG, tags as columns" "$ours_bytes" "$tags_bytes" "$(ratio "$ours_bytes" "$tags_bytes")"
printf "%-58s %14s %14s %10s\n" "(experiment) bytes in id order vs ogr2ogr -f GPKG" "$sorted_bytes" "$gpkg_bytes" "$(ratio "$sorted_bytes" "$gpkg_bytes")"
printf "%-58s %14s %14s %10s\n" "bytes vs osmium's GeoJSON lines / the .osm.pbf" "$ours_bytes" "$osmium_bytes / $pbf_bytes" "$(ratio "$ours_bytes" "$osmium_bytes")"
echo "targets: search p95 <= 5 ms: $o95 ms; bundle <= 1.5x GPKG: $(ratio "$ours_bytes" "$gpkg_bytes")x; ingest <= 30 s: $ow s"
echo "work: $work"
scripts/bench/record-figures.py trails-data.sh "$ways generated OSM trail ways, best of $runs: ingest $ow s (target 30 s), **$(ratio "$ow" "$gw")x ogr2ogr's time** ($gw s), $(ratio "$ow" "$sw")x osmium's; search p95 $o95 ms (target 5 ms), **$(ratio "$o95" "$b95")x SpatiaLite's** p95 ($b95 ms), $(ratio "$o95" "$a95")x the bare R*Tree + filter; tables **$(ratio "$ours_bytes" "$gpkg_bytes")x the GeoPackage's bytes**. Details: [trails.md](trails.md#benchmarks-speed-and-size-issue-37)"
