#!/usr/bin/env bash
# Runs the whole test suite (installs what it needs first).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build --build-tests
swift test --skip-build "$@"
# The API contract, by schemathesis against a running server (whole runs only, not filtered ones).
(($#)) || scripts/contract-test.sh
