#!/usr/bin/python3
"""Web remote benchmark (issue 25), against a real playerhostd it starts with [remote] on loopback:

  scripts/bench-remote.py [--bin DIR] [--remotes 200] [--steady 30] [--seconds 10] [--rounds 1]
                          [--dom 20] [--idle 10] [--cpu 0|none] [--nice N]

Prints, side by side in one run:
  change→DOM   a host change (command.send from the socket) to the page's DOM showing it, in a real
               headless Chromium (p50/p95, ms); skipped without chromium/chromedriver/selenium
  steady       messages per minute a page gets during steady playback (must be 0)
  ping         a socket client's host.ping p50/p99 (ms) with 0 and with N remotes connected, while
               the host changes once a second (p99 must stay within 1.5× of none); --rounds K
               alternates the two K times in the run (0, N, 0, N, …) and pools each side
  idle         the daemon's wake-ups (voluntary context switches: each is a return from epoll_wait)
               over --idle seconds with N remotes connected and nothing playing
Protocol-level remotes (python3-websockets), not N browsers. The daemon and the ping client share
--cpu (as scripts/lib-bench.sh pins a server and its client); the remotes' process runs on the
other core, so the time Python takes to read 200 messages is not counted as the daemon's.
"""
import argparse, asyncio, multiprocessing, http.client, json, os, shutil, statistics, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ph_client import Client  # noqa: E402
import websockets  # noqa: E402

CONFIG = """
[[session]]
id = "main"
kind = "main"
category = "playback"
activate = true
bind_defaults = true
autoplay = true
[[session.item]]
title = "Magnificent"
artist = "U2"
duration = 100000

[remote]
listen = "127.0.0.1:0"
max_connections = 1000
"""


def pct(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, int(len(v) * p / 100))]


def wakeups(pid):
    """Voluntary context switches of every thread of the daemon (a thread that sleeps in epoll and
    wakes counts one each time)."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                fields = dict(line.split(":", 1) for line in f if "ctxt_switches" in line)
            total += int(fields["voluntary_ctxt_switches"])
        except (FileNotFoundError, KeyError):
            pass
    return total


def loop_cpu_ms(pid):
    """CPU time of the daemon's loop thread (its main thread), in ms."""
    with open(f"/proc/{pid}/task/{pid}/schedstat") as f:
        return int(f.read().split()[0]) / 1e6


def pin(cpus):
    if cpus is not None and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, cpus)


class Remotes:
    """N page connections in a process of their own (so their reading never holds the ping
    client's interpreter lock), each reading and counting every message."""

    def __init__(self, host, port, token, n, cpus=None):
        self.counter = multiprocessing.Value("l", 0)
        self.ready = multiprocessing.Event()
        self.stop = multiprocessing.Event()
        self.process = multiprocessing.Process(target=run_remotes,
                                               args=(host, port, token, n, self.counter, self.ready, self.stop, cpus),
                                               daemon=True)
        self.process.start()
        if not self.ready.wait(60):
            sys.exit("the remotes did not connect")

    @property
    def messages(self):
        return self.counter.value

    def close(self):
        self.stop.set()
        self.process.join(10)


def run_remotes(host, port, token, n, counter, ready, stop, cpus):
    pin(cpus)
    url, origin = f"ws://{host}:{port}/ws", f"http://{host}:{port}"
    connected = 0

    async def one():
        nonlocal connected
        async with websockets.connect(url, extra_headers={"Cookie": "ph_remote=" + token}, origin=origin,
                                      ping_interval=None, open_timeout=30) as ws:
            await ws.recv()  # the state on connect
            connected += 1
            if connected == n:
                ready.set()
            async for _ in ws:
                with counter.get_lock():
                    counter.value += 1

    async def main():
        tasks = [asyncio.ensure_future(one()) for _ in range(n)]
        while not stop.is_set():
            await asyncio.sleep(0.1)
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(main())


def ping_run(sock, seconds):
    """host.ping round trips for `seconds`, while another client changes the host once a second."""
    c, changer = Client(sock), Client(sock)
    stop = threading.Event()

    def change():
        i = 0
        while not stop.wait(1.0):
            changer.call("command.send", {"command": "changePlaybackPosition", "position": float(100 + i), "session": "main"})
            i += 1

    t = threading.Thread(target=change, daemon=True)
    t.start()
    times, end = [], time.monotonic() + seconds
    while time.monotonic() < end:
        t0 = time.perf_counter()
        c.call("host.ping")
        times.append((time.perf_counter() - t0) * 1000)
        time.sleep(0.002)
    stop.set()
    t.join()
    return times


def browser_latency(sock, samples):
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.support.ui import WebDriverWait
    except ImportError:
        return None
    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        return None
    c = Client(sock)
    url = c.call("remote.pair", {"name": "bench-browser"})["url"]
    o = webdriver.ChromeOptions()
    o.binary_location = shutil.which("chromium")
    for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"]:
        o.add_argument(a)
    d = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=o)
    try:
        d.get(url)
        WebDriverWait(d, 15).until(lambda d: d.execute_script("return document.body.dataset.state") == "playing")
        d.execute_script("""window.__seen = [];
            new MutationObserver(() => window.__seen.push([document.body.dataset.state, Date.now()]))
              .observe(document.body, {attributes: true, attributeFilter: ['data-state']});""")
        out = []
        state = "playing"
        for _ in range(samples):
            want = "paused" if state == "playing" else "playing"
            d.execute_script("window.__seen = []")
            t0 = time.time() * 1000
            c.call("command.send", {"command": "pause" if want == "paused" else "play", "session": "main"})
            WebDriverWait(d, 5, poll_frequency=0.01).until(
                lambda d: any(s == want for s, _ in d.execute_script("return window.__seen")))
            seen = [t for s, t in d.execute_script("return window.__seen") if s == want]
            out.append(seen[0] - t0)
            state = want
            time.sleep(0.1)
        return out
    finally:
        d.quit()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=None)
    ap.add_argument("--remotes", type=int, default=200)
    ap.add_argument("--steady", type=float, default=30, help="seconds of steady playback counted")
    ap.add_argument("--seconds", type=float, default=10, help="seconds of pings per run")
    ap.add_argument("--rounds", type=int, default=1, help="0-remote and N-remote ping runs, alternated")
    ap.add_argument("--dom", type=int, default=20, help="change→DOM samples in Chromium (0 skips)")
    ap.add_argument("--idle", type=float, default=10, help="seconds the idle wake-ups are counted over")
    ap.add_argument("--cpu", default="0")
    ap.add_argument("--nice", type=int, default=None, help="run the daemon and the clients at this priority")
    a = ap.parse_args()
    if a.nice is not None:
        os.nice(a.nice)
    one_cpu = None if a.cpu == "none" else {int(a.cpu)}
    other_cpus = None if one_cpu is None else (set(range(os.cpu_count() or 1)) - one_cpu) or one_cpu
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    bindir = a.bin or subprocess.check_output(["swift", "build", "--show-bin-path"], cwd=root, text=True).strip()
    tmp = tempfile.mkdtemp(prefix="phremote-")
    daemon = None
    try:
        with open(os.path.join(tmp, "config.toml"), "w") as f:
            f.write(CONFIG)
        sock = os.path.join(tmp, "s.sock")
        cmd = [os.path.join(bindir, "playerhostd"), "--socket", sock, "--state-dir", os.path.join(tmp, "state"),
               "--config", os.path.join(tmp, "config.toml"), "--log-level", "warning"]
        if a.cpu != "none" and shutil.which("taskset"):
            cmd = ["taskset", "-c", a.cpu] + cmd
        daemon = subprocess.Popen(cmd, env=dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache")), stderr=subprocess.DEVNULL)
        deadline = time.time() + 20
        while not os.path.exists(sock):
            if time.time() > deadline or daemon.poll() is not None:
                sys.exit("playerhostd did not start")
            time.sleep(0.05)
        c = Client(sock)
        pid = c.call("host.stats")["pid"]
        base = c.call("remote.status")["url"]
        host, port = base.split("//")[1].split(":")
        pair = c.call("remote.pair", {"name": "bench"})["url"]
        h = http.client.HTTPConnection(host, int(port), timeout=5)
        h.request("GET", pair.split(base)[1])
        token = h.getresponse().getheader("Set-Cookie").split(";")[0].split("=", 1)[1]
        h.close()  # a kept-alive HTTP connection holds lws' header table, which it checks every second

        dom = browser_latency(sock, a.dom) if a.dom > 0 else None
        pin(one_cpu)  # the ping client beside the daemon (Chromium, started before, is not pinned)

        one = Remotes(host, port, token, 1, other_cpus)
        time.sleep(a.steady)
        steady = one.messages * 60 / a.steady
        one.close()

        none, loaded, rounds, sent_during, cpu0, cpu1 = [], [], [], 0, 0.0, 0.0
        for r in range(a.rounds):
            t = loop_cpu_ms(pid)
            n0 = ping_run(sock, a.seconds)
            cpu0 += loop_cpu_ms(pid) - t
            many = Remotes(host, port, token, a.remotes, other_cpus)
            t = loop_cpu_ms(pid)
            n1 = ping_run(sock, a.seconds)
            cpu1 += loop_cpu_ms(pid) - t
            sent_during += many.messages
            none += n0
            loaded += n1
            rounds.append((pct(n0, 99), pct(n1, 99)))
            if r + 1 < a.rounds:
                many.close()
        c.call("command.send", {"command": "pause", "session": "main"})
        time.sleep(3)  # the pause itself (its state saved, its message to every page) settles first
        w0 = wakeups(pid)
        time.sleep(a.idle)
        idle_count = wakeups(pid) - w0
        idle = idle_count / a.idle
        many.close()

        if dom:
            print(f"change→DOM        p50 {statistics.median(dom):.1f} ms   p95 {pct(dom, 95):.1f} ms   ({len(dom)} changes, headless Chromium)")
        else:
            print("change→DOM        skipped (needs chromium, chromedriver, python3-selenium)")
        print(f"steady playback   {steady:.1f} messages/min to a page (over {a.steady:.0f} s)")
        print(f"host.ping         0 remotes: p50 {statistics.median(none):.3f} ms  p99 {pct(none, 99):.3f} ms   |   "
              f"{a.remotes} remotes: p50 {statistics.median(loaded):.3f} ms  p99 {pct(loaded, 99):.3f} ms   "
              f"(ratio p99 {pct(loaded, 99) / pct(none, 99):.2f}; one change/s, {sent_during} messages to the remotes)")
        print(f"                  p99.9 {pct(none, 99.9):.3f} → {pct(loaded, 99.9):.3f} ms   max {max(none):.3f} → {max(loaded):.3f} ms   "
              f"({len(none)} and {len(loaded)} pings; the loop turn that writes a change to every page is in the tail)")
        per_change = (cpu1 - cpu0) / (a.rounds * int(a.seconds))
        print(f"loop CPU          {cpu0 / (a.rounds * a.seconds):.2f} → {cpu1 / (a.rounds * a.seconds):.2f} ms/s: "
              f"a change to {a.remotes} pages costs the loop ~{per_change:.2f} ms")
        if a.rounds > 1:
            print("per round p99     " + "   ".join(f"{x:.3f} → {y:.3f} ms ({y / x:.2f}×)" for x, y in rounds))
        print(f"idle              {idle_count} wake-ups in {a.idle:.0f} s ({idle:.1f}/s) with {a.remotes} remotes connected, nothing playing")
        print(f"RESULT remote_dom_p50_ms={statistics.median(dom) if dom else -1:.1f} remote_steady_per_min={steady:.1f} "
              f"ping_p99_ratio={pct(loaded, 99) / pct(none, 99):.2f} idle_wakeups_per_s={idle:.1f} idle_wakeups={idle_count} change_cost_ms={per_change:.2f}")
    finally:
        if daemon:
            daemon.terminate()
            daemon.wait(20)
        shutil.rmtree(tmp, ignore_errors=True)


main()
