#!/usr/bin/python3
"""A call through a built-in plugin, against a real playerhostd (release build):

  scripts/bench-builtin-link.py [BIN ...]   (default: .build/release/playerhostd)

For each binary, in one run: the round trip of `host.ping` (the core answers) and of
`remote.status` (the core forwards it to the built-in web remote over the plugin's connection,
which answers), medians of 5 × 5000 sequential calls, in µs; their difference is what the hop to
the built-in costs. Also the daemon's open descriptors at idle. The daemon is pinned to CPU 0,
this client to CPU 1 (start it with `taskset -c 1`); MPV off, no session bus, no user files.
"""
import os, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ph_client import Client  # noqa: E402


def measure(binary):
    d = tempfile.mkdtemp()
    env = dict(os.environ, HOME=d, XDG_CONFIG_HOME=d + "/c", XDG_STATE_HOME=d + "/s", XDG_CACHE_HOME=d + "/k",
               XDG_RUNTIME_DIR=d, PLAYERHOST_MPV="off")
    env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    sock, config = d + "/ph.sock", d + "/c.toml"
    open(config, "w").write("coalesce_ms = 100\n")
    p = subprocess.Popen(["taskset", "-c", "0", binary, "--socket", sock, "--config", config],
                         env=env, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                c = Client(sock)
                break
            except OSError:
                if time.monotonic() > deadline or p.poll() is not None:
                    raise SystemExit(f"{binary} did not start")
                time.sleep(0.02)
        result = {}
        for method in ["host.ping", "remote.status"]:
            for _ in range(500):
                c.call(method)
            samples = []
            for _ in range(5):
                t, n = time.perf_counter(), 5000
                for _ in range(n):
                    c.call(method)
                samples.append((time.perf_counter() - t) / n * 1e6)
            result[method] = statistics.median(samples)
        fds = len(os.listdir(f"/proc/{p.pid}/fd"))
    finally:
        p.terminate()
        p.wait()
        subprocess.run(["rm", "-rf", d])
    hop = result["remote.status"] - result["host.ping"]
    print(f"{binary}: host.ping {result['host.ping']:.1f} µs, remote.status {result['remote.status']:.1f} µs "
          f"(the hop to the built-in: {hop:.1f} µs), {fds} descriptors open at idle")


for b in sys.argv[1:] or [".build/release/playerhostd"]:
    measure(b)
