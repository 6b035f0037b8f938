#!/usr/bin/env bash
# Runs every test: installs what is missing, builds everything (the end-to-end tests run the
# real playerhostd and npctl binaries), then runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
./scripts/setup.sh
./scripts/check-layers.sh
swift build --build-tests
swift test --skip-build "$@"
