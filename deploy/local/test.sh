#!/usr/bin/env bash
# Runs the whole test suite on a fresh Debian machine: installs libzmq3-dev if missing, then `swift test`.
set -euo pipefail
cd "$(dirname "$0")/../.."
deploy/local/ensure-deps.sh
deploy/local/check-package-graph.py
swift build --build-tests
swift test --skip-build --no-parallel "$@"
