#!/usr/bin/env bash
# MPRIS latency: a JSON-RPC `command.send pause` (or `play`) to playerhostd → its
# PropertiesChanged on a private session bus, as dbus-monitor (on that bus) timestamps it,
# spaced 300 ms apart (past the gate's default coalescing window).
# Everything runs pinned to one CPU (default 0), as in bench.sh. Prints p50/p90/max in µs.
#
#   scripts/bench-mpris.sh [--count N] [--cpu C] [--no-build]
#
# The figure includes the socket hop to the daemon, the model, the sd-bus emit, dbus-daemon's
# routing and dbus-monitor's wake-up: the whole way from "pause" to what a desktop shell sees.
# Then the JSON-RPC host.ping rate alone and while a raw D-Bus client (CPU 1) floods the MPRIS
# object with pipelined Properties.Get calls: the daemon dispatches at most 64 D-Bus messages per
# loop turn, so the socket keeps being served.
set -euo pipefail

COUNT=100
# Pauses/plays are spaced past the gate's 250 ms coalescing window, so each is the window's
# first change, which goes out at once (a burst would be merged, as it should be).
GAP=0.3
CPU=0
BUILD=1
while [ $# -gt 0 ]; do
    case "$1" in
        --count) COUNT=$2; shift 2 ;;
        --cpu) CPU=$2; shift 2 ;;
        --no-build) BUILD=0; shift ;;
        -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "bench-mpris.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done

NAME=bench-mpris.sh
. "$(dirname "$0")/lib-bench.sh"
bench_build daemon
bench_tmp ph-mpris

export DBUS_SESSION_BUS_ADDRESS="unix:path=$TMP/bus"
taskset -c "$CPU" dbus-daemon --session --nofork --nopidfile --address="$DBUS_SESSION_BUS_ADDRESS" \
    --print-address=1 >"$TMP/addr" 2>/dev/null &
BENCH_PIDS+=($!)
timeout 10 sh -c "until [ -s '$TMP/addr' ]; do sleep 0.05; done"

cat >"$TMP/c.toml" <<'TOML'
[[session]]
id = "main"
kind = "main"
category = "playback"
activate = true
bind_defaults = true
autoplay = true
[[session.item]]
title = "Bench"
duration = 100000
TOML
start_daemon "$TMP/c.sock" --config "$TMP/c.toml"
gdbus wait --session --timeout 10 org.mpris.MediaPlayer2.playerhost

taskset -c "$CPU" dbus-monitor --profile \
    "type='signal',path='/org/mpris/MediaPlayer2',member='PropertiesChanged'" \
    "type='signal',member='NameLost'" >"$TMP/mon" 2>/dev/null &
MONPID=$!
BENCH_PIDS+=("$MONPID")
timeout 10 sh -c "until grep -q NameLost '$TMP/mon'; do sleep 0.05; done"

taskset -c "$CPU" python3 - "$TMP/c.sock" "$COUNT" "$TMP/sent" "$GAP" <<'PY'
import json, socket, sys, time
path, count, out, gap = sys.argv[1], int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
s = socket.socket(socket.AF_UNIX)
s.connect(path)
f = s.makefile("rwb", buffering=0)
sent = []
for i in range(count):
    cmd = "pause" if i % 2 == 0 else "play"
    line = json.dumps({"jsonrpc": "2.0", "id": i, "method": "command.send", "params": {"command": cmd}}) + "\n"
    t = time.time()
    f.write(line.encode())
    reply = json.loads(f.readline())
    assert reply.get("result", {}).get("status") == "success", reply
    sent.append(t)
    time.sleep(gap)
open(out, "w").write("\n".join(repr(t) for t in sent))
PY
sleep 0.2  # the last signal's way through dbus-monitor
kill "$MONPID" 2>/dev/null || true

python3 - "$TMP/sent" "$TMP/mon" <<'PY'
import sys, bisect
sent = [float(x) for x in open(sys.argv[1]).read().split()]
sigs = sorted(float(l.split("\t")[1]) for l in open(sys.argv[2])
              if l.startswith("sig") and "PropertiesChanged" in l)
lat = []
for t in sent:
    i = bisect.bisect_left(sigs, t)
    if i < len(sigs):
        lat.append((sigs[i] - t) * 1e6)
lat.sort()
if len(lat) < len(sent):
    print(f"warning: {len(sent) - len(lat)} pauses/plays without a PropertiesChanged")
p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]
print(f"pause/play -> PropertiesChanged on the bus: n={len(lat)} p50={p(0.5):.0f} us p90={p(0.9):.0f} us max={lat[-1]:.0f} us")
PY

# --- host.ping rate, alone and under a D-Bus flood ---
cat >"$TMP/ping.py" <<'PY'
import json, socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
f = s.makefile("rwb", buffering=0)
n, end = 0, time.time() + float(sys.argv[2])
while time.time() < end:
    f.write(b'{"jsonrpc":"2.0","id":1,"method":"host.ping"}\n')
    f.readline()
    n += 1
print(n / float(sys.argv[2]))
PY
cat >"$TMP/flood.py" <<'PY'
# A minimal D-Bus client (EXTERNAL auth, Hello, then Properties.Get as fast as the socket takes
# them); replies are read and dropped by a second thread.
import os, socket, struct, sys, threading
def marshal(serial, path, iface, member, dest, sig=None, body=b""):
    b = bytearray(b"l\x01\x00\x01") + struct.pack("<II", len(body), serial)
    def align(n): b.extend(b"\0" * ((-len(b)) % n))
    def string(v):
        align(4); e = v.encode(); b.extend(struct.pack("<I", len(e)) + e + b"\0")
    def signature(v):
        e = v.encode(); b.extend(bytes([len(e)]) + e + b"\0")
    lenpos = len(b); b.extend(b"\0\0\0\0"); align(8); start = len(b)
    fields = [(1, "o", path), (2, "s", iface), (3, "s", member), (6, "s", dest)] + ([(8, "g", sig)] if sig else [])
    for code, t, v in fields:
        align(8); b.append(code); signature(t)
        string(v) if t in "so" else signature(v)
    struct.pack_into("<I", b, lenpos, len(b) - start)
    align(8)
    return bytes(b) + body
def body_ss(a, c):
    out = bytearray()
    for v in (a, c):
        out.extend(b"\0" * ((-len(out)) % 4)); e = v.encode(); out.extend(struct.pack("<I", len(e)) + e + b"\0")
    return bytes(out)
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"\0AUTH EXTERNAL " + str(os.getuid()).encode().hex().encode() + b"\r\n")
assert s.recv(4096).startswith(b"OK")
s.sendall(b"BEGIN\r\n")
s.sendall(marshal(1, "/org/freedesktop/DBus", "org.freedesktop.DBus", "Hello", "org.freedesktop.DBus"))
threading.Thread(target=lambda: [s.recv(1 << 16) for _ in iter(int, 1)], daemon=True).start()
body = body_ss("org.mpris.MediaPlayer2.Player", "Metadata")
serial = 2
while True:
    batch = b"".join(marshal(serial + i, "/org/mpris/MediaPlayer2", "org.freedesktop.DBus.Properties", "Get",
                             "org.mpris.MediaPlayer2.playerhost", "ss", body) for i in range(256))
    serial += 256
    s.sendall(batch)
PY
ALONE=$(taskset -c "$CPU" python3 "$TMP/ping.py" "$TMP/c.sock" 2)
taskset -c 1 python3 "$TMP/flood.py" "$TMP/bus" &
BENCH_PIDS+=($!)
FLOODED=$(taskset -c "$CPU" python3 "$TMP/ping.py" "$TMP/c.sock" 2)
STATS=$(python3 -c "
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.connect('$TMP/c.sock'); f = s.makefile('rwb', buffering=0)
f.write(b'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"host.stats\"}\n')
print(json.loads(f.readline())['result']['mpris'].get('messagesDispatched'))")
echo "D-Bus messages the daemon dispatched (Hello, name, flood): $STATS"
python3 -c "print(f'host.ping alone: {float($ALONE):.0f}/s; while a client floods Get: {float($FLOODED):.0f}/s ({100*float($FLOODED)/float($ALONE):.0f}%)')"
