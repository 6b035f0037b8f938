#!/usr/bin/env bash
# Soak (issue 16): a fresh release playerhostd and its load on one CPU (taskset -c 0 by default):
# 50 busy apps doing mixed requests (pings, reads, info.update, seeks, built-in commands and
# `like`, handled out of process by 10 of the apps that answer command.handle), plus 1 000 idle
# connections, for --minutes (default 10); another client pings every 10 ms throughout.
# Checks, and exits non-zero when one fails: every request answered (none unanswered 30 s after it
# was sent), VmRSS flat after the first minute (<= +10 %), descriptors (/proc/PID/fd) and sessions
# back to their baseline at the end. Prints the ping's p50/p99 and VmRSS each minute.
#
#   scripts/soak.sh [--minutes N] [--no-build] [--cpu C] [--busy N] [--idle N] [--rate R]
set -euo pipefail

MINUTES=10
BUSY=50
IDLE=1000
RATE=20
while [ $# -gt 0 ]; do
    case "$1" in
        --minutes) MINUTES=$2; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --cpu) CPU=$2; shift 2 ;;
        --busy) BUSY=$2; shift 2 ;;
        --idle) IDLE=$2; shift 2 ;;
        --rate) RATE=$2; shift 2 ;;
        -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "soak.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
NAME=soak.sh
. "$(dirname "$0")/lib-bench.sh"
bench_build daemon
bench_tmp ph-soak

# The idle connections, the busy ones and their sessions, and the descriptors to hold them.
ulimit -n $((IDLE + 2 * BUSY + 1024)) 2>/dev/null || ulimit -n "$(ulimit -Hn)"
printf 'state_dir = "%s"\n' "$TMP/state" > "$TMP/c.toml"
echo "== soak: $MINUTES min, CPU $CPU, load $(load_now) (shared machine: others build at the same time)"
start_daemon "$TMP/s" --config "$TMP/c.toml" --max-connections $((IDLE + 2 * BUSY + 64))
set +e
"${PIN[@]}" python3 "$ROOT/scripts/bench-fairness.py" soak "$TMP/s" --pid "$DPID" --minutes "$MINUTES" \
    --busy "$BUSY" --idle "$IDLE" --rate "$RATE" --tmp "$TMP"
status=$?
set -e
kill -0 "$DPID" 2>/dev/null || { echo "FAIL the daemon died"; cat "$TMP/s.log" >&2; status=1; }
echo "== soak done (load $(load_now)): $([ $status = 0 ] && echo 'every check passed' || echo 'a check FAILED')"
exit $status
