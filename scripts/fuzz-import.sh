#!/bin/sh
# A longer seeded storm of hostile MPRIS players against the importer (the test suite runs 15 s
# with a fixed seed): wrong types, huge and nested values, floods of PropertiesChanged, churn,
# unanswered calls, and extreme seeks from a client. Usage: scripts/fuzz-import.sh [SECONDS] [SEED]
# (default 60 s, a random seed). A failure prints the seed; run the same SECONDS and SEED again
# to replay the players' side (the daemon's timing is not replayed).
set -eu
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
SECONDS_ARG=${1:-60}
SEED=${2:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "import fuzz: ${SECONDS_ARG} s, seed ${SEED}"
swift build -j 1 --build-tests
LOG=/tmp/playerhost-fuzz-import-$SEED.log
if IMPORT_FUZZ_SECONDS=$SECONDS_ARG IMPORT_FUZZ_SEED=$SEED \
    swift test --skip-build --filter 'MPRISImportHostileTests/aStormOfHostilePlayersLeavesTheDaemonAnswering' >"$LOG" 2>&1; then
    grep 'import fuzz:' "$LOG"
else
    grep -E 'import fuzz|error|Issue' "$LOG" | head -20
    echo "import fuzz FAILED: seed $SEED (replay: scripts/fuzz-import.sh $SECONDS_ARG $SEED; log $LOG)"
    exit 1
fi
