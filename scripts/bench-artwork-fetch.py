#!/usr/bin/env python3
"""Artwork fetch benchmark (issue 21, item 14): N sessions fetch N large covers at once.

  scripts/bench-artwork-fetch.py [--bin DIR] [--sessions N] [--mib M]

Serves an M MiB PNG (random pixels, stored uncompressed, so it is a real image of about M MiB)
from a local http.server on 127.0.0.1, starts playerhostd with a private socket and cache, gives
N sessions one URL each at once, and measures until every session's artwork settled:
  ping   host.ping round trips on their own connection, one every 5 ms (p50, p99, max)
  rss    the daemon's VmRSS peak over its value before (and its helpers' summed VmRSS peak)
  tmp    the peak bytes of temporary files (tmp.*) in the cache directory
Prints RESULT lines. Nothing here is a test: figures depend on the machine.
"""
from ph_client import Client
import argparse, http.server, os, shutil, struct, subprocess, sys, tempfile, threading, time, zlib


def png(width, height):
    """A valid RGBA PNG of random pixels, stored (zlib level 0): its size is about 4*w*h bytes."""
    raw = bytearray()
    row = width * 4
    noise = os.urandom(row * height)
    for y in range(height):
        raw += b"\x00" + noise[y * row:(y + 1) * row]

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(bytes(raw), 0)) + chunk(b"IEND", b"")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=None, help="directory holding playerhostd and playerhost-artwork")
    ap.add_argument("--sessions", type=int, default=32)
    ap.add_argument("--mib", type=int, default=16)
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    bindir = a.bin or subprocess.check_output(["swift", "build", "--show-bin-path"], cwd=root, text=True).strip()
    tmp = tempfile.mkdtemp(prefix="phfetch-")
    daemon = None
    try:
        side = int(((a.mib << 20) // 4 * 0.99) ** 0.5)
        body = png(side, side)
        assert len(body) <= a.mib << 20, len(body)

        class H(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    self.wfile.write(body)
                except Exception:
                    pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        port = server.server_address[1]

        config = os.path.join(tmp, "config.toml")
        with open(config, "w") as f:
            f.write(f"artwork_max_kb = {(a.mib << 10) + 64}\nartwork_timeout_ms = 120000\nartwork_cache_mb = 4096\n")
        sock = os.path.join(tmp, "s.sock")
        cache = os.path.join(tmp, "cache", "playerhost", "artwork")
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"))
        daemon = subprocess.Popen([os.path.join(bindir, "playerhostd"), "--socket", sock, "--config", config,
                                   "--state-dir", os.path.join(tmp, "state")], env=env, stderr=subprocess.DEVNULL)
        deadline = time.time() + 20
        while not os.path.exists(sock):
            if time.time() > deadline or daemon.poll() is not None:
                sys.exit("playerhostd did not start")
            time.sleep(0.05)
        control = Client(sock)
        pid = control.call("host.stats")["pid"]
        for i in range(a.sessions):
            control.call("session.create", {"id": f"f{i}", "kind": "main", "automaticallyPublishes": False})
        events = Client(sock)
        events.call("events.subscribe", {"topics": ["artwork"]})
        pinger = Client(sock)
        for _ in range(50):
            pinger.call("host.ping")
        rss0 = rss(pid)

        done = threading.Event()
        pings, peaks = [], {"rss": rss0, "helpers": 0, "tmp": 0}

        def ping():
            # One ping every 5 ms (not back to back): the distribution then weighs time evenly,
            # so a loop stalled for a second shows in the p99 instead of being outnumbered by
            # thousands of fast pings in the quiet moments.
            while not done.is_set():
                t0 = time.perf_counter()
                pinger.call("host.ping")
                pings.append((time.perf_counter() - t0) * 1000)
                time.sleep(max(0, 0.005 - (time.perf_counter() - t0)))

        def sample():
            while not done.is_set():
                peaks["rss"] = max(peaks["rss"], rss(pid))
                peaks["helpers"] = max(peaks["helpers"], sum(rss(c) for c in children(pid)))
                total = 0
                try:
                    for name in os.listdir(cache):
                        if name.startswith("tmp."):
                            try:
                                total += os.stat(os.path.join(cache, name)).st_size
                            except OSError:
                                pass
                except OSError:
                    pass
                peaks["tmp"] = max(peaks["tmp"], total)
                time.sleep(0.005)

        threads = [threading.Thread(target=ping), threading.Thread(target=sample)]
        for t in threads:
            t.start()
        t0 = time.time()
        for i in range(a.sessions):
            control.call("info.update", {"session": f"f{i}", "info": {
                "title": f"Fetch {i}", "artwork": {"id": f"big-{i}", "sources": [f"http://127.0.0.1:{port}/img/{i}"]}}})
        settled, failed = set(), []
        while len(settled) < a.sessions and time.time() - t0 < 300:
            e = events.next_event()
            if e.get("topic") == "artwork":
                settled.add(e["session"])
                if "error" in e:
                    failed.append(e["error"])
        elapsed = time.time() - t0
        done.set()
        for t in threads:
            t.join()
        pings.sort()
        n = len(pings)
        p50, p99, mx = pings[n // 2], pings[min(n - 1, int(n * 0.99))], pings[-1]
        print(f"{a.sessions} fetches of {len(body)} bytes: settled {len(settled)} ({len(failed)} failed) in {elapsed:.1f} s")
        if failed:
            print("  first failure:", failed[0])
        print(f"ping        p50 {p50:.2f} ms  p99 {p99:.2f} ms  max {mx:.2f} ms  ({n} pings)")
        print(f"daemon RSS  {rss0} KiB before, peak {peaks['rss']} KiB (+{(peaks['rss'] - rss0) / 1024:.1f} MiB)")
        print(f"helpers RSS peak {peaks['helpers'] / 1024:.1f} MiB (summed)")
        print(f"tmp files   peak {peaks['tmp'] / (1 << 20):.1f} MiB")
        print(f"RESULT fetch.ping_p50_ms={p50:.2f} fetch.ping_p99_ms={p99:.2f} fetch.ping_max_ms={mx:.2f} "
              f"fetch.rss_delta_mib={(peaks['rss'] - rss0) / 1024:.1f} fetch.helpers_rss_mib={peaks['helpers'] / 1024:.1f} "
              f"fetch.tmp_peak_mib={peaks['tmp'] / (1 << 20):.1f} fetch.seconds={elapsed:.1f} fetch.failed={len(failed)}")
        control.call("host.shutdown")
        daemon.wait(timeout=30)
        server.shutdown()
    finally:
        if daemon and daemon.poll() is None:
            daemon.kill()
        shutil.rmtree(tmp, ignore_errors=True)


def rss(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def children(pid):
    out = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                out += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return out


if __name__ == "__main__":
    main()
