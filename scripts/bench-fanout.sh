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

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
command -v redis-server >/dev/null || { echo "bench-fanout.sh: redis-server is required" >&2; exit 1; }
if [ "$BUILD" = 1 ]; then
    echo "== swift build -c release"
    swift build -c release 2>&1 | tail -1
fi
BIN=$(swift build -c release --show-bin-path)
PHD=${PLAYERHOSTD:-$BIN/playerhostd}
PHB=$BIN/ph-bench
[ -x "$PHD" ] && [ -x "$PHB" ] || { echo "bench-fanout.sh: build first ($PHD, $PHB missing)" >&2; exit 1; }

# 2 × N subscribers in the one client + the servers' own descriptors.
ulimit -n $((2 * SUBS + 1024)) 2>/dev/null || ulimit -n "$(ulimit -Hn)"

TMP=$(mktemp -d /tmp/ph-fanout.XXXXXX)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
PIN=(taskset -c "$CPU")

wait_for_socket() {  # path pid
    for _ in $(seq 200); do
        [ -S "$1" ] && return 0
        kill -0 "$2" 2>/dev/null || { echo "bench-fanout.sh: server $2 died" >&2; return 1; }
        sleep 0.05
    done
    echo "bench-fanout.sh: $1 did not appear" >&2
    return 1
}
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }
median() { sort -g | awk '{a[NR] = $1} END {if (NR == 0) print "n/a"; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "n/a"}'; }

echo "== fan-out to $SUBS subscribers; all processes pinned to CPU $CPU; $RUNS run(s)"
printf 'coalesce_ms = 0\n' > "$TMP/fanout.toml"
declare -A R
for run in $(seq "$RUNS"); do
    echo "== fan-out run $run/$RUNS (load before: $(cut -d' ' -f1-3 /proc/loadavg))"
    D=$TMP/run$run
    mkdir -p "$D"
    "${PIN[@]}" redis-server --unixsocket "$D/redis.sock" --unixsocketperm 700 --port 0 \
        --save '' --appendonly no --daemonize no --logfile "$D/redis.log" --maxclients $((SUBS + 100)) &
    RPID=$!
    PIDS+=("$RPID")
    "${PIN[@]}" "$PHD" --socket "$D/ph.sock" --config "$TMP/fanout.toml" --max-connections $((SUBS + 100)) \
        --log-level warning 2>"$D/playerhostd.log" &
    PPID_=$!
    PIDS+=("$PPID_")
    wait_for_socket "$D/redis.sock" "$RPID"
    wait_for_socket "$D/ph.sock" "$PPID_"

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
    kill "$PPID_" "$RPID"
    wait "$PPID_" 2>/dev/null || true
    wait "$RPID" 2>/dev/null || true
    PIDS=()
done

med() { for run in $(seq "$RUNS"); do echo "${R[$1,$run]}"; done | awk '$1 != "n/a" && $1 != ""' | median; }
verdict() { awk -v r="$1" -v t="$2" -v dir="$3" 'BEGIN {ok = (dir == "le") ? (r + 0 <= t) : (r + 0 >= t); print ok ? "meets" : "MISSES"}'; }
lat=$(med lat_ratio); flood=$(med flood_ratio)
echo
echo "== fan-out summary (median of $RUNS run(s); same client ph-bench for both servers; CPU $CPU)"
printf '%-34s %12s %12s %16s\n' "" "p50 µs" "p99 µs" "deliveries/s"
for t in playerhostd redis; do
    printf '%-34s %12s %12s %16s\n' "$t, $SUBS subscribers" "$(med ${t}_p50)" "$(med ${t}_p99)" "$(med ${t}_flood)"
done
echo "fan-out latency ratio playerhostd/redis (median of per-run medians of interleaved pairs): $lat (target <= 1.0: $(verdict "$lat" 1.0 le))"
echo "flood ratio playerhostd/redis (median of per-run ratios): $flood (target >= 0.5: $(verdict "$flood" 0.5 ge))"
