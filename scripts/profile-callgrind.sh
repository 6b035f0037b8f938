#!/usr/bin/env bash
# Instructions per host.ping in playerhostd's event loop, measured with callgrind (deterministic:
# unlike wall-clock figures it does not care what else the machine is doing). Uses the current
# release build; valgrind 3.19 cannot read Swift 6's DWARF 5, so it profiles a copy with the debug
# info stripped (symbols stay).
#
#   scripts/profile-callgrind.sh [N]     # N pings sequentially, then N pipelined in batches of 32
#
# Prints instructions per request for each mode and leaves the callgrind files in the printed
# directory for callgrind_annotate (the top of the inclusive profile is printed too).
set -euo pipefail
N=${1:-20000}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$(cd "$ROOT" && swift build -c release --show-bin-path)
OUT=$(mktemp -d /tmp/ph-callgrind.XXXXXX)
objcopy --strip-debug "$BIN/playerhostd" "$OUT/playerhostd"

profile() {  # mode → instructions under uv_run for N requests in that mode
    local mode=$1 pid
    valgrind --tool=callgrind --toggle-collect=uv_run --callgrind-out-file="$OUT/callgrind.$mode" \
        "$OUT/playerhostd" --socket "$OUT/s.sock" --log-level warning >"$OUT/valgrind.$mode.log" 2>&1 &
    pid=$!
    for _ in $(seq 300); do [ -S "$OUT/s.sock" ] && break; sleep 0.1; done
    "$BIN/ph-bench" --socket "$OUT/s.sock" --mode "$mode" --count "$N" --warmup 0 >/dev/null
    kill "$pid"; wait "$pid" || true
    awk '/^summary:|^totals:/ {print $2; exit}' "$OUT/callgrind.$mode"
}

for mode in sequential pipelined; do
    ir=$(profile $mode)
    # The verification request and batch (33 requests) and shutdown are in the count too.
    echo "$mode: $ir instructions under uv_run for $N requests = $((ir / (N + 33))) per request"
done
echo "callgrind files in $OUT; top of the sequential profile (inclusive):"
callgrind_annotate --inclusive=yes "$OUT/callgrind.sequential" 2>/dev/null |
    grep -E '^ *[0-9,]+ \(' | sed 's/ \[.*//' | head -30
