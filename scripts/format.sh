#!/usr/bin/env bash
# Formats the Swift sources with `swift format` (it ships with the toolchain) and the checked-in
# .swift-format configuration.
#
# usage: scripts/format.sh            reformat Package.swift, Sources/ and Tests/ in place
#        scripts/format.sh --check    change nothing; list what differs and exit 1 if anything does
set -euo pipefail
cd "$(dirname "$0")/.."
files=(Package.swift Sources Tests Benchmarks)
if [[ "${1:-}" == --check ]]; then
  if ! out=$(swift format lint --strict --recursive --parallel "${files[@]}" 2>&1); then
    echo "$out" | head -n 50
    echo "swift format: $(echo "$out" | grep -c ': error:') place(s) differ from .swift-format; run scripts/format.sh" >&2
    exit 1
  fi
  echo "swift format: every file as .swift-format lays it out"
elif (($#)); then
  echo "usage: scripts/format.sh [--check]" >&2
  exit 64
else
  swift format format --in-place --recursive --parallel "${files[@]}"
fi
