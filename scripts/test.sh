#!/usr/bin/env bash
# Runs the whole test suite (installs what it needs first).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# The independent PMTiles reader the export tests check against.
python3 -m pip --version >/dev/null 2>&1 || scripts/install-deps.sh python3-pip
python3 -c "import pmtiles" 2>/dev/null || python3 -m pip install --quiet --user "pmtiles>=3,<4" 2>/dev/null ||
  python3 -m pip install --quiet --user --break-system-packages "pmtiles>=3,<4"
# The layout .swift-format gives (whole runs only).
(($#)) || scripts/format.sh --check
swift build --build-tests
swift test --skip-build "$@"
# The API contract, by schemathesis against a running server (whole runs only, not filtered ones).
(($#)) || scripts/contract-test.sh
# The release build scripts/run.sh makes (whole runs only): an optimized whole-module build can
# fail where the debug build passes.
(($#)) || swift build -c release --product trailmap
