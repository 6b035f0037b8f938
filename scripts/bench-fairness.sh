#!/usr/bin/env bash
# Issue 16's fairness and memory figures against a fresh release playerhostd per measurement,
# every process pinned to one CPU (taskset -c 0 by default: servers and clients alike):
#   1. another client's host.ping p50/p99 while two clients pipeline session.list without reading
#      (cut off, reconnecting), against redis-server in the same run with GET of a value whose
#      reply is the same size, same pinning and comparable output limits (redis
#      client-output-buffer-limit normal 8mb 1mb 5 = our 8 MiB limit, 1 MiB high water, 5 s stall);
#   2. ping p99 while one app creates 10 000 sessions, and while it disconnects with them;
#   3. daemon RSS growth with 100 subscribers to every topic that never read, while events flow;
#   4. a 1 µs item on repeat, playing: daemon CPU over 10 s, ping answered.
#
#   scripts/bench-fairness.sh [--runs N] [--no-build] [--cpu C] [--seconds S] [--sessions N] [--only flood|sessions|stalled|repeat]
set -euo pipefail

RUNS=3
SECONDS_=10
N=10000
ONLY=""
while [ $# -gt 0 ]; do
    case "$1" in
        --runs) RUNS=$2; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        --cpu) CPU=$2; shift 2 ;;
        --seconds) SECONDS_=$2; shift 2 ;;
        --sessions) N=$2; shift 2 ;;
        --only) ONLY=$2; shift 2 ;;
        -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench-fairness.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
NAME=bench-fairness.sh
. "$(dirname "$0")/lib-bench.sh"
bench_build daemon
bench_tmp ph-fair
PY=(python3 "$ROOT/scripts/bench-fairness.py")
want() { [ -z "$ONLY" ] || [ "$ONLY" = "$1" ]; }

# A fresh config per daemon: the state file in the scratch directory, never the user's.
config() {  # extra TOML lines → path
    local f=$TMP/c$RANDOM.toml
    printf 'state_dir = "%s"\n%s\n' "$TMP/state$RANDOM" "${1:-}" > "$f"
    echo "$f"
}

echo "== machine: $(nproc) CPUs, load $(load_now) (shared: others build at the same time); everything pinned to CPU $CPU"

if want flood; then
    need_redis
    declare -A R
    for run in $(seq "$RUNS"); do
        D=$TMP/flood$run
        mkdir -p "$D"
        start_redis "$D" --client-output-buffer-limit "normal 8mb 1mb 5"
        start_daemon "$D/ph.sock" --config "$(config)"
        size=$("${PIN[@]}" "${PY[@]}" flood-setup "$D/ph.sock" --redis "$D/redis.sock" | field reply_bytes)
        echo "== flood run $run/$RUNS (load $(load_now)): replies of $size bytes for both servers"
        # Alternate which server goes first, so a drift of the machine's load does not favour one.
        order=(jsonrpc redis); [ $((run % 2)) = 0 ] && order=(redis jsonrpc)
        for proto in "${order[@]}"; do
            sock=$D/ph.sock; [ "$proto" = redis ] && sock=$D/redis.sock
            line=$("${PIN[@]}" "${PY[@]}" flood "$sock" --protocol "$proto" --seconds "$SECONDS_" --tmp "$D")
            R[${proto}_p50,$run]=$(echo "$line" | sed -n 's/.* p50_us=\([0-9]*\).*/\1/p')
            R[${proto}_p99,$run]=$(echo "$line" | sed -n 's/.* p99_us=\([0-9]*\).*/\1/p')
            echo "   $proto: ${line#RESULT }"
        done
        R[ratio,$run]=$(awk -v a="${R[jsonrpc_p99,$run]}" -v b="${R[redis_p99,$run]}" 'BEGIN {printf "%.3f", (b > 0) ? a / b : 0}')
        echo "   ping p99 under two non-reading flooders: playerhostd ${R[jsonrpc_p99,$run]} µs, redis ${R[redis_p99,$run]} µs, ratio ${R[ratio,$run]}"
        echo "   playerhostd VmRSS after: $(rss_kb "$DPID") kB; redis VmRSS after: $(rss_kb "$RPID") kB"
        stop_servers
    done
    med() { for run in $(seq "$RUNS"); do echo "${R[$1,$run]}"; done | median; }
    r=$(med ratio)
    echo "ping under two non-reading flooders, median of $RUNS runs: playerhostd p50 $(med jsonrpc_p50) µs p99 $(med jsonrpc_p99) µs;" \
         "redis p50 $(med redis_p50) µs p99 $(med redis_p99) µs; p99 ratio $r (runs: $(for run in $(seq "$RUNS"); do printf '%s ' "${R[ratio,$run]}"; done)) (target <= 1.0: $(verdict "$r" 1.0 le))"
fi

if want sessions; then
    for run in $(seq "$RUNS"); do
        echo "== sessions run $run/$RUNS (load $(load_now))"
        start_daemon "$TMP/s.sock" --config "$(config "max_sessions_per_app = $((N * 2))")"
        "${PIN[@]}" "${PY[@]}" sessions "$TMP/s.sock" --n "$N" --tmp "$TMP" | sed 's/^/   /'
        stop_servers
    done
fi

if want stalled; then
    echo "== 100 stalled subscribers (load $(load_now))"
    # Today's per-connection output limit (8 MiB), then a smaller one: what it takes to stay in
    # budget without a global one (the budget branch adds it).
    for limit in default 524288; do
        args=(); [ "$limit" = default ] || args=(--max-output-bytes "$limit")
        echo "   max output per connection: $limit"
        start_daemon "$TMP/st.sock" --config "$(config)" "${args[@]}"
        "${PIN[@]}" "${PY[@]}" stalled "$TMP/st.sock" --pid "$DPID" --seconds 20 | sed 's/^/   /'
        stop_servers
    done
fi

if want repeat; then
    echo "== 1 µs item on repeat (load $(load_now))"
    start_daemon "$TMP/r.sock" --config "$(config)"
    "${PIN[@]}" "${PY[@]}" repeat "$TMP/r.sock" --pid "$DPID" --tmp "$TMP" | sed 's/^/   /'
    stop_servers
fi
