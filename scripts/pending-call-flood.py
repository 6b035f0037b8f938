#!/usr/bin/python3
"""Issue 21 item 9: one caller piles calls at a provided method whose plugin never answers,
while another client pings. Prints the daemon's RSS before/after and the ping latencies.

usage: pending-call-flood.py SOCKET DAEMON_PID [CALLS] [SECONDS]
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
    try:
        for line in f:
            m = json.loads(line)
            replies["n"] += 1
            if m.get("error", {}).get("code") == 1050:
                replies["refused"] += 1
    except OSError:
        pass
threading.Thread(target=read_replies, daemon=True).start()
def flood():
    batch = b"".join((json.dumps({"jsonrpc": "2.0", "id": i, "method": "slow.never"}) + "\n").encode()
                     for i in range(calls))
    try:
        caller.sendall(batch)
        result["sent"] = True
    except OSError as e:
        result["cutOff"] = str(e)
result = {"sent": False, "cutOff": None}
# The daemon stops reading a caller whose replies back up: the flood may never be all sent. The
# measurement is the first SECONDS of it, the caller still connected or not.
seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 8.0
t = threading.Thread(target=flood, daemon=True)
t0 = time.time()
t.start()
lat = []
while time.time() - t0 < seconds:
    a = time.perf_counter()
    call(pinger, gf, "host.ping")
    lat.append((time.perf_counter() - a) * 1000)
peak = rss_mib()
lat.sort()
p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]
stats = call(pinger, gf, "host.stats")["result"]["server"]
print(json.dumps({"calls": calls, "seconds": seconds, "allSent": result["sent"], "callerCutOff": result["cutOff"],
                  "cutOffStalled": stats["cutOffStalled"], "repliesSoFar": replies["n"],
                  "refused1050": replies["refused"], "rssBeforeMiB": round(before, 1), "rssAfterMiB": round(peak, 1),
                  "rssGrowthMiB": round(peak - before, 1), "pings": len(lat),
                  "pingP50ms": round(p(0.5), 3), "pingP99ms": round(p(0.99), 3), "pingMaxms": round(lat[-1], 3)}))
