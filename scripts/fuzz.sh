#!/usr/bin/env bash
# Fuzzes TrailMap's parsers with libFuzzer for a bounded time (not part of CI's test run):
#   png        the PNG decoder (Sources/CPNG) under ASan + UBSan: PNG bytes as given and with fixed
#              CRCs, and PNGs the harness makes from a recipe, checked against its own reference
#              decoder (scripts/fuzz/png_decode_fuzz.c)
#   fast-path  the tile request parsing of the event-loop fast path (TileRequestParsing.swift)
#              under ASan, its results checked against reference implementations
#   raw-request  TileWire's parsing of whole requests from raw bytes (RawTileRequest.swift), its
#              results checked against its contract (re-parsing, prefixes)
# usage: scripts/fuzz.sh [SECONDS per harness, default 60]
# Environment: OUT (default: a temp dir) keeps the binaries, corpora and any crashing input;
# LIBPNG_SRC, a libpng source tree (e.g. a checkout of the version the system has), is compiled
# into the PNG harness with coverage instrumentation instead of linking the system libpng16,
# whose code libFuzzer cannot see (only cpng's and the harness's branches guide it then).
# Seeds: PNGs of every colour type, depth and interlacing made by Pillow, and recipes.
# Prints executions and coverage; exits non-zero on a finding, naming the crashing input.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER=${1:-60}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
scripts/install-deps.sh libpng-dev zlib1g-dev
python3 -c 'import PIL' 2>/dev/null || python3 -m pip install --quiet --user Pillow 2>/dev/null ||
  python3 -m pip install --quiet --user --break-system-packages Pillow
CC=${CC:-clang}
findings=0

# Runs one harness ($1: its name, then the command) for SECONDS_PER seconds; its whole log stays
# in $OUT/NAME.log. A crash, a failed invariant, a leak, a timeout or going over the memory limit
# is a finding.
fuzz() {
  local name=$1 status
  shift
  echo "== fuzzing $name for ${SECONDS_PER}s (log: $OUT/$name.log)"
  set +e
  "$@" -max_total_time="$SECONDS_PER" -timeout=10 -rss_limit_mb=2048 -artifact_prefix="$OUT/$name-" \
    -print_final_stats=1 >"$OUT/$name.log" 2>&1
  status=$?
  set -e
  grep -E "^#[0-9]+[[:space:]]+DONE|^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)" "$OUT/$name.log" || true
  if [ "$status" -ne 0 ]; then
    findings=1
    grep -E "invariant failed|Fatal error|ERROR: |SUMMARY: |Test unit written" "$OUT/$name.log" | head -20
    echo "!! $name: FINDING (exit $status); reproduce with: $1 CRASH_FILE"
  fi
}

# ---- the PNG decoder
mkdir -p "$OUT/png-corpus" "$OUT/png-seeds"
python3 - "$OUT/png-seeds" <<'PY'
import sys, random
from PIL import Image
out = sys.argv[1]
random.seed(1)
def noise(mode, size):
    im = Image.new(mode, size)
    bands = len(mode) if mode not in ("P", "1", "I;16") else 1
    im.putdata([tuple(random.randrange(256) for _ in range(bands)) if bands > 1 else random.randrange(256)
                for _ in range(size[0] * size[1])])
    return im
for i, (mode, size) in enumerate([("RGBA", (16, 16)), ("RGB", (13, 7)), ("L", (9, 9)), ("LA", (8, 5)),
                                  ("P", (12, 12)), ("1", (17, 3))]):
    im = noise(mode, size)
    im.save(f"{out}/seed{i}.png")
    im.save(f"{out}/seed{i}-interlaced.png", interlace=1)
Image.new("I;16", (6, 6)).save(f"{out}/seed-16bit.png")
p = Image.new("P", (8, 8)); p.putpalette([0, 0, 0, 255, 0, 0]); p.info["transparency"] = 0; p.save(f"{out}/seed-trns.png")
# Recipes (png_decode_fuzz.c, build_png): colour type, depth, flags (interlace, tRNS, zlib level),
# width - 1, height - 1, palette size - 1; the harness fills in the rest.
for color in range(5):
    for depth in range(5):
        for flags in (0x18, 0x19, 0x1a, 0x1b):
            open(f"{out}/recipe-{color}-{depth}-{flags:02x}", "wb").write(bytes([color, depth, flags, 12, 6, 9]))
PY
png_libs=(-lpng16)
png_include=()
if [ -n "${LIBPNG_SRC:-}" ]; then
  echo "compiling libpng from $LIBPNG_SRC with coverage instrumentation"
  mkdir -p "$OUT/libpng"
  [ -f "$LIBPNG_SRC/pnglibconf.h" ] || cp "$LIBPNG_SRC/scripts/pnglibconf.h.prebuilt" "$OUT/libpng/pnglibconf.h"
  png_libs=()
  for f in png pngerror pngget pngmem pngpread pngread pngrio pngrtran pngrutil pngset pngtrans pngwio pngwrite pngwtran pngwutil; do
    $CC -g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -I"$OUT/libpng" -I"$LIBPNG_SRC" \
      -c "$LIBPNG_SRC/$f.c" -o "$OUT/libpng/$f.o"
    png_libs+=("$OUT/libpng/$f.o")
  done
  png_include=(-I"$OUT/libpng" -I"$LIBPNG_SRC")
fi
$CC -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined "${png_include[@]}" -ISources/CPNG/include \
  -ISources/CPNG -fuse-ld=lld scripts/fuzz/png_decode_fuzz.c Sources/CPNG/cpng.c Sources/CPNG/cpng_read.c \
  "${png_libs[@]}" -lz -lm -lpthread -o "$OUT/png_decode_fuzz"
fuzz png "$OUT/png_decode_fuzz" "$OUT/png-corpus" "$OUT/png-seeds" -dict=scripts/fuzz/png.dict

# ---- the fast path's request parsing
swiftc -O -sanitize=fuzzer,address -parse-as-library -use-ld=lld scripts/fuzz/fast_path_fuzz.swift \
  Sources/TrailMapServer/TileRequestParsing.swift -o "$OUT/fast_path_fuzz"
mkdir -p "$OUT/path-corpus" "$OUT/path-seeds"
printf '/tiles/world/3/2/1.png' > "$OUT/path-seeds/a"
printf '/tiles/co%%2Dx/10/512/300.webp?token=abc' > "$OUT/path-seeds/b"
printf 'W/"0123456789abcdef0123456789abcdef", *' > "$OUT/path-seeds/c"
SWIFT_BACKTRACE=enable=no fuzz fast-path "$OUT/fast_path_fuzz" "$OUT/path-corpus" "$OUT/path-seeds"

# ---- TileWire's request parsing, from raw bytes
swiftc -O -sanitize=fuzzer,address -parse-as-library -use-ld=lld scripts/fuzz/raw_request_fuzz.swift \
  Sources/TrailMapServer/RawTileRequest.swift -o "$OUT/raw_request_fuzz"
mkdir -p "$OUT/raw-corpus" "$OUT/raw-seeds"
printf 'GET /tiles/world/3/2/1.png HTTP/1.1\r\nHost: x\r\nIf-None-Match: "ab"\r\n\r\n' > "$OUT/raw-seeds/a"
printf 'HEAD /tiles/co/1/0/0.webp?t=1 HTTP/1.0\r\nConnection: keep-alive\r\nX-Client: me\r\n\r\nGET /' > "$OUT/raw-seeds/b"
SWIFT_BACKTRACE=enable=no fuzz raw-request "$OUT/raw_request_fuzz" "$OUT/raw-corpus" "$OUT/raw-seeds"

artifacts=$(ls -d "$OUT"/png-* "$OUT"/fast-path-* "$OUT"/raw-request-* 2>/dev/null | grep -E -- "-(crash|leak|oom|timeout)-" || true)
if [ -n "$artifacts" ] || [ "$findings" -ne 0 ]; then
  echo "FINDINGS; inputs:"
  echo "${artifacts:-  (none written: see the logs in $OUT)}"
  exit 1
fi
echo "no findings (corpora in $OUT)"
