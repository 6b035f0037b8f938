#!/usr/bin/env bash
# Installs what is missing, builds, starts playerhostd in the background with the demo sessions
# (examples/demo.toml) and shows them with npctl.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
./scripts/setup.sh
swift build
bin="$(swift build --show-bin-path)"
"$bin/npctl" daemon start -- --config "$PWD/examples/demo.toml"
echo
"$bin/npctl" status
echo
"$bin/npctl" sessions
echo
echo "npctl is $bin/npctl — try: npctl play-pause, npctl position 30+, npctl promote pip, npctl doctor, npctl daemon stop"
