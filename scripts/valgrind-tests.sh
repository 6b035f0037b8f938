#!/bin/sh
# Runs test suites under valgrind memcheck: scripts/valgrind-tests.sh [filter, default Loop]
#
# Valgrind 3.19 cannot read the DWARF 5 of Swift 6.3 debug builds, so the tests are built without
# debug info in a separate scratch path (not .build: no rebuild of the normal tree). It also
# crashes inside libdispatch's dispatch_main, which the swift-testing runner calls; a preloaded
# replacement (scripts/valgrind-dispatch-main.c) keeps its contract.
set -eu
filter=${1:-Loop}
root=$(cd "$(dirname "$0")/.." && pwd)
scratch=${VALGRIND_SCRATCH:-/tmp/playerhost-valgrind-build}
cd "$root"
swift build --build-tests --scratch-path "$scratch" -Xswiftc -gnone -Xlinker -S
cc -shared -fPIC -O1 -o "$scratch/dispatch-main.so" scripts/valgrind-dispatch-main.c -lpthread
SWIFT_BACKTRACE=enable=no LD_PRELOAD="$scratch/dispatch-main.so" \
    valgrind --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite \
    --child-silent-after-fork=yes --error-exitcode=99 --num-callers=30 \
    "$scratch/debug/PlayerHostPackageTests.xctest" --testing-library swift-testing --filter "$filter" --no-parallel
