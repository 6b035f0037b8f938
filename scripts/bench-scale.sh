#!/usr/bin/env bash
# Scale benchmark (issue 7): one fresh release playerhostd, pinned to one CPU with its client
# (ph-bench --scale); per run: p50 of nowPlaying.get, session.get, command.send and player.seek
# with 10 sessions and then with N eligible sessions (same run, same connection) and their ratio
# (target ≤ 1.5), the time and daemon CPU to create N eligible sessions (create +
# audio.configure + audio.activate + command.bindDefaults, pipelined; target ≤ 5 s) and to close
# them (≤ 5 s), and the daemon's memory per idle eligible session (VmRSS delta / N; ≤ 8 KiB).
#
#   scripts/bench-scale.sh [--runs N] [--no-build] [--cpu C] [--sessions N] [--count N]
set -euo pipefail

RUNS=3
BUILD=1
CPU=0
N=10000
COUNT=2000

while [ $# -gt 0 ]; do
    case "$1" in
        --runs) RUNS=$2; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --cpu) CPU=$2; shift 2 ;;
        --sessions) N=$2; shift 2 ;;
        --count) COUNT=$2; shift 2 ;;
        -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench-scale.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

NAME=bench-scale.sh
. "$(dirname "$0")/lib-bench.sh"
bench_build
bench_tmp ph-scale

# Every session belongs to the host app (the client never says host.hello): raise its limit.
# Its state file goes to a scratch directory, never the user's (nor restored into the next run).
printf 'max_sessions_per_app = %d\nstate_dir = "%s"\n' $((N * 2)) "$TMP/state" > "$TMP/c.toml"
for run in $(seq "$RUNS"); do
    echo "== run $run/$RUNS, CPU $CPU, $N sessions (load before: $(cut -d' ' -f1-3 /proc/loadavg))"
    rm -rf "$TMP/s" "$TMP/state"
    start_daemon "$TMP/s" --config "$TMP/c.toml"
    "${PIN[@]}" "$PHB" --socket "$TMP/s" --scale "$N" --count "$COUNT" --pid "$DPID" | grep -v '^RESULT' | sed 's/^/   /'
    stop_servers
done
