#!/usr/bin/env python3
"""State-file write benchmark (issue 12): the loop's share of one state write with N host sessions.

Starts one playerhostd (pinned with taskset unless --cpu none) on a private socket and state
directory, creates N host sessions of 3 items each (pipelined), waits for the big first write,
then R times: one player.seek on one session, and waits (polling host.stats, deadline 30 s) for
the write it causes. Prints, per round, host.stats.state's lastPrepareMicroseconds (the loop:
capture of what changed + hand-over), lastWriteMicroseconds (the worker: join + temp file +
fsync + rename + directory fsync) and captures, then the medians.

    scripts/bench-state.py --daemon .build/release/playerhostd [--sessions 10000] [--rounds 5] [--cpu 0]
"""
import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ap = argparse.ArgumentParser()
ap.add_argument("--daemon", required=True)
ap.add_argument("--sessions", type=int, default=10000)
ap.add_argument("--rounds", type=int, default=5)
ap.add_argument("--cpu", default="0")
args = ap.parse_args()

tmp = tempfile.mkdtemp(prefix="ph-state.")
sock_path = os.path.join(tmp, "s")
with open(os.path.join(tmp, "c.toml"), "w") as f:
    f.write(f"max_sessions_per_app = {args.sessions * 2}\n")
cmd = [args.daemon, "--socket", sock_path, "--config", os.path.join(tmp, "c.toml"),
       "--state-dir", os.path.join(tmp, "state"), "--log-level", "warning"]
if args.cpu != "none":
    cmd = ["taskset", "-c", args.cpu] + cmd
daemon = subprocess.Popen(cmd, stderr=open(os.path.join(tmp, "log"), "w"))


class Conn:
    def __init__(self):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(sock_path)
        self.f = self.s.makefile("rb")
        self.next_id = 1

    def send(self, method, params):
        self.s.sendall((json.dumps({"jsonrpc": "2.0", "method": method, "params": params, "id": self.next_id}) + "\n").encode())
        self.next_id += 1

    def reply(self):
        while True:
            msg = json.loads(self.f.readline())
            if "id" in msg:
                if "error" in msg:
                    sys.exit(f"bench-state.py: {msg['error']}")
                return msg.get("result")

    def call(self, method, params=None):
        self.send(method, params or {})
        return self.reply()


try:
    deadline = time.monotonic() + 30
    while not os.path.exists(sock_path):
        if time.monotonic() > deadline or daemon.poll() is not None:
            sys.exit("bench-state.py: the daemon did not start")
        time.sleep(0.05)
    c = Conn()
    items = [{"title": f"T{k}", "artist": "A", "duration": 200 + k} for k in range(3)]
    t0 = time.monotonic()
    batch = 256
    for start in range(0, args.sessions, batch):
        ids = range(start, min(start + batch, args.sessions))
        for i in ids:
            c.send("session.create", {"id": f"s{i}", "kind": "main"})
            c.send("player.load", {"session": f"s{i}", "items": items})
        for _ in ids:
            c.reply()
            c.reply()
    print(f"created {args.sessions} host sessions of 3 items in {time.monotonic() - t0:.2f} s")

    def settle(writes_before):
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            st = c.call("host.stats")["state"]
            if st["writes"] > writes_before and not st["pending"]:
                return st
            time.sleep(0.02)
        sys.exit("bench-state.py: no write within the deadline")

    st = settle(0)
    size = os.path.getsize(os.path.join(tmp, "state", "state.json"))
    print(f"first write: loop {st['lastPrepareMicroseconds']} us, worker {st['lastWriteMicroseconds']} us, file {size / 1e6:.1f} MB")
    loop_us, worker_us = [], []
    for r in range(args.rounds):
        before = st["writes"]
        captures = st["captures"]
        c.call("player.seek", {"session": f"s{r % args.sessions}", "position": 10 + r})
        st = settle(before)
        loop_us.append(st["lastPrepareMicroseconds"])
        worker_us.append(st["lastWriteMicroseconds"])
        print(f"round {r + 1}: loop {st['lastPrepareMicroseconds']} us, worker {st['lastWriteMicroseconds']} us, captures {st['captures'] - captures}")
    print(f"median: loop {statistics.median(loop_us):.0f} us (min {min(loop_us)}, max {max(loop_us)}), "
          f"worker {statistics.median(worker_us):.0f} us")
    print(f"RESULT sessions={args.sessions} loop_us={statistics.median(loop_us):.0f} worker_us={statistics.median(worker_us):.0f} file_bytes={size}")
finally:
    daemon.terminate()
    try:
        daemon.wait(timeout=30)
    except subprocess.TimeoutExpired:
        daemon.kill()
    shutil.rmtree(tmp, ignore_errors=True)
