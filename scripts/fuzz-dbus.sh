#!/bin/sh
# A longer seeded fuzz of the MPRIS export from a D-Bus peer: every exported method and property,
# well and badly typed, against the real daemon on a private dbus-daemon (the CI test runs ~20 s
# with a fixed seed). Usage: scripts/fuzz-dbus.sh [SECONDS] [SEED]   (default 300 s, a random
# seed). Prints requests, seed and outcome; a failure prints the seed: run the same SECONDS and
# SEED again to replay it (the daemon's stderr is kept in /tmp/playerhost-fuzz-dbus-SEED.stderr).
set -eu
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
SECONDS_ARG=${1:-300}
SEED=${2:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "dbus fuzz: ${SECONDS_ARG} s, seed ${SEED}"
swift build -j 1 --build-tests
LOG=/tmp/playerhost-fuzz-dbus-$SEED.log
if DBUS_FUZZ_SECONDS=$SECONDS_ARG DBUS_FUZZ_SEED=$SEED DBUS_FUZZ_LONG=1 \
    DBUS_FUZZ_STDERR=/tmp/playerhost-fuzz-dbus-$SEED.stderr \
    swift test --skip-build --filter 'DBusFuzzTests' >"$LOG" 2>&1; then
    grep 'dbus fuzz: seed' "$LOG"
else
    grep -E 'dbus fuzz|error|Issue' "$LOG" | head -20
    echo "dbus fuzz FAILED: seed $SEED (replay: scripts/fuzz-dbus.sh $SECONDS_ARG $SEED; log $LOG)"
    exit 1
fi
