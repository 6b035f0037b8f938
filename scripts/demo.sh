#!/usr/bin/env bash
# Installs what is missing, builds, starts playerhostd in the background and shows it running.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
./scripts/setup.sh
swift build
bin="$(swift build --show-bin-path)"
"$bin/npctl" daemon start -- --config "$PWD/examples/demo.toml"
"$bin/npctl" daemon status
echo
echo "npctl is at $bin/npctl — try: $bin/npctl ping, $bin/npctl call rpc.discover, $bin/npctl daemon stop"
