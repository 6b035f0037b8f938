#!/bin/sh
# Runs the test suite against an AddressSanitizer build: scripts/asan-tests.sh [swift test args]
#
# The daemon trusts a few things the compiler no longer checks (RPCConnection's comment:
# `@exclusivity(unchecked)` properties, `Unmanaged` walks of the event subscribers); a mistake
# there is memory corruption, not a trap, and ASan is what sees it. The end-to-end tests spawn the
# playerhostd built beside the test executable, so the daemon under test is instrumented too.
# Leak checking is off (the Swift runtime's caches at exit are not leaks), and the fuzz tests with
# an RSS bound (the daemon's over the real socket, D-Bus's) are skipped by default: the bound does
# not hold with ASan's shadow memory and quarantine. The embedded host's fuzz has none and runs.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
scratch=${ASAN_SCRATCH:-$root/.build-asan}
cd "$root"
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
swift build --build-tests --sanitize=address --scratch-path "$scratch"
[ $# -eq 0 ] && set -- --skip 'DBusFuzzTests|fuzzOverTheRealSocket'
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0} \
    swift test --skip-build --sanitize=address --scratch-path "$scratch" "$@"
