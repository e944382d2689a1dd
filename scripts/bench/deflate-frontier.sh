#!/usr/bin/env bash
# Size/time frontier of deflate parsers on a bundle's tile streams (Benchmarks/deflate-frontier/frontier.c).
# usage: scripts/bench/deflate-frontier.sh BUNDLE.mbtiles [COUNT]
# Prints, per setting, libdeflate level 8 and 10 and the cost-driven parse: bytes, ratio to
# level 8 and seconds (single thread, same run). Needs gcc, libdeflate-dev, python3.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../Benchmarks/deflate-frontier" && pwd)
[[ $# -ge 1 && -f $1 ]] || { echo "usage: $0 BUNDLE.mbtiles [COUNT]" >&2; exit 2; }
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
gcc -O2 -Wall "$HERE/frontier.c" -o "$WORK/frontier" -ldeflate -lm
python3 "$HERE/dump_streams.py" "$1" "$WORK/streams" "${2:-200}"
for kind in truecolour palette; do
  for setting in "32 128 1" "16 64 2" "-16 64 2" "-32 64 1" "-32 128 2" "-64 258 2"; do
    read -r depth nice passes <<<"$setting"
    what=$([[ $depth -lt 0 ]] && echo "binary tree depth ${depth#-}" || echo "hash chain depth $depth")
    printf '%-10s %-24s nice %-3s passes %s: ' "$kind" "$what" "$nice" "$passes"
    "$WORK/frontier" "$depth" "$nice" "$passes" "$WORK"/streams/*_"$kind".bin
  done
done
