#!/usr/bin/env bash
# Fan-out benchmark: one nowPlaying event to N subscribers of playerhostd (coalesce_ms = 0, so
# every change is an event) against redis PUBLISH to N SUBSCRIBE connections, measured by the same
# client (ph-bench --fanout), every process pinned to one CPU, both servers in the same run.
#
#   scripts/bench-fanout.sh [--runs N] [--no-build] [--cpu C] [--subscribers N] [--rounds N] [--flood K]
#
# Prints per run: p50/p99 of the time until the LAST subscriber has the event (the two servers'
# rounds interleaved, so load drift weighs on both alike), and a flood's deliveries per second;
# then the medians and the ratios against redis with the targets of issue 7 (latency ≤ redis's,
# judged by the median of the per-pair ratios; flood ≥ 0.5 × redis's). bench.sh runs it after
# the ping loops.
set -euo pipefail

RUNS=3
BUILD=1
CPU=0
SUBS=1000
ROUNDS=200
FLOOD=500

while [ $# -gt 0 ]; do
    case "$1" in
        --runs) RUNS=$2; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --cpu) CPU=$2; shift 2 ;;
        --subscribers) SUBS=$2; shift 2 ;;
        --rounds) ROUNDS=$2; shift 2 ;;
        --flood) FLOOD=$2; shift 2 ;;
        -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench-fanout.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

NAME=bench-fanout.sh
. "$(dirname "$0")/lib-bench.sh"
need_redis
bench_build

# 2 × N subscribers in the one client + the servers' own descriptors.
ulimit -n $((2 * SUBS + 1024)) 2>/dev/null || ulimit -n "$(ulimit -Hn)"

bench_tmp ph-fanout

echo "== fan-out to $SUBS subscribers; all processes pinned to CPU $CPU; $RUNS run(s)"
printf 'coalesce_ms = 0\n' > "$TMP/fanout.toml"
declare -A R
for run in $(seq "$RUNS"); do
    echo "== fan-out run $run/$RUNS (load before: $(cut -d' ' -f1-3 /proc/loadavg))"
    D=$TMP/run$run
    mkdir -p "$D"
    start_redis "$D" --maxclients $((SUBS + 100))
    start_daemon "$D/ph.sock" --config "$TMP/fanout.toml" --max-connections $((SUBS + 100))

    # One client for both servers, their latency rounds interleaved (A B B A …): the load of a
    # shared machine then weighs on both alike, and each pair gives a ratio.
    out=$("${PIN[@]}" "$PHB" --socket "$D/ph.sock" --redis "$D/redis.sock" --fanout "$SUBS" --rounds "$ROUNDS" --flood "$FLOOD")
    echo "$out" | grep -v '^RESULT' | sed 's/^/   /'
    for t in playerhostd redis; do
        R[${t}_p50,$run]=$(echo "$out" | grep "^RESULT target=$t mode=fanout " | field p50_us)
        R[${t}_p99,$run]=$(echo "$out" | grep "^RESULT target=$t mode=fanout " | field p99_us)
        R[${t}_flood,$run]=$(echo "$out" | grep "^RESULT target=$t mode=flood " | field deliveries_per_s)
    done
    # Per-run ratios: the median of the interleaved pairs' ratios (latency), and the floods'
    # (run back to back), so drift between runs cancels.
    R[lat_ratio,$run]=$(echo "$out" | grep "^RESULT mode=fanout-paired " | field ratio)
    R[flood_ratio,$run]=$(ratio "${R[playerhostd_flood,$run]}" "${R[redis_flood,$run]}")
    echo "   ratio playerhostd/redis: fan-out p50 latency ${R[lat_ratio,$run]} (lower is better), flood ${R[flood_ratio,$run]}"
    stop_servers
done

med() { for run in $(seq "$RUNS"); do echo "${R[$1,$run]}"; done | awk '$1 != "n/a" && $1 != ""' | median; }
lat=$(med lat_ratio); flood=$(med flood_ratio)
echo
echo "== fan-out summary (median of $RUNS run(s); same client ph-bench for both servers; CPU $CPU)"
printf '%-34s %12s %12s %16s\n' "" "p50 µs" "p99 µs" "deliveries/s"
for t in playerhostd redis; do
    printf '%-34s %12s %12s %16s\n' "$t, $SUBS subscribers" "$(med ${t}_p50)" "$(med ${t}_p99)" "$(med ${t}_flood)"
done
echo "fan-out latency ratio playerhostd/redis (median of per-run medians of interleaved pairs): $lat (target <= 1.0: $(verdict "$lat" 1.0 le))"
echo "flood ratio playerhostd/redis (median of per-run ratios): $flood (target >= 0.5: $(verdict "$flood" 0.5 ge))"
