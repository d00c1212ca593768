#!/usr/bin/env bash
# Runs the whole test suite on a fresh Debian machine: installs libzmq3-dev if missing, then the SDK's package alone,
# then `swift test`.
set -euo pipefail
cd "$(dirname "$0")/../.."
deploy/local/ensure-deps.sh
deploy/local/check-package-graph.py
# The SDK alone, as an app adds it: its own package (no dependency), its own build folder (sdk/.build), its own tests
# (the layout, the presentation through a recording surface, GIF timing). LaunchAdKitUI builds empty here: only an
# Apple toolchain compiles its UIKit files.
(cd sdk && swift build --build-tests && swift test --skip-build)
swift build --build-tests
# The run's log is kept, so that a failure is named again at its end: CI shows only the last lines.
log=$(mktemp "${TMPDIR:-/tmp}/launchad-test.XXXXXX")
trap 'rm -f "$log"' EXIT
status=0
swift test --skip-build --no-parallel "$@" 2>&1 | tee "$log" || status=$?
if [ "$status" -ne 0 ]; then
  echo "---- what failed ----"
  grep -E '✘|Fatal error|Caught signal' "$log" | head -80 || true
fi
exit "$status"
