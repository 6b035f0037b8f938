#!/usr/bin/python3
"""Issue 21 item 9: one caller piles calls at a provided method whose plugin never answers,
while another client pings. Prints the daemon's RSS before/after and the ping latencies.

usage: pending-call-flood.py SOCKET DAEMON_PID [CALLS]
The provider reads its calls (so nothing backs up on its socket) but never answers them."""
import json, socket, sys, threading, time

path, pid = sys.argv[1], int(sys.argv[2])
calls = int(sys.argv[3]) if len(sys.argv) > 3 else 134_000

def rss_mib():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0

def connect():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s

def call(s, f, method, params=None, id=1):
    s.sendall((json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": params or {}}) + "\n").encode())
    return json.loads(f.readline())

provider = connect()
pf = provider.makefile("rb")
call(provider, pf, "plugin.provide", {"methods": ["slow.never"]})
def drain():
    while provider.recv(1 << 16):
        pass
threading.Thread(target=drain, daemon=True).start()

pinger = connect()
gf = pinger.makefile("rb")
call(pinger, gf, "host.ping")
before = rss_mib()

caller = connect()
replies = {"n": 0, "refused": 0}
def read_replies():
    f = caller.makefile("rb")
    for line in f:
        m = json.loads(line)
        replies["n"] += 1
        if m.get("error", {}).get("code") == 1050:
            replies["refused"] += 1
threading.Thread(target=read_replies, daemon=True).start()
def flood():
    batch = b"".join((json.dumps({"jsonrpc": "2.0", "id": i, "method": "slow.never"}) + "\n").encode()
                     for i in range(calls))
    try:
        caller.sendall(batch)
    except OSError as e:
        print("caller cut off:", e)
t = threading.Thread(target=flood)
t0 = time.time()
t.start()
lat = []
while t.is_alive() or len(lat) < 2000:
    a = time.perf_counter()
    call(pinger, gf, "host.ping")
    lat.append((time.perf_counter() - a) * 1000)
    if len(lat) >= 20000:
        break
t.join()
peak = rss_mib()
lat.sort()
p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]
print(json.dumps({"calls": calls, "sentIn_s": round(time.time() - t0, 2), "repliesSoFar": replies["n"],
                  "refused1050": replies["refused"], "rssBeforeMiB": round(before, 1), "rssAfterMiB": round(peak, 1),
                  "rssGrowthMiB": round(peak - before, 1), "pings": len(lat),
                  "pingP50ms": round(p(0.5), 3), "pingP99ms": round(p(0.99), 3), "pingMaxms": round(lat[-1], 3)}))
