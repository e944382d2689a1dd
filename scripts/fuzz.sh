#!/usr/bin/env bash
# Fuzzes TrailMap's parsers with libFuzzer for a bounded time (not part of CI's test run):
#   png        the PNG decoder (Sources/CPNG) under ASan + UBSan
#   fast-path  the tile request parsing of the event-loop fast path (TileRequestParsing.swift)
#              under ASan, its results checked against reference implementations
# usage: scripts/fuzz.sh [SECONDS per harness, default 60]
# Seeds: PNGs of every colour type, depth and interlacing made by Pillow. Prints executions and
# coverage; exits non-zero on a finding, leaving the crashing input in $OUT (default: a temp dir).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER=${1:-60}
OUT=${OUT:-$(mktemp -d)}
scripts/install-deps.sh libpng-dev zlib1g-dev
python3 -c 'import PIL' 2>/dev/null || python3 -m pip install --quiet --user Pillow 2>/dev/null ||
  python3 -m pip install --quiet --user --break-system-packages Pillow
CC=${CC:-clang}
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
PY
$CC -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -ISources/CPNG/include -ISources/CPNG \
  -fuse-ld=lld scripts/fuzz/png_decode_fuzz.c Sources/CPNG/cpng.c Sources/CPNG/cpng_read.c -lpng16 -lz -lm -lpthread \
  -o "$OUT/png_decode_fuzz"
echo "fuzzing the PNG decoder for ${SECONDS_PER}s (artifacts in $OUT)" >&2
set +e
"$OUT/png_decode_fuzz" "$OUT/png-corpus" "$OUT/png-seeds" -max_total_time="$SECONDS_PER" -rss_limit_mb=2048 \
  -artifact_prefix="$OUT/png-" -print_final_stats=1 2>&1 | grep -E "^#|stat::|ERROR|SUMMARY|Done" | tail -12
status=${PIPESTATUS[0]}
set -e
[ "$status" -eq 0 ] || exit "$status"

swiftc -O -sanitize=fuzzer,address -parse-as-library scripts/fuzz/fast_path_fuzz.swift \
  Sources/TrailMapServer/TileRequestParsing.swift -o "$OUT/fast_path_fuzz"
mkdir -p "$OUT/path-corpus" "$OUT/path-seeds"
printf '/tiles/world/3/2/1.png' > "$OUT/path-seeds/a"
printf '/tiles/co%%2Dx/10/512/300.webp?token=abc' > "$OUT/path-seeds/b"
printf 'W/"0123456789abcdef0123456789abcdef", *' > "$OUT/path-seeds/c"
echo "fuzzing the fast path's request parsing for ${SECONDS_PER}s" >&2
set +e
SWIFT_BACKTRACE=enable=no "$OUT/fast_path_fuzz" "$OUT/path-corpus" "$OUT/path-seeds" -max_total_time="$SECONDS_PER" -rss_limit_mb=2048 \
  -artifact_prefix="$OUT/path-" -print_final_stats=1 2>&1 | grep -E "^#|stat::|ERROR|SUMMARY|Fatal|Done" | tail -12
status=${PIPESTATUS[0]}
set -e
ls "$OUT"/png-crash-* "$OUT"/path-crash-* "$OUT"/*-leak-* "$OUT"/*-oom-* "$OUT"/*-timeout-* 2>/dev/null && exit 1
exit "$status"
