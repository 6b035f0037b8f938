#!/usr/bin/env python3
"""Issue 16's load figures, as clients of a running daemon (scripts/bench-fairness.sh and
scripts/soak.sh start the servers, pinned, and call one subcommand each):

  flood    SOCK --redis RSOCK       a third client's ping p50/p99 while two clients pipeline
                                    session.list (redis: GET of a value of the same size) and never
                                    read, cut off and reconnecting; both servers in the same run
  sessions SOCK                     ping p50/p99 while one app creates N sessions, then while it
                                    disconnects with them
  stalled  SOCK --pid P             daemon RSS growth with N subscribers to every topic that never
                                    read, while info events flow
  repeat   SOCK --pid P             a 1 µs item on repeat, playing: daemon CPU over 10 s, ping
  soak     SOCK --pid P             busy apps (mixed requests, out-of-process command targets) plus
                                    idle connections for --minutes; exits 1 when a check fails
  pinger   SOCK SECONDS OUT         (internal) pings every --gap ms, writes latencies in µs to OUT

Every figure is printed with its target and a `RESULT key=value …` line. Latencies are measured
by the same Python pinger for both servers, so its own overhead (tens of µs) is in both.
"""
import argparse, json, os, selectors, socket, subprocess, sys, time

HERE = os.path.abspath(__file__)
MIB = 1 << 20


# ---------- small clients ----------

class Client:
    """A blocking line client (JSON-RPC for playerhostd)."""

    def __init__(self, path, timeout=30):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.settimeout(timeout)
        self.s.connect(path)
        self.buf = b""
        self.next_id = 0

    def line(self):
        while b"\n" not in self.buf:
            chunk = self.s.recv(1 << 16)
            if not chunk:
                raise ConnectionError("server closed the connection")
            self.buf += chunk
        l, _, self.buf = self.buf.partition(b"\n")
        return l

    def call(self, method, params=None):
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "method": method, "id": self.next_id}
        if params is not None:
            msg["params"] = params
        self.s.sendall(json.dumps(msg).encode() + b"\n")
        while True:
            r = json.loads(self.line())
            if r.get("id") == self.next_id:
                if "error" in r:
                    raise RuntimeError(f"{method}: {r['error']}")
                return r.get("result")

    def close(self):
        self.s.close()


def rpc(method, params=None, id=1):
    m = {"jsonrpc": "2.0", "method": method, "id": id}
    if params is not None:
        m["params"] = params
    return json.dumps(m, separators=(",", ":")).encode() + b"\n"


def pct(xs, p):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(len(xs) * p + 0.999999) - 1))]


def ms(us):
    return f"{us / 1000:.2f} ms"


def verdict(ok):
    return "meets" if ok else "MISSES"


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for l in f:
            if l.startswith("VmRSS:"):
                return int(l.split()[1])
    return 0


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def fd_count(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


# ---------- the pinger (its own process, so the load's Python does not time it) ----------

def pinger(a):
    redis = a.protocol == "redis"
    req = b"PING\r\n" if redis else rpc("host.ping")
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(60)
    s.connect(a.sock)
    lat, end, gap = [], time.monotonic() + a.seconds, a.gap / 1000
    stop = a.stop_file
    ready = False
    while time.monotonic() < end and not (ready and stop and os.path.exists(stop)):
        t0 = time.perf_counter()
        s.sendall(req)
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = s.recv(4096)
            if not chunk:
                raise SystemExit("pinger: server closed the connection")
            buf += chunk
        lat.append((time.perf_counter() - t0) * 1e6)
        if not ready:  # the caller waits for this before it starts the load
            open(a.out + ".ready", "w").close()
            ready = True
        if gap:
            time.sleep(gap)
    with open(a.out, "w") as f:
        f.write("\n".join(f"{x:.1f}" for x in lat))


def start_pinger(sock, seconds, out, protocol="jsonrpc", gap_ms=2, stop_file=None):
    cmd = [sys.executable, HERE, "pinger", sock, str(seconds), out, "--protocol", protocol, "--gap", str(gap_ms)]
    if stop_file:
        cmd += ["--stop-file", stop_file]
    p = subprocess.Popen(cmd)
    deadline = time.monotonic() + 30
    while not os.path.exists(out + ".ready"):  # its first ping is answered: it is under way
        if p.poll() is not None or time.monotonic() > deadline:
            raise SystemExit("the pinger did not start")
        time.sleep(0.01)
    return p


def read_latencies(path):
    with open(path) as f:
        return [float(x) for x in f.read().split()]


# ---------- 2. ping under two non-reading flooders ----------

def flooder(a):
    """Pipelines `request` and never reads; when cut off, reconnects (until killed)."""
    req = (b"GET k\r\n" if a.protocol == "redis" else rpc("session.list")) * 64
    while True:
        try:
            s = socket.socket(socket.AF_UNIX)
            s.connect(a.sock)
            while True:
                s.sendall(req)
        except OSError:
            s.close()
            time.sleep(0.01)


def flood(a):
    """One server: ping p50/p99 alone, then under two flooders."""
    out = os.path.join(a.tmp, f"ping-{a.protocol}")
    flooders = []
    try:
        p = start_pinger(a.sock, a.seconds, out + "-alone", a.protocol, gap_ms=a.gap)
        p.wait()
        alone = read_latencies(out + "-alone")
        for _ in range(2):
            flooders.append(subprocess.Popen([sys.executable, HERE, "flooder", a.sock, "--protocol", a.protocol]))
        time.sleep(0.5)  # the flood is under way
        p = start_pinger(a.sock, a.seconds, out, a.protocol, gap_ms=a.gap)
        p.wait()
        flooded = read_latencies(out)
    finally:
        for f in flooders:
            f.kill()
            f.wait()
    print(f"RESULT target={a.protocol} alone_p50_us={pct(alone, .5):.0f} alone_p99_us={pct(alone, .99):.0f} "
          f"p50_us={pct(flooded, .5):.0f} p99_us={pct(flooded, .99):.0f} max_us={max(flooded):.0f} pings={len(flooded)}")


def flood_setup(a):
    """playerhostd: N sessions so session.list has a size; redis: key k of exactly that size."""
    c = Client(a.sock)
    for i in range(a.sessions):
        c.call("session.create", {"id": f"f{i}", "kind": "main"})
    c.s.sendall(rpc("session.list", id=7))
    size = len(c.line()) + 1
    c.close()
    r = socket.socket(socket.AF_UNIX)
    r.connect(a.redis)
    # GET's reply is "$<len>\r\n<value>\r\n": the value is sized so the whole reply matches.
    value_len = size - len(f"${size}\r\n") - 2
    r.sendall(f"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n${value_len}\r\n".encode() + b"x" * value_len + b"\r\n")
    assert r.recv(100).startswith(b"+OK")
    r.sendall(b"GET k\r\n")
    got = b""
    while len(got) < size:
        got += r.recv(1 << 16)
    r.close()
    print(f"RESULT reply_bytes={size} redis_reply_bytes={len(got)}")


# ---------- 3. ping while one app creates N sessions, then disconnects ----------

def sessions(a):
    stats = Client(a.sock)
    base = stats.call("host.stats")["sessions"]
    stop = os.path.join(a.tmp, "stop-create")
    out = os.path.join(a.tmp, "ping-create")
    for f in (stop, out + ".ready", out + "-close.ready"):  # an earlier run's
        if os.path.exists(f):
            os.unlink(f)
    c = Client(a.sock, timeout=120)
    c.call("host.hello", {"name": "creator"})
    p = start_pinger(a.sock, 600, out, gap_ms=a.gap, stop_file=stop)
    t0 = time.monotonic()
    chunk = 256
    for start in range(0, a.n, chunk):
        ids = range(start, min(a.n, start + chunk))
        c.s.sendall(b"".join(rpc("session.create", {"id": f"s{i}", "kind": "main"}, id=i + 1) for i in ids))
        for _ in ids:
            r = c.line()
            if b'"error"' in r:
                raise SystemExit(f"session.create failed: {r[:300]!r}")
    created = time.monotonic() - t0
    open(stop, "w").close()
    p.wait()
    during_create = read_latencies(out)
    n_now = stats.call("host.stats")["sessions"]

    os.unlink(stop)
    out2 = out + "-close"
    p = start_pinger(a.sock, 600, out2, gap_ms=a.gap, stop_file=stop)
    t0 = time.monotonic()
    c.close()
    while stats.call("host.stats")["sessions"] > base:
        if time.monotonic() - t0 > 120:
            raise SystemExit("the sessions were not closed within 120 s")
        time.sleep(0.005)
    closed = time.monotonic() - t0
    time.sleep(0.2)
    open(stop, "w").close()
    p.wait()
    during_close = read_latencies(out2)
    for what, lat, secs in (("create", during_create, created), ("disconnect", during_close, closed)):
        p99 = pct(lat, .99)
        print(f"ping while one app {'creates' if what == 'create' else 'disconnects with'} {a.n} sessions "
              f"({secs:.2f} s): p50 {ms(pct(lat, .5))}, p99 {ms(p99)}, max {ms(max(lat))}, {len(lat)} pings "
              f"(target p99 <= 10 ms: {verdict(p99 <= 10_000)})")
        print(f"RESULT phase={what} sessions={n_now - base} seconds={secs:.2f} p50_us={pct(lat, .5):.0f} "
              f"p99_us={p99:.0f} max_us={max(lat):.0f}")


# ---------- 4. RSS with N stalled subscribers ----------

def stalled(a):
    rss0 = rss_kib(a.pid)
    subs = []
    for _ in range(a.subscribers):
        s = Client(a.sock)
        s.call("events.subscribe", {"topics": ["*"]})
        # Shrink its receive buffer so the kernel holds little: the daemon holds the rest.
        s.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        subs.append(s)
    prod = Client(a.sock)
    prod.call("session.create", {"id": "ev", "kind": "main"})
    filler = "x" * a.event_bytes
    t0, n, peak = time.monotonic(), 0, rss_kib(a.pid)
    last = t0
    while time.monotonic() - t0 < a.seconds:
        prod.call("info.update", {"session": "ev", "info": {"title": f"t{n}", "artist": filler}})
        n += 1
        if time.monotonic() - last > 0.2:
            peak = max(peak, rss_kib(a.pid))
            last = time.monotonic()
    peak = max(peak, rss_kib(a.pid))
    st = prod.call("host.stats")
    time.sleep(2)  # what the daemon keeps once the cut-off subscribers' queues are freed
    after = rss_kib(a.pid)
    growth = (peak - rss0) / 1024
    print(f"{a.subscribers} stalled subscribers, {n} info.update events of ~{a.event_bytes} B in {a.seconds} s: "
          f"daemon VmRSS {rss0} -> peak {peak} KiB, growth {growth:.1f} MiB (target <= 64 MiB: {verdict(growth <= 64)}"
          f"{'' if growth <= 64 else f', over by {growth - 64:.1f} MiB'}); {after} KiB 2 s later; "
          f"connections left {st.get('connections')} of {a.subscribers + 1}")
    print(f"RESULT subscribers={a.subscribers} events={n} rss0_kib={rss0} peak_kib={peak} growth_mib={growth:.1f} "
          f"after_kib={after} connections={st.get('connections')}")


# ---------- 5. a 1 µs item on repeat ----------

def repeat(a):
    c = Client(a.sock)
    c.call("session.create", {"id": "r", "kind": "main"})
    c.call("player.load", {"session": "r", "items": [{"title": "tiny", "duration": 0.000001}]})
    c.call("player.setRepeat", {"session": "r", "mode": "one"})
    c.call("player.play", {"session": "r"})
    time.sleep(0.5)
    out = os.path.join(a.tmp, "ping-repeat")
    cpu0, t0 = cpu_seconds(a.pid), time.monotonic()
    p = start_pinger(a.sock, a.seconds, out, gap_ms=100)  # 10 pings/s: the daemon's own CPU is measured
    p.wait()
    cpu = (cpu_seconds(a.pid) - cpu0) / (time.monotonic() - t0) * 100
    lat = read_latencies(out)
    state = c.call("player.get", {"session": "r"})
    print(f"1 µs item on repeat one, playing ({state.get('playbackState', state.get('state'))}): daemon CPU {cpu:.1f} % "
          f"over {a.seconds} s (target < 5 %: {verdict(cpu < 5)}); {len(lat)} pings answered, p50 {ms(pct(lat, .5))}, "
          f"p99 {ms(pct(lat, .99))}")
    print(f"RESULT repeat_cpu_percent={cpu:.2f} pings={len(lat)} p99_us={pct(lat, .99):.0f}")


# ---------- 6. the soak ----------

class Conn:
    """A non-blocking JSON-RPC connection for the soak's one-process load."""

    def __init__(self, path, role):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.connect(path)
        self.s.setblocking(False)
        self.role, self.inbuf, self.out = role, b"", b""
        self.pending = {}  # id -> (sent at, method)
        self.next_id = 0
        self.session = None

    def send(self, method, params=None, now=None):
        self.next_id += 1
        self.pending[self.next_id] = (now or time.monotonic(), method)
        self.out += rpc(method, params, self.next_id)

    def flush(self):
        while self.out:
            try:
                n = self.s.send(self.out)
            except BlockingIOError:
                return
            self.out = self.out[n:]


COMMANDS = ["togglePlayPause", "play", "pause"]


def soak(a):
    st = Client(a.sock)
    base = st.call("host.stats")
    base_sessions, base_fds = base["sessions"], fd_count(a.pid)
    sel = selectors.DefaultSelector()
    conns = []
    # Target apps: each owns a session whose `like` is handled here, out of process.
    for i in range(a.busy):
        c = Conn(a.sock, "target" if i < a.targets else "busy")
        c.send("host.hello", {"name": f"soak{i}"})
        c.session = f"soak{i}"
        c.send("session.create", {"id": c.session, "kind": "main"})
        c.send("command.bindDefaults", {"session": c.session})
        c.send("player.load", {"session": c.session, "items": [{"title": f"song {i}", "duration": 180}]})
        if c.role == "target":
            c.send("command.addTarget", {"session": c.session, "command": "like"})
            c.send("command.enable", {"session": c.session, "command": "like", "enabled": True})
        if i % 10 == 0:
            c.send("events.subscribe", {"topics": ["nowPlaying", "sessions"]})
        conns.append(c)
        sel.register(c.s, selectors.EVENT_READ, c)
    idle = []
    for _ in range(a.idle):
        s = socket.socket(socket.AF_UNIX)
        s.connect(a.sock)
        idle.append(s)
    print(f"soak: {a.busy} busy apps ({a.targets} with an out-of-process `like` target), {a.idle} idle connections, "
          f"{a.minutes} min, each app ~{a.rate} req/s; baseline {base_sessions} sessions, {base_fds} fds, "
          f"VmRSS {rss_kib(a.pid)} KiB", flush=True)

    ping_out = os.path.join(a.tmp, "ping-soak")
    pinger_p = start_pinger(a.sock, a.minutes * 60, ping_out, gap_ms=a.gap)
    start = time.monotonic()
    end = start + a.minutes * 60
    next_minute = start + 60
    rss_by_minute = []
    cpu_last = cpu_seconds(a.pid)
    sent = answered = errors = handled = late = 0
    late_ids = set()
    interval = 1.0 / a.rate
    next_send = {id(c): start + (i % 50) * interval / 50 for i, c in enumerate(conns)}
    rr = 0

    def request_for(c, k):
        tgt = conns[k % max(1, a.targets)].session if a.targets else c.session
        choices = [
            ("host.ping", None),
            ("session.get", {"session": c.session}),
            ("nowPlaying.get", {}),
            ("info.update", {"session": c.session, "info": {"title": f"t{k}"}}),
            ("player.seek", {"session": c.session, "position": k % 170}),
            ("command.send", {"command": COMMANDS[k % 3], "session": c.session}),
            ("command.send", {"command": "like", "session": tgt}),  # out of process
            ("session.list", None),
            ("player.get", {"session": c.session}),
            ("host.stats", None),
        ]
        return choices[k % len(choices)]

    last_late_scan = start

    def pump(now, sending):
        nonlocal sent, answered, errors, handled, late, rr, last_late_scan
        # Sleep until the next request is due (the load shares the daemon's CPU: no busy loop).
        due = [next_send[id(c)] for c in conns if len(c.pending) < 4]
        wait = min(due) - now if sending and due else 0.05
        for key, _ in sel.select(timeout=min(0.05, max(0.0, wait))):
            c = key.data
            try:
                chunk = c.s.recv(1 << 16)
            except BlockingIOError:
                continue
            if not chunk:
                raise SystemExit(f"soak: the daemon closed a {c.role} connection")
            c.inbuf += chunk
            while b"\n" in c.inbuf:
                l, _, c.inbuf = c.inbuf.partition(b"\n")
                m = json.loads(l)
                if m.get("method") == "command.handle":
                    c.out += json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {"status": "success"}}).encode() + b"\n"
                    handled += 1
                elif "id" in m and m["id"] in c.pending:
                    t, method = c.pending.pop(m["id"])
                    answered += 1
                    if "error" in m:
                        errors += 1
                        if errors <= 5:
                            print(f"   error from {method}: {m['error']}", flush=True)
        if sending:
            for k, c in enumerate(conns):
                if now >= next_send[id(c)] and len(c.pending) < 4:
                    rr += 1
                    method, params = request_for(c, rr)
                    c.send(method, params, now)
                    sent += 1
                    next_send[id(c)] = max(next_send[id(c)] + interval, now - 1)
        for c in conns:
            c.flush()
        if now - last_late_scan < 1:
            return
        last_late_scan = now
        for c in conns:
            for i, (t, _) in c.pending.items():
                if now - t > 30 and (id(c), i) not in late_ids:
                    late_ids.add((id(c), i))
                    late += 1

    while True:
        now = time.monotonic()
        if now >= end:
            break
        pump(now, True)
        if now >= next_minute:
            rss_by_minute.append(rss_kib(a.pid))
            cpu_now = cpu_seconds(a.pid)
            cpu_pct, cpu_last = (cpu_now - cpu_last) / 60 * 100, cpu_now
            print(f"   minute {len(rss_by_minute)}: VmRSS {rss_by_minute[-1]} KiB, {sent} sent, {answered} answered, "
                  f"{handled} command.handle answered, {late} unanswered after 30 s, fds {fd_count(a.pid)}, daemon CPU {cpu_pct:.0f} %, "
                  f"load {open('/proc/loadavg').read().split()[0]}", flush=True)
            next_minute += 60
    if a.minutes >= 1 and start + len(rss_by_minute) * 60 < end - 30:
        rss_by_minute.append(rss_kib(a.pid))  # the last part-minute, when it was long enough
    # Drain: every request must be answered within 30 s of being sent.
    drain_end = time.monotonic() + 31
    while any(c.pending for c in conns) and time.monotonic() < drain_end:
        pump(time.monotonic(), False)
    unanswered = sum(len(c.pending) for c in conns) + late
    pinger_p.wait()
    lat = read_latencies(ping_out)
    slow = sum(1 for x in lat if x > 10_000)
    for c in conns:
        c.s.close()
    for s in idle:
        s.close()
    # Back to the baseline: sessions and descriptors, with a deadline.
    deadline = time.monotonic() + 30
    while True:
        stats = st.call("host.stats")
        fds = fd_count(a.pid)
        if (stats["sessions"] <= base_sessions and fds <= base_fds) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    first = rss_by_minute[0] if rss_by_minute else rss_kib(a.pid)
    worst = max(rss_by_minute) if rss_by_minute else first
    growth = (worst - first) / first * 100 if first else 0
    checks = [
        (f"every request answered: {sent} sent, {unanswered} unanswered after 30 s ({errors} error replies, "
         f"{handled} command.handle answered)", unanswered == 0),
        (f"RSS after minute 1: {first} KiB -> at most {worst} KiB ({growth:+.1f} %, target <= +10 %): "
         f"{rss_by_minute}", growth <= 10),
        (f"descriptors back to the baseline: {fds} (baseline {base_fds})", fds <= base_fds),
        (f"sessions back to the baseline: {stats['sessions']} (baseline {base_sessions})", stats["sessions"] <= base_sessions),
    ]
    print(f"another client's ping during the soak: p50 {ms(pct(lat, .5))}, p99 {ms(pct(lat, .99))}, "
          f"max {ms(max(lat))}, {len(lat)} pings, {slow} over 10 ms (no target; issue 16 measured p50 413 ms, p99 1.47 s)")
    failed = 0
    for text, ok in checks:
        print(f"{'ok  ' if ok else 'FAIL'} {text}")
        failed += not ok
    print(f"RESULT soak_minutes={a.minutes} sent={sent} unanswered={unanswered} errors={errors} "
          f"ping_p50_us={pct(lat, .5):.0f} ping_p99_us={pct(lat, .99):.0f} rss_growth_percent={growth:.1f} "
          f"fds={fds} base_fds={base_fds} sessions={stats['sessions']} base_sessions={base_sessions}")
    sys.exit(1 if failed else 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pinger"); p.add_argument("sock"); p.add_argument("seconds", type=float); p.add_argument("out")
    p.add_argument("--protocol", default="jsonrpc"); p.add_argument("--gap", type=float, default=2)
    p.add_argument("--stop-file")
    p = sub.add_parser("flooder"); p.add_argument("sock"); p.add_argument("--protocol", default="jsonrpc")
    p = sub.add_parser("flood-setup"); p.add_argument("sock"); p.add_argument("--redis", required=True)
    p.add_argument("--sessions", type=int, default=20)
    p = sub.add_parser("flood"); p.add_argument("sock"); p.add_argument("--protocol", default="jsonrpc")
    p.add_argument("--seconds", type=float, default=10); p.add_argument("--gap", type=float, default=2)
    p.add_argument("--tmp", default="/tmp")
    p = sub.add_parser("sessions"); p.add_argument("sock"); p.add_argument("--n", type=int, default=10000)
    p.add_argument("--gap", type=float, default=2); p.add_argument("--tmp", default="/tmp")
    p = sub.add_parser("stalled"); p.add_argument("sock"); p.add_argument("--pid", type=int, required=True)
    p.add_argument("--subscribers", type=int, default=100); p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--event-bytes", type=int, default=2000)
    p = sub.add_parser("repeat"); p.add_argument("sock"); p.add_argument("--pid", type=int, required=True)
    p.add_argument("--seconds", type=float, default=10); p.add_argument("--tmp", default="/tmp")
    p = sub.add_parser("soak"); p.add_argument("sock"); p.add_argument("--pid", type=int, required=True)
    p.add_argument("--minutes", type=float, default=10); p.add_argument("--busy", type=int, default=50)
    p.add_argument("--targets", type=int, default=10); p.add_argument("--idle", type=int, default=1000)
    p.add_argument("--rate", type=float, default=20, help="requests per second per busy app")
    p.add_argument("--gap", type=float, default=10); p.add_argument("--tmp", default="/tmp")
    a = ap.parse_args()
    {"pinger": pinger, "flooder": flooder, "flood-setup": flood_setup, "flood": flood, "sessions": sessions,
     "stalled": stalled, "repeat": repeat, "soak": soak}[a.cmd](a)


if __name__ == "__main__":
    main()
