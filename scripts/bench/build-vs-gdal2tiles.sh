#!/usr/bin/env bash
# Benchmark `trailmap build` against `gdal2tiles.py`, each on its natural input, same zoom range,
# same number of threads/processes, same resampling (average), in the same run.
#
# usage: scripts/bench/build-vs-gdal2tiles.sh
# env:   CASES     comma-separated, of: single, mosaic, files (default: single,mosaic)
#        RUNS      timed runs per tool and case, interleaved gdal2tiles/trailmap (default 1)
#        THREADS   threads (trailmap --threads) = processes (gdal2tiles --processes) (default 2)
#        SINGLE_ZOOM  zoom range of the single case (default 0-7)
#        MOSAIC_ZOOM  zoom range of the mosaic case (default 6-11)
#        TRAILMAP  trailmap binary; `skip` runs the gdal2tiles half only; unset: built with
#                  swift build -c release --scratch-path .build-bench (never .build/)
#        DATA      folder of inputs made by scripts/bench/make-utm-mosaic.sh (made there if
#                  missing, ~30 s; default $WORK/data). Reuse one across runs: DATA=/tmp/tm-bench
#        WORK      scratch dir (default: mktemp -d, removed at exit)
#        FILES     for CASES=files (your own data): space-separated raster paths (no spaces in
#                  them). trailmap gets them as --source each; gdal2tiles gets one file as it is,
#                  several in one CRS as a gdalbuildvrt mosaic, several in different CRSs as a
#                  gdalbuildvrt mosaic of per-file warped VRTs in EPSG:3857 (gdalwarp -of VRT
#                  -dstalpha -r VRT_RESAMPLING; default near, as gdal2tiles warps a file itself)
#        FILES_ZOOM  zoom range of the files case (required with it), e.g. 8-14
#        REF_TILES  top-zoom tiles on which both tools are also compared with `gdalwarp -r average`
#                  of the sources to the tile (scripts/bench/reference_psnr.py; default 6, 0: off)
#
# Cases (inputs: see the header of make-utm-mosaic.sh):
#   single  one tiled DEFLATE GeoTIFF with overviews, the conterminous US in EPSG:5070 Albers at
#           1000 m (4700x3000 px). Both tools read the .tif. gdal2tiles wraps it in its own warped
#           VRT to EPSG:3857 (nearest-neighbour, then -r average over 4x-oversized reads).
#   mosaic  8 UTM map sheets (1x1 degree quads, 4 in zone 12N, 4 in zone 13N, 50 m px, nodata /
#           alpha / mask collars, DEFLATE/LZW/JPEG). trailmap gets the sheets
#           (--source each, in name order; `--source DIR` is equivalent); gdal2tiles gets
#           mosaic.vrt: gdalbuildvrt over one lazy warped VRT per sheet in EPSG:3857 (bilinear,
#           dstalpha), because gdalbuildvrt refuses sources in two CRSs. Same sheet order, later
#           sheets over earlier ones where their ~1.5 px overlaps meet.
#   gdal2tiles: gdal2tiles.py --xyz --processes=THREADS -r average -z MIN-MAX -x -w none -n -q IN OUT
#     (-x: no fully transparent tiles, as trailmap; -w none -n: no viewer, no KML).
#   trailmap:   trailmap build --source ... --minzoom --maxzoom --resampling average
#     --threads THREADS --quiet --out OUT.mbtiles
#
# What differs in the work done, so read the figures with it in mind: gdal2tiles writes one PNG
# file per tile into a Z/X/Y folder tree (no MBTiles, no SQLite, no transaction, no rename),
# always RGBA PNGs from GDAL's PNG driver (zlib level 6), every tile even when identical to
# another; it renders the base zoom from the source and each lower zoom by decoding and
# averaging the 4 child PNG tiles it wrote back from disk. trailmap writes one MBTiles (SQLite)
# with identical tiles stored once, chooses the PNG colour type per tile, stores each resampled
# colour value rounded up or down, whichever its PNG filter predicts better (within one level of
# the exact mean where gdal2tiles rounds to nearest; --rounding nearest to compare that too),
# renders the top zoom from the sources (using their overviews) and each lower zoom as the 2x2
# alpha-weighted mean of the zoom below, in memory. Inputs are read once before the timed runs (warm page cache for
# both). gdal2tiles' memory figures include GDAL's block cache, by default 5% of RAM per process.
#
# Prints per case: each run's times and peak memory, the time ratio (best-of-RUNS of each tool;
# also the min..max of the per-run ratios), bytes ratio (all tile PNGs, duplicates counted each
# time; trailmap's deduplicated bytes and bundle size shown too), PSNR of trailmap against
# gdal2tiles over the tiles both made (compare_tiles.py; also over the pixels opaque in both,
# as gdal2tiles darkens partly transparent edge pixels by averaging in transparent black),
# peak RSS of trailmap (/usr/bin/time %M) and of gdal2tiles (%M: its largest single process;
# and the sampled peak of the summed PSS of its whole process tree, main process + workers),
# tile counts; targets with PASS/FAIL:
# time ratio gdal2tiles/trailmap >= 2x, bytes trailmap/gdal2tiles <= 0.8x, PSNR >= 35 dB,
# trailmap peak RSS <= 256 MB. Exits non-zero only when something fails to run: benchmarks
# inform, they don't gate.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CASES=${CASES:-single,mosaic}
RUNS=${RUNS:-1}
THREADS=${THREADS:-2}
REF_TILES=${REF_TILES:-6}
SINGLE_ZOOM=${SINGLE_ZOOM:-0-7}
MOSAIC_ZOOM=${MOSAIC_ZOOM:-6-11}
die() { echo "error: $*" >&2; exit 1; }
run() { echo "+ $*" >&2; "$@"; }
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS=$RUNS is not a positive integer"
for c in ${CASES//,/ }; do [[ $c == single || $c == mosaic || $c == files ]] || die "unknown case '$c' (CASES=single,mosaic,files)"; done
if [[ ,$CASES, == *,files,* ]]; then
  [[ -n ${FILES:-} && ${FILES_ZOOM:-} =~ ^[0-9]+-[0-9]+$ ]] || die "CASES=files needs FILES='a.tif b.tif ...' and FILES_ZOOM=MIN-MAX"
  read -ra FILE_LIST <<<"$FILES"
  for f in "${FILE_LIST[@]}"; do [[ -f $f ]] || die "FILES: $f is not a file"; done
fi

if [[ -n "${WORK:-}" ]]; then mkdir -p "$WORK"; WORK=$(cd "$WORK" && pwd)
else WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT; fi
DATA=${DATA:-$WORK/data}

# --- tools ----------------------------------------------------------------------------------
"$ROOT/scripts/install-deps.sh" gdal-bin python3-gdal python3-numpy python3-pil time \
  || die "installing gdal-bin python3-gdal python3-numpy python3-pil time failed"
PY=/usr/bin/python3   # Debian's python3, where python3-gdal/-numpy/-pil live
command -v gdal2tiles.py >/dev/null || die "gdal2tiles.py not found (apt-get install gdal-bin python3-gdal)"
"$PY" -c 'import numpy, PIL' 2>/dev/null || die "$PY lacks numpy or Pillow (apt-get install python3-numpy python3-pil)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time missing (apt-get install time)"

if [[ -z "${TRAILMAP:-}" ]]; then
  (cd "$ROOT" && run swift build -c release --scratch-path .build-bench --product trailmap >&2) \
    || die "swift build failed (Sources/ mid-edit? TRAILMAP=/path/to/trailmap uses an existing binary)"
  TRAILMAP="$ROOT/.build-bench/release/trailmap"
fi
[[ $TRAILMAP == skip || -x $TRAILMAP ]] || die "TRAILMAP=$TRAILMAP is not an executable (or 'skip')"

# --- inputs ---------------------------------------------------------------------------------
missing_cases=()
[[ ,$CASES, == *,single,* && ! -f $DATA/single/us-albers.tif ]] && missing_cases+=(single)
[[ ,$CASES, == *,mosaic,* && ! -f $DATA/mosaic/mosaic.vrt ]] && missing_cases+=(mosaic)
if ((${#missing_cases[@]})); then
  cs=$(IFS=,; echo "${missing_cases[*]}")
  echo "== making inputs ($cs) in $DATA" >&2
  CASES=$cs run "$ROOT/scripts/bench/make-utm-mosaic.sh" "$DATA" >&2 || die "make-utm-mosaic.sh failed"
fi

# --- measuring ------------------------------------------------------------------------------
# Peak of the summed PSS (proportional set size: shared pages split between sharers) of all
# descendants of a pid, sampled every 0.1 s; prints kB.
cat >"$WORK/pss.py" <<'EOF'
import os, sys, time
root = int(sys.argv[1])
def children(pid):
    out = []
    try:
        for t in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{t}/children") as f:
                out += map(int, f.read().split())
    except OSError:
        pass
    return out
def pss(pid):
    for path, key in ((f"/proc/{pid}/smaps_rollup", "Pss:"), (f"/proc/{pid}/status", "VmRSS:")):
        try:
            with open(path) as f:
                for line in f:
                    if line.startswith(key):
                        return int(line.split()[1])
        except OSError:
            pass
    return 0
peak = 0
while os.path.exists(f"/proc/{root}"):
    todo, total = children(root), 0
    while todo:
        p = todo.pop(); total += pss(p); todo += children(p)
    peak = max(peak, total)
    time.sleep(0.1)
print(peak)
EOF

# timed CMD...: runs CMD under /usr/bin/time; sets SECS, RSS_KB (%M: the child's ru_maxrss, for a
# process that forks workers the max over it and its waited-for descendants, not a sum) and
# PSS_KB (sampled peak of the summed PSS of the whole process tree).
timed() {
  echo "+ $*" >&2
  /usr/bin/time -f '%e %M' -o "$WORK/time.txt" "$@" >"$WORK/out.log" 2>&1 &
  local pid=$! status=0
  "$PY" "$WORK/pss.py" "$pid" >"$WORK/pss.txt" &
  local sampler=$!
  wait "$pid" || status=$?
  wait "$sampler" || true
  ((status == 0)) || { cat "$WORK/out.log" >&2; die "command failed (exit $status): $1"; }
  [[ -s $WORK/out.log ]] && sed 's/^/    | /' "$WORK/out.log" >&2   # warnings, if any
  read -r SECS RSS_KB <"$WORK/time.txt"
  PSS_KB=$(cat "$WORK/pss.txt")
}

py() { "$PY" -c "$1"; }
verdict() { py "print('PASS' if $1 else 'FAIL')"; }
mb() { echo $(($1 / 1024)); }

SUMMARY=()
# bench_case NAME ZOOM GDAL_INPUT TRAILMAP_SOURCE...
bench_case() {
  local name=$1 zoom=$2 gin=$3; shift 3
  local sources=("$@") minz=${zoom%-*} maxz=${zoom#*-}
  local gout="$WORK/gdal-$name" tout="$WORK/trailmap-$name.mbtiles"
  local srcargs=() s
  for s in "${sources[@]}"; do srcargs+=(--source "$s"); done
  cat "${sources[@]}" "$gin" >/dev/null   # warm the page cache for both tools

  local g_secs=() t_secs=() g_rss=0 g_pss=0 t_rss=0 ratios=() i
  for ((i = 1; i <= RUNS; i++)); do
    rm -rf "$gout"
    echo "== $name run $i/$RUNS: gdal2tiles, z$zoom" >&2
    timed gdal2tiles.py --xyz --processes="$THREADS" -r average -z "$zoom" -x -w none -n -q "$gin" "$gout"
    g_secs+=("$SECS"); g_rss=$((RSS_KB > g_rss ? RSS_KB : g_rss)); g_pss=$((PSS_KB > g_pss ? PSS_KB : g_pss))
    local line
    line="run $i: gdal2tiles ${SECS}s (peak RSS $(mb "$RSS_KB") MB, tree PSS $(mb "$PSS_KB") MB)"
    if [[ $TRAILMAP != skip ]]; then
      rm -f "$tout"
      echo "== $name run $i/$RUNS: trailmap, z$zoom" >&2
      timed "$TRAILMAP" build "${srcargs[@]}" --name "bench $name" --minzoom "$minz" --maxzoom "$maxz" \
        --out "$tout" --resampling average --threads "$THREADS" --quiet
      t_secs+=("$SECS"); t_rss=$((RSS_KB > t_rss ? RSS_KB : t_rss))
      ratios+=("$(py "print(f'{${g_secs[-1]} / max($SECS, 0.01):.2f}')")")
      line+="; trailmap ${SECS}s (peak RSS $(mb "$RSS_KB") MB); ratio ${ratios[-1]}x"
    fi
    RUNLINES+=("  $line")
  done

  echo "== $name: comparing tiles" >&2
  local a=$tout; [[ $TRAILMAP == skip ]] && a=$gout   # gdal2tiles alone: count its own tiles
  "$PY" "$ROOT/scripts/bench/compare_tiles.py" "$a" "$gout" >"$WORK/cmp-$name.txt" || die "compare_tiles.py failed"
  declare -A C=()
  local k v
  while IFS='=' read -r k v; do [[ -n $k && $k != *" "* ]] && C[$k]=$v; done < <(grep '^[a-z_]*=' "$WORK/cmp-$name.txt")
  if [[ $TRAILMAP != skip ]] && ((REF_TILES > 0)); then
    echo "== $name: both against gdalwarp -r average, $REF_TILES tiles at z$maxz" >&2
    "$PY" "$ROOT/scripts/bench/reference_psnr.py" "$maxz" "$REF_TILES" "$tout" "$gout" "${sources[@]}" \
      >"$WORK/ref-$name.txt" || die "reference_psnr.py failed"
    while IFS='=' read -r k v; do C[$k]=$v; done < <(grep '^ref_[a-z]*=' "$WORK/ref-$name.txt")
  fi

  local gmin gmax
  gmin=$(py "print(min([${g_secs[*]/%/,}]))"); gmax=$(py "print(max([${g_secs[*]/%/,}]))")
  echo
  echo "### case $name: $CASE_DESC, zoom $zoom, $THREADS threads, $RUNS run(s)"
  printf '%s\n' "${RUNLINES[@]}"
  printf '%-36s %-34s %-10s %s\n' figure value target result
  if [[ $TRAILMAP == skip ]]; then
    printf '%-36s %s\n' "gdal2tiles time (min / max)" "${gmin}s / ${gmax}s"
    printf '%-36s %s\n' "peak RSS gdal2tiles" "$(mb "$g_rss") MB largest process, $(mb "$g_pss") MB tree PSS"
    printf '%-36s %s\n' "gdal2tiles tiles / bytes" "${C[gdal_tiles]} / ${C[gdal_bytes]} B (${C[gdal_unique_tiles]} distinct)"
    grep -v '^[a-z_]*=' "$WORK/cmp-$name.txt" | grep -v '^  A colour types'
    SUMMARY+=("$name: gdal2tiles ${gmin}..${gmax}s, ${C[gdal_tiles]} tiles, ${C[gdal_bytes]} B (trailmap skipped)")
    return
  fi
  local tmin tmax time_ratio rmin rmax bytes_ratio psnr v1 v2 v3 v4
  tmin=$(py "print(min([${t_secs[*]/%/,}]))"); tmax=$(py "print(max([${t_secs[*]/%/,}]))")
  time_ratio=$(py "print(f'{$gmin / max($tmin, 0.01):.2f}')")
  rmin=$(py "print(min([${ratios[*]/%/,}]))"); rmax=$(py "print(max([${ratios[*]/%/,}]))")
  bytes_ratio=$(py "print(f'{${C[trailmap_bytes]} / max(${C[gdal_bytes]}, 1):.3f}')")
  psnr=${C[psnr]}
  v1=$(verdict "$time_ratio >= 2"); v2=$(verdict "$bytes_ratio <= 0.8")
  v3=$(verdict "float('$psnr') >= 35"); v4=$(verdict "$t_rss <= 256 * 1024")
  printf '%-36s %-34s %-10s %s\n' "time ratio (gdal2tiles/trailmap)" \
    "${time_ratio}x (${gmin}s / ${tmin}s)" ">= 2x" "$v1"
  printf '%-36s %s\n' "  per-run ratios min..max" "${rmin}x..${rmax}x (gdal2tiles ${gmin}..${gmax}s, trailmap ${tmin}..${tmax}s)"
  printf '%-36s %-34s %-10s %s\n' "bytes ratio (trailmap/gdal2tiles)" "${bytes_ratio}x" "<= 0.8x" "$v2"
  printf '%-36s %-34s %-10s %s\n' "PSNR trailmap vs gdal2tiles" "$psnr dB" ">= 35 dB" "$v3"
  printf '%-36s %s\n' "  PSNR where both opaque" "${C[psnr_opaque]} dB (edge pixels, partly transparent in either: ${C[edge_pixels]})"
  [[ -n ${C[ref_tiles]:-} ]] && printf '%-36s %s\n' "PSNR against gdalwarp -r average" \
    "trailmap ${C[ref_trailmap]} dB, gdal2tiles ${C[ref_gdal]} dB (${C[ref_tiles]} interior z$maxz tiles)"
  printf '%-36s %-34s %-10s %s\n' "peak RSS trailmap" "$(mb "$t_rss") MB" "<= 256 MB" "$v4"
  printf '%-36s %s\n' "peak RSS gdal2tiles" "$(mb "$g_rss") MB largest process, $(mb "$g_pss") MB tree PSS"
  printf '%-36s %s\n' "tiles trailmap / gdal2tiles / both" \
    "${C[trailmap_tiles]} / ${C[gdal_tiles]} / ${C[common_tiles]} (only trailmap ${C[only_trailmap]}, only gdal2tiles ${C[only_gdal]})"
  printf '%-36s %s\n' "bytes trailmap / gdal2tiles" \
    "${C[trailmap_bytes]} / ${C[gdal_bytes]} (trailmap stored ${C[trailmap_unique_tiles]} distinct tiles, ${C[trailmap_unique_bytes]} B; bundle file $(stat -c %s "$tout") B)"
  grep -v '^[a-z_]*=' "$WORK/cmp-$name.txt"
  local ref=""
  [[ -n ${C[ref_tiles]:-} ]] && ref=" (against gdalwarp -r average: trailmap ${C[ref_trailmap]} dB, gdal2tiles ${C[ref_gdal]} dB)"
  SUMMARY+=("$name: time ${time_ratio}x $v1, bytes ${bytes_ratio}x $v2, PSNR $psnr dB $v3$ref, trailmap RSS $(mb "$t_rss") MB $v4")
}

for c in ${CASES//,/ }; do
  RUNLINES=()
  case $c in
    single)
      CASE_DESC="single GeoTIFF $(basename "$DATA/single/us-albers.tif") ($(gdalinfo "$DATA/single/us-albers.tif" | sed -n 's/^Size is \([0-9]*\), \([0-9]*\)/\1x\2/p') px, EPSG:5070)"
      bench_case single "$SINGLE_ZOOM" "$DATA/single/us-albers.tif" "$DATA/single/us-albers.tif" ;;
    mosaic)
      sheets=("$DATA"/mosaic/sheets/*.tif)
      CASE_DESC="mosaic of ${#sheets[@]} UTM sheets (EPSG:32612/32613) vs mosaic.vrt"
      bench_case mosaic "$MOSAIC_ZOOM" "$DATA/mosaic/mosaic.vrt" "${sheets[@]}" ;;
    files)
      VRT_RESAMPLING=${VRT_RESAMPLING:-near}
      # gdal2tiles refuses paletted input: such files are expanded to RGBA first (VRTs, as its
      # own message advises; the palette's alpha makes a nodata index transparent).
      G_LIST=() i=0 expanded=""
      mkdir -p "$WORK/files-rgba"
      for f in "${FILE_LIST[@]}"; do
        i=$((i + 1))
        if [[ $(gdalinfo "$f") == *"Color Table"* ]]; then
          run gdal_translate -q -of VRT -expand rgba "$f" "$WORK/files-rgba/$(printf %04d $i).vrt" >&2
          G_LIST+=("$WORK/files-rgba/$(printf %04d $i).vrt"); expanded=" (paletted files expanded to RGBA VRTs)"
        else
          G_LIST+=("$f")
        fi
      done
      if ((${#FILE_LIST[@]} == 1)); then
        gin=${G_LIST[0]}; how="the file itself"
      else
        mkdir -p "$WORK/files-3857"
        crss=$(for f in "${FILE_LIST[@]}"; do gdalsrsinfo -o wkt1 --single-line "$f"; done | sort -u | wc -l)
        if ((crss == 1)); then
          run gdalbuildvrt -q -resolution highest "$WORK/files.vrt" "${G_LIST[@]}" >&2
          how="gdalbuildvrt of the files (one CRS)"
        else
          i=0
          for f in "${G_LIST[@]}"; do
            i=$((i + 1))
            run gdalwarp -q -of VRT -t_srs EPSG:3857 -r "$VRT_RESAMPLING" -dstalpha "$f" "$WORK/files-3857/$(printf %04d $i).vrt" >&2
          done
          run gdalbuildvrt -q -resolution highest "$WORK/files.vrt" "$WORK"/files-3857/*.vrt >&2
          how="gdalbuildvrt of per-file warped VRTs in EPSG:3857 ($crss CRSs, -r $VRT_RESAMPLING)"
        fi
        gin=$WORK/files.vrt
      fi
      CASE_DESC="${#FILE_LIST[@]} file(s) of FILES; gdal2tiles reads $how$expanded"
      bench_case files "$FILES_ZOOM" "$gin" "${FILE_LIST[@]}" ;;
  esac
done

echo
echo "### summary"
printf '  %s\n' "${SUMMARY[@]}"
"$ROOT/scripts/bench/record-figures.py" build-vs-gdal2tiles.sh "$(IFS=';'; echo "${SUMMARY[*]}" | sed 's/;/; /g')"
