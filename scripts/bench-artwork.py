#!/usr/bin/env python3
"""Artwork benchmark: a real playerhostd resolving covers, measured from a client.

  scripts/bench-artwork.py [--bin DIR] [--count N] [--cpu C]

Starts playerhostd (pinned to one CPU with taskset when available) with a private socket and
cache, makes a 1000x1000 JPEG cover and two mp3 files carrying it (ffmpeg), and measures, from
`info.update` sent to the `info` event carrying `artwork.image` received:
  embedded  a track whose media file has the cover (the helper extracts, validates, caches it)
  cache     a track whose artwork id is already cached (no helper, no decoding)
and the daemon's RSS after a few covers and after COUNT more (it must not grow: the helper holds
the decoders). Prints p50/p90 in ms and RESULT lines.
"""
from ph_client import Client
import argparse, os, shutil, subprocess, sys, tempfile, time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=None)
    ap.add_argument("--count", type=int, default=200)
    ap.add_argument("--cpu", default="0", help="CPU to pin the daemon (and its helper) to, or none")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    bindir = a.bin or subprocess.check_output(["swift", "build", "--show-bin-path"], cwd=root, text=True).strip()
    tmp = tempfile.mkdtemp(prefix="phart-")
    daemon = None
    try:
        cover = os.path.join(tmp, "cover.jpg")
        subprocess.check_call(["ffmpeg", "-loglevel", "error", "-f", "lavfi", "-i", "testsrc=s=1000x1000",
                               "-frames:v", "1", cover])
        songs = []
        for n in ("a", "b"):
            p = os.path.join(tmp, n + ".mp3")
            subprocess.check_call(["ffmpeg", "-loglevel", "error", "-f", "lavfi", "-i", "sine=duration=5", "-i", cover,
                                   "-map", "0", "-map", "1", "-c:a", "libmp3lame", "-c:v", "copy",
                                   "-disposition:v", "attached_pic", p])
            songs.append(p)
        sock = os.path.join(tmp, "s.sock")
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"))
        cmd = [os.path.join(bindir, "playerhostd"), "--socket", sock, "--state-dir", os.path.join(tmp, "state")]
        if a.cpu != "none" and shutil.which("taskset"):
            cmd = ["taskset", "-c", a.cpu] + cmd
        daemon = subprocess.Popen(cmd, env=env, stderr=subprocess.DEVNULL)
        deadline = time.time() + 20
        while not os.path.exists(sock):
            if time.time() > deadline or daemon.poll() is not None:
                sys.exit("playerhostd did not start")
            time.sleep(0.05)
        c = Client(sock)
        c.call("session.create", {"id": "b", "kind": "main", "automaticallyPublishes": False})
        c.call("events.subscribe", {"topics": ["info"]})
        pid = c.call("host.stats")["pid"]

        def measure(label, info_for):
            times = []
            for i in range(a.count):
                title = f"{label} {i}"
                info = dict(info_for(i), title=title)
                t0 = time.perf_counter()
                c.call("info.update", {"session": "b", "info": info})
                c.wait(lambda p: p.get("info", {}).get("title") == title and "image" in p.get("info", {}).get("artwork", {}))
                times.append((time.perf_counter() - t0) * 1000)
            times.sort()
            p50, p90 = times[len(times) // 2], times[int(len(times) * 0.9)]
            print(f"{label:9s} p50 {p50:6.2f} ms  p90 {p90:6.2f} ms  ({a.count} tracks)")
            print(f"RESULT artwork.{label}.p50_ms={p50:.3f} artwork.{label}.p90_ms={p90:.3f}")

        # Warm up: the helper starts on first use.
        measure("warmup", lambda i: {"assetURL": songs[i % 2], "artwork": None})
        rss0 = rss(pid)
        measure("embedded", lambda i: {"assetURL": songs[i % 2], "artwork": None})
        # Two ids resolved once from the file, then always found in the cache.
        measure("cache", lambda i: {"assetURL": None, "artwork": {"id": f"cached-{i % 2}", "sources": [cover]}})
        rss1 = rss(pid)
        print(f"RSS after warm-up {rss0} KiB, after {2 * a.count} more covers {rss1} KiB")
        print(f"RESULT artwork.rss_before_kb={rss0} artwork.rss_after_kb={rss1}")
        c.call("host.shutdown")
        daemon.wait(timeout=20)
    finally:
        if daemon and daemon.poll() is None:
            daemon.kill()
        shutil.rmtree(tmp, ignore_errors=True)


def rss(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return -1


if __name__ == "__main__":
    main()
