# Shared set-up of the bench scripts (sourced, not run): the release build, a scratch directory,
# pinned servers (playerhostd, redis-server) started and torn down the same way everywhere, and
# the small figure helpers. A script sets NAME (for messages), CPU and BUILD, then:
#
#   . "$(dirname "$0")/lib-bench.sh"
#   bench_build                 # release build unless BUILD=0; sets BIN, PHD, PHB
#   bench_tmp ph-foo            # TMP (removed on exit, with every server started below)
#   start_redis DIR [ARGS…]     # RPID, socket DIR/redis.sock
#   start_daemon SOCK [ARGS…]   # DPID, pinned to CPU; log next to SOCK
#   stop_servers                # kill and reap every server started so far
#   "${PIN[@]}" CLIENT …         # a client pinned (and niced) like the servers
#
# Benches are not run by CI, so redis-server is not in setup.sh: need_redis says so clearly.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
export PATH=/opt/swift/usr/bin:$PATH
NAME=${NAME:-$(basename "$0")}
CPU=${CPU:-0}
BUILD=${BUILD:-1}
# BENCH_NICE=-10 runs every bench process (servers and clients alike) at that priority, so that
# other tenants' compiles on the same CPU do not swamp the figures (root only for < 0).
PIN=(taskset -c "$CPU")
[ -n "${BENCH_NICE:-}" ] && PIN=(nice -n "$BENCH_NICE" taskset -c "$CPU")
BENCH_PIDS=()

bench_fail() { echo "$NAME: $*" >&2; exit 1; }

command -v taskset >/dev/null || bench_fail "taskset (util-linux) is required"

# redis-server (and redis-benchmark with --tools) must be installed by hand: they are not in
# scripts/setup.sh, because CI does not run the benches.
need_redis() {
    command -v redis-server >/dev/null ||
        bench_fail "redis-server is not installed (apt-get install redis-server redis-tools); the comparison needs it"
    if [ "${1:-}" = --tools ]; then
        command -v redis-benchmark >/dev/null ||
            bench_fail "redis-benchmark is not installed (apt-get install redis-tools)"
    fi
}

# The release build (`swift build -c release -j 1`, one job: the machine is shared) unless
# BUILD=0; PLAYERHOSTD=/path/to/another/build compares builds. `bench_build daemon` needs only
# playerhostd (the Python benches).
bench_build() {
    if [ "$BUILD" = 1 ]; then
        echo "== swift build -c release -j 1"
        swift build -c release -j 1 2>&1 | tail -1
    fi
    if [ "$BUILD" = 0 ] && [ -n "${PLAYERHOSTD:-}" ]; then
        BIN=$(dirname "$PLAYERHOSTD")   # (asking swift would wait for a build running in .build)
    else
        BIN=$(swift build -c release --show-bin-path)
    fi
    PHD=${PLAYERHOSTD:-$BIN/playerhostd}
    PHB=$BIN/ph-bench
    [ -x "$PHD" ] || bench_fail "build first ($PHD missing)"
    [ "${1:-}" = daemon ] || [ -x "$PHB" ] || bench_fail "build first ($PHB missing)"
}

bench_cleanup() {
    stop_servers
    [ -n "${TMP:-}" ] && rm -rf "$TMP"
    return 0
}

# A scratch directory, removed on exit together with every server started.
bench_tmp() {
    TMP=$(mktemp -d "/tmp/$1.XXXXXX")
    trap bench_cleanup EXIT
    trap 'exit 130' INT TERM
}

wait_for_socket() {  # path pid
    for _ in $(seq 200); do
        [ -S "$1" ] && return 0
        kill -0 "$2" 2>/dev/null || { echo "$NAME: server $2 died" >&2; return 1; }
        sleep 0.05
    done
    echo "$NAME: $1 did not appear" >&2
    return 1
}

# redis-server on DIR/redis.sock (no TCP, no persistence), pinned; extra arguments are passed on.
start_redis() {
    local dir=$1; shift
    mkdir -p "$dir"
    "${PIN[@]}" redis-server --unixsocket "$dir/redis.sock" --unixsocketperm 700 --port 0 \
        --save '' --appendonly no --daemonize no --logfile "$dir/redis.log" "$@" &
    RPID=$!
    BENCH_PIDS+=("$RPID")
    wait_for_socket "$dir/redis.sock" "$RPID"
}

# playerhostd on SOCK, pinned, log at SOCK.log, its state file in a fresh SOCK.state (never the
# user's, nor restored from an earlier run); extra arguments are passed on (--config …).
start_daemon() {
    local sock=$1; shift
    rm -rf "$sock" "$sock.state"
    "${PIN[@]}" "$PHD" --socket "$sock" --state-dir "$sock.state" --log-level warning "$@" 2>"$sock.log" &
    DPID=$!
    BENCH_PIDS+=("$DPID")
    wait_for_socket "$sock" "$DPID" || { cat "$sock.log" >&2; return 1; }
}

stop_servers() {
    local pid
    for pid in "${BENCH_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${BENCH_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    BENCH_PIDS=()
}

load_now() { cut -d' ' -f1-3 /proc/loadavg; }
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status"; }
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p"; }   # value of key=… in a RESULT line
median() { sort -g | awk '{a[NR] = $1} END {if (NR == 0) print "n/a"; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.2f", a / b; else print "n/a"}'; }
# verdict VALUE TARGET le|ge → meets / MISSES
verdict() { awk -v r="$1" -v t="$2" -v dir="${3:-ge}" 'BEGIN {ok = (dir == "le") ? (r + 0 <= t) : (r + 0 >= t); print ok ? "meets" : "MISSES"}'; }
