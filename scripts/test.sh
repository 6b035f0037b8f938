#!/usr/bin/env bash
# Runs every test: installs what is missing, builds everything (the end-to-end tests run the
# real playerhostd and npctl binaries), then runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d /opt/swift/usr/bin ] && export PATH="/opt/swift/usr/bin:$PATH"
./scripts/setup.sh
./scripts/check-layers.sh
swift build --build-tests

# No test may touch the user's own state, config, cache or runtime directory (issue 24): each
# test host gets temp directories of its own. What is there before and after must match.
# (A daemon of the user's already running would write there itself: then it is not checked.)
user_files() {
    find "${XDG_STATE_HOME:-$HOME/.local/state}/playerhost" "${XDG_CONFIG_HOME:-$HOME/.config}/playerhost" \
         "${XDG_CACHE_HOME:-$HOME/.cache}/playerhost" "${XDG_RUNTIME_DIR:-/nonexistent}/playerhost" \
         -printf '%p %s %T@\n' 2>/dev/null | sort || true
}
check_user_files=1
pgrep -x playerhostd >/dev/null && check_user_files=0
before=$(user_files)
status=0
if [ $# -gt 0 ]; then
    swift test --skip-build "$@" || status=$?
else
    # The whole suite in three processes at once. One process runs at most as many tests at a
    # time as the machine has cores (Swift Testing runs them on the cooperative pool), and the
    # end-to-end tests mostly wait on daemons, mpv and buses: three processes take about half the
    # time of one (docs/PERFORMANCE.md, "The test suite"). The shards are a partition by
    # construction (the third is "everything the first two are not"), so no test is left out.
    tests="$(swift build --show-bin-path)/PlayerHostPackageTests.xctest"
    shard1='MPV|DBus|Readme|ArtworkEndToEnd'
    shard2='MPRIS|Npctl|Playerctl'
    logs=$(mktemp -d)
    trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$logs"' EXIT
    echo "test.sh: running the suite in three processes (logs follow as each ends)"
    "$tests" --testing-library swift-testing --filter "$shard1" > "$logs/1" 2>&1 & p1=$!
    "$tests" --testing-library swift-testing --filter "$shard2" --skip "$shard1" > "$logs/2" 2>&1 & p2=$!
    "$tests" --testing-library swift-testing --skip "$shard1|$shard2" > "$logs/3" 2>&1 & p3=$!
    for n in 1 2 3; do
        pid_var="p$n"
        shard_status=0
        wait "${!pid_var}" || shard_status=$?
        echo "=== shard $n (exit $shard_status) ==="
        cat "$logs/$n"
        [ "$shard_status" = 0 ] || status=$shard_status
    done
    grep -h 'Test run with' "$logs"/1 "$logs"/2 "$logs"/3 || true
fi
if [ "$check_user_files" = 1 ] && [ "$(user_files)" != "$before" ]; then
    echo "test.sh: the tests changed the user's own playerhost files (state, config, cache or runtime dir):" >&2
    diff <(echo "$before") <(user_files) >&2 || true
    [ "$status" = 0 ] && status=1
fi
exit "$status"
