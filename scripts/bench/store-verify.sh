#!/usr/bin/env bash
# Verified App Store transactions per second: with the verified-chain cache (as Apple's App Store
# Server Library caches chains) against the reference, the same verifier validating the whole
# X.509 chain on every call. Prints per-round figures and the median ratio, and writes the median
# into docs/benchmarks.md (RECORD=0 leaves it as it is).
# Usage: scripts/bench/store-verify.sh [SECONDS_PER_RUN] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
swift build -c release --product store-verify-bench >&2
out=$("$(swift build -c release --show-bin-path)/store-verify-bench" "${1:-3}" "${2:-3}")
echo "$out"
median=$(grep '^median:' <<<"$out" | sed 's/^median: //')
python3 scripts/bench/record-figures.py store-verify.sh "${2:-3} rounds of ${1:-3} s, medians: $median"
