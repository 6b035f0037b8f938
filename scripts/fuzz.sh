#!/bin/sh
# A longer seeded fuzz of every rpc.discover method, on an embedded host (FuzzTests) and over the
# real daemon's socket (SocketTransportLimitsEndToEndTests.fuzzOverTheRealSocket), both for SECONDS
# (the CI tests run 4 s and 3 s with a fixed seed). Usage: scripts/fuzz.sh [SECONDS] [SEED]
# (default 300 s, a random seed). A failure prints the seed; run the same SECONDS and SEED again to replay it.
set -eu
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
SECONDS_ARG=${1:-300}
SEED=${2:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "fuzz: ${SECONDS_ARG} s, seed ${SEED}"
swift build -j 1 --build-tests
LOG=/tmp/playerhost-fuzz-$SEED.log
if FUZZ_SECONDS=$SECONDS_ARG FUZZ_SEED=$SEED FUZZ_LONG=1 \
    swift test --skip-build --filter 'FuzzTests|fuzzOverTheRealSocket' >"$LOG" 2>&1; then
    grep 'fuzz: seed' "$LOG"
else
    grep -E 'fuzz seed|error|Issue' "$LOG" | head -20
    echo "fuzz FAILED: seed $SEED (replay: scripts/fuzz.sh $SECONDS_ARG $SEED; log $LOG)"
    exit 1
fi
