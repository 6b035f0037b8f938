#!/usr/bin/env bash
# Round-trip benchmark: playerhostd (JSON-RPC host.ping) against redis-server (inline PING),
# measured by the same client (ph-bench), all pinned to one CPU, plus redis-benchmark as a
# cross-check of the client. Also reports playerhostd's resident memory and its idle wake-ups,
# then runs scripts/bench-fanout.sh (one event to 1 000 subscribers against redis PUBLISH) and
# scripts/bench-scale.sh (10 000 sessions against 10).
#
#   scripts/bench.sh [--runs N] [--no-build] [--cpu C] [--max-load L] [--seq-count N] [--pipe-count N]
#   PLAYERHOSTD=/path/to/playerhostd scripts/bench.sh --no-build   # benchmark another build
#
# Everything runs pinned to one CPU (default 0): on a small VM a cross-CPU wake-up costs tens of
# microseconds and would swamp what is being measured. Each run starts fresh servers; with several
# runs the summary reports the median of each figure. Every process and temp file is cleaned up
# on exit.
set -euo pipefail

RUNS=3
BUILD=1
CPU=0
MAX_LOAD=""          # wait (up to 10 min) until the 1-minute load is below this before each run
SEQ_COUNT=200000     # ph-bench sequential requests
PIPE_COUNT=2000000   # ph-bench pipelined requests (62500 batches of 32)
WARMUP=20000
PIPELINE=32
RB_COUNT=200000      # redis-benchmark -P 1 requests
RB_PIPE_COUNT=2000000  # redis-benchmark -P 32 requests (200000 is over in ~0.15 s: too noisy)
IDLE_SECONDS=3        # idle window right after start (start-up work shows here)
IDLE_AFTER_SECONDS=10 # idle window after the benchmark: issue 7's "0 wake-ups in 10 s"

while [ $# -gt 0 ]; do
    case "$1" in
        --runs) RUNS=$2; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --cpu) CPU=$2; shift 2 ;;
        --max-load) MAX_LOAD=$2; shift 2 ;;
        --seq-count) SEQ_COUNT=$2; shift 2 ;;
        --pipe-count) PIPE_COUNT=$2; shift 2 ;;
        -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

NAME=bench.sh
. "$(dirname "$0")/lib-bench.sh"
need_redis --tools
bench_build
bench_tmp ph-bench

# Context switches of every thread of a process (voluntary + involuntary).
ctxt_switches() {
    cat /proc/"$1"/task/*/status 2>/dev/null |
        awk '/^(voluntary|nonvoluntary)_ctxt_switches:/ {n += $2} END {print n + 0}'
}

# Wake-ups of an idle process over SECONDS (default IDLE_SECONDS): the context-switch delta from
# /proc, and perf's count if perf works here (it is the kernel's own counter; /proc is the fallback).
idle_wakeups() {
    local pid=$1 seconds=${2:-$IDLE_SECONDS} before after perfcount
    before=$(ctxt_switches "$pid")
    # perf prints "<not counted>" when the task was never scheduled in during the window: 0.
    if perfcount=$(perf stat -x, -e context-switches -p "$pid" -- sleep "$seconds" 2>&1 >/dev/null |
            awk -F, '/context-switches/ {print ($1 == "<not counted>") ? 0 : $1}') &&
            [[ "$perfcount" =~ ^[0-9]+$ ]]; then
        :
    else
        perfcount="n/a"
        sleep "$seconds"
    fi
    after=$(ctxt_switches "$pid")
    echo "$((after - before)) $perfcount"
}

wait_quiet() {
    [ -n "$MAX_LOAD" ] || return 0
    for _ in $(seq 120); do
        awk -v max="$MAX_LOAD" '{exit !($1 < max)}' /proc/loadavg && return 0
        echo "   load $(cut -d' ' -f1 /proc/loadavg) >= $MAX_LOAD; waiting"
        sleep 5
    done
    echo "   still loaded; running anyway"
}

rb_rate() { tr '\r' '\n' | grep -o '[0-9.]* requests per second' | tail -1 | cut -d' ' -f1; }

echo "== machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), kernel $(uname -r)"
echo "== versions: $(swift --version 2>&1 | head -1); $(redis-server --version | cut -d' ' -f1-3)"
echo "== all processes pinned to CPU $CPU; $RUNS run(s)"

declare -A R   # R[metric,run] = value
for run in $(seq "$RUNS"); do
    wait_quiet
    echo "== run $run/$RUNS (load before: $(cut -d' ' -f1-3 /proc/loadavg))"
    D=$TMP/run$run
    mkdir -p "$D"
    start_redis "$D"
    start_daemon "$D/ph.sock"
    PPID_=$DPID
    sleep 0.2

    R[rss_start,$run]=$(rss_kb "$PPID_")
    read -r idle_proc idle_perf < <(idle_wakeups "$PPID_")
    R[idle_start,$run]=$idle_proc
    R[idle_start_perf,$run]=$idle_perf
    echo "   playerhostd pid $PPID_: VmRSS at start ${R[rss_start,$run]} kB;" \
         "idle ${IDLE_SECONDS}s with no clients: $idle_proc context switches (/proc), $idle_perf (perf)"

    out=$("${PIN[@]}" "$PHB" --socket "$D/ph.sock" --mode sequential --count "$SEQ_COUNT" --warmup "$WARMUP"
          "${PIN[@]}" "$PHB" --redis "$D/redis.sock" --mode sequential --count "$SEQ_COUNT" --warmup "$WARMUP"
          "${PIN[@]}" "$PHB" --socket "$D/ph.sock" --mode pipelined --pipeline "$PIPELINE" --count "$PIPE_COUNT" --warmup "$WARMUP"
          "${PIN[@]}" "$PHB" --redis "$D/redis.sock" --mode pipelined --pipeline "$PIPELINE" --count "$PIPE_COUNT" --warmup "$WARMUP")
    echo "$out" | grep -v '^RESULT' | sed 's/^/   /'
    for t in playerhostd redis; do
        for m in sequential pipelined; do
            line=$(echo "$out" | grep "^RESULT target=$t mode=$m ")
            R[${t}_${m}_rps,$run]=$(echo "$line" | field rps)
            R[${t}_${m}_p50,$run]=$(echo "$line" | field p50_us)
            R[${t}_${m}_p99,$run]=$(echo "$line" | field p99_us)
        done
    done

    # Ratios per run (both servers measured back to back), so drift between runs cancels.
    R[seq_ratio,$run]=$(ratio "${R[playerhostd_sequential_rps,$run]}" "${R[redis_sequential_rps,$run]}")
    R[pipe_ratio,$run]=$(ratio "${R[playerhostd_pipelined_rps,$run]}" "${R[redis_pipelined_rps,$run]}")
    echo "   ratio playerhostd/redis: sequential ${R[seq_ratio,$run]}, pipelined ${R[pipe_ratio,$run]}"

    R[rb_seq,$run]=$("${PIN[@]}" redis-benchmark -s "$D/redis.sock" -t ping_inline -c 1 -P 1 -n "$RB_COUNT" -q | rb_rate)
    R[rb_pipe,$run]=$("${PIN[@]}" redis-benchmark -s "$D/redis.sock" -t ping_inline -c 1 -P "$PIPELINE" -n "$RB_PIPE_COUNT" -q | rb_rate)
    echo "   redis-benchmark ping_inline -c 1: -P 1 ${R[rb_seq,$run]} req/s, -P $PIPELINE ${R[rb_pipe,$run]} req/s"

    sleep 0.5   # let the last client's disconnect be handled
    R[rss_after,$run]=$(rss_kb "$PPID_")
    read -r idle_proc idle_perf < <(idle_wakeups "$PPID_" "$IDLE_AFTER_SECONDS")
    R[idle_after,$run]=$idle_proc
    R[idle_after_perf,$run]=$idle_perf
    echo "   playerhostd VmRSS after the benchmark ${R[rss_after,$run]} kB;" \
         "idle ${IDLE_AFTER_SECONDS}s after: $idle_proc context switches (/proc), $idle_perf (perf)"

    stop_servers
    echo "   (load after: $(cut -d' ' -f1-3 /proc/loadavg))"
done

med() {  # metric → median over runs
    for run in $(seq "$RUNS"); do echo "${R[$1,$run]}"; done | awk '$1 != "n/a"' | median
}

ph_seq=$(med playerhostd_sequential_rps); rd_seq=$(med redis_sequential_rps)
ph_pipe=$(med playerhostd_pipelined_rps); rd_pipe=$(med redis_pipelined_rps)
rb_seq=$(med rb_seq); rb_pipe=$(med rb_pipe)
seq_ratio=$(med seq_ratio); pipe_ratio=$(med pipe_ratio)
range() { for run in $(seq "$RUNS"); do echo "${R[$1,$run]}"; done | sort -g | awk 'NR == 1 {lo = $1} {hi = $1} END {print lo "-" hi}'; }

echo
echo "== summary (median of $RUNS run(s); same client ph-bench for both servers; CPU $CPU)"
printf '%-24s %12s %10s %10s\n' "" "req/s" "p50 µs" "p99 µs"
for m in sequential pipelined; do
    for t in playerhostd redis; do
        printf '%-24s %12s %10s %10s\n' "$t $m" "$(med ${t}_${m}_rps)" "$(med ${t}_${m}_p50)" "$(med ${t}_${m}_p99)"
    done
done
printf '%-24s %12s\n' "redis-benchmark -P 1" "$rb_seq" "redis-benchmark -P $PIPELINE" "$rb_pipe"
echo "sequential ratio playerhostd/redis (same client, median of per-run ratios): $seq_ratio" \
     "(runs: $(range seq_ratio); issue 7 target >= 1.0: $(verdict "$seq_ratio" 1.0)); vs redis-benchmark -P 1: $(ratio "$ph_seq" "$rb_seq")"
echo "pipelined  ratio playerhostd/redis (same client, median of per-run ratios): $pipe_ratio" \
     "(runs: $(range pipe_ratio); issue 7 target >= 0.8: $(verdict "$pipe_ratio" 0.8)); vs redis-benchmark -P $PIPELINE: $(ratio "$ph_pipe" "$rb_pipe")"
echo "ph-bench's own redis rate vs redis-benchmark: sequential $(ratio "$rd_seq" "$rb_seq"), pipelined $(ratio "$rd_pipe" "$rb_pipe")"
echo "playerhostd VmRSS: at start $(med rss_start) kB, after the benchmark $(med rss_after) kB"
echo "playerhostd idle, no clients: ${IDLE_SECONDS}s after start $(med idle_start) context switches" \
     "(perf: $(med idle_start_perf)); ${IDLE_AFTER_SECONDS}s after the benchmark $(med idle_after) (perf: $(med idle_after_perf))" \
     "(issue 7 target: 0 in 10 s: $(verdict "$(med idle_after)" 0 le))"

# Event fan-out to 1 000 subscribers against redis PUBLISH, same pinning (issue 7's targets).
echo
"$ROOT/scripts/bench-fanout.sh" --no-build --cpu "$CPU" --runs "$RUNS"

# Per-operation cost with 10 000 sessions against 10, create/close time, memory per session.
echo
"$ROOT/scripts/bench-scale.sh" --no-build --cpu "$CPU" --runs "$RUNS"

# The seeded D-Bus fuzzes, longer than CI's 35 s + 25 s (issue 21): every exported MPRIS method
# and property, then hostile imported players. FUZZ_SECONDS=0 skips them.
FUZZ_SECONDS=${FUZZ_SECONDS:-300}
if [ "$FUZZ_SECONDS" -gt 0 ]; then
    echo
    "$ROOT/scripts/fuzz-dbus.sh" "$FUZZ_SECONDS"
    "$ROOT/scripts/fuzz-import.sh" "$FUZZ_SECONDS"
fi
