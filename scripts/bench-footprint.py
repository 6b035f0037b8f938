#!/usr/bin/env python3
"""Footprint benchmark: what playerhostd costs at start, beside playerctld and redis-server.

  scripts/bench-footprint.py [--bin DIR] [--runs N] [--cpu C] [--config FILE] [--breakdown]

On a private session bus (dbus-daemon) and in a scratch HOME, starts each server N times and
prints, per run and as medians:
  playerhostd  (without a config file unless --config) exec -> READY=1 (its $NOTIFY_SOCKET,
               as systemd sees it), VmRSS right after READY=1 with the MPRIS export on (its
               name owned on the bus), and the shared libraries it maps;
  playerctld   VmRSS and libraries once it owns org.mpris.MediaPlayer2.playerctld;
  redis-server VmRSS and libraries once its socket accepts (skipped when not installed);
  with --breakdown, playerhostd's resident memory per mapped file (its own, each library, heap).
All pinned to one CPU with taskset. Memory, not speed, is the point: the figures hold on a busy
machine too; exec -> READY=1 does not, read it on a quiet one.
"""
import argparse, os, shutil, socket, statistics, subprocess, sys, tempfile, time


def vmrss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def rss_by_file(pid):
    """Resident KiB per mapped file (and [heap], [stack], anonymous) from /proc/PID/smaps."""
    out, name = {}, None
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            parts = line.split()
            if parts and "-" in parts[0] and not parts[0].endswith(":"):
                name = parts[5] if len(parts) >= 6 else "[anonymous]"
            elif parts and parts[0] == "Rss:":
                out[name] = out.get(name, 0) + int(parts[1])
    return out


def libraries(pid):
    libs = set()
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            path = line.split()[-1] if len(line.split()) >= 6 else ""
            if ".so" in os.path.basename(path):
                libs.add(path)
    return len(libs)


def wait_for(predicate, proc, what, timeout=20):
    deadline = time.time() + timeout
    while not predicate():
        if proc.poll() is not None:
            sys.exit(f"{what} exited ({proc.returncode})")
        if time.time() > deadline:
            sys.exit(f"{what} did not come up in {timeout} s")
        time.sleep(0.01)


def bus_has(env, name):
    r = subprocess.run(["dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                        "org.freedesktop.DBus.NameHasOwner", f"string:{name}"], env=env, capture_output=True, text=True)
    return "boolean true" in r.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=None, help="folder with a release playerhostd (default: swift build -c release --show-bin-path)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--cpu", default="0")
    ap.add_argument("--config", default=None, help="start playerhostd with this config file (default: none)")
    ap.add_argument("--breakdown", action="store_true", help="also print playerhostd's resident memory per mapped file (smaps)")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    bindir = a.bin or subprocess.check_output(["swift", "build", "-c", "release", "--show-bin-path"], cwd=root, text=True).strip()
    phd = os.path.join(bindir, "playerhostd")
    if not os.access(phd, os.X_OK):
        sys.exit(f"build first: {phd} missing (swift build -c release --product playerhostd)")
    pin = ["taskset", "-c", a.cpu] if a.cpu != "none" and shutil.which("taskset") else []
    tmp = tempfile.mkdtemp(prefix="phfoot-")
    bus = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address"], stdout=subprocess.PIPE, text=True)
    try:
        address = bus.stdout.readline().strip()
        env = dict(os.environ, HOME=tmp, XDG_RUNTIME_DIR=tmp, XDG_CONFIG_HOME=tmp + "/config", XDG_STATE_HOME=tmp + "/state",
                   XDG_CACHE_HOME=tmp + "/cache", DBUS_SESSION_BUS_ADDRESS=address)
        env.pop("NOTIFY_SOCKET", None)
        rows = {"playerhostd": [], "playerctld": [], "redis-server": []}
        for run in range(a.runs):
            # playerhostd: exec -> READY=1, then RSS with the export's name owned.
            notify = os.path.join(tmp, f"notify{run}")
            ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
            ns.bind(notify)
            ns.settimeout(20)
            sock = os.path.join(tmp, f"ph{run}.sock")
            t0 = time.perf_counter()
            config = ["--config", os.path.abspath(a.config)] if a.config else []
            p = subprocess.Popen(pin + [phd, "--socket", sock] + config, env=dict(env, NOTIFY_SOCKET=notify),
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            while True:
                msg = ns.recv(4096).decode()
                if "READY=1" in msg:
                    break
            ready_ms = (time.perf_counter() - t0) * 1000
            ns.close()
            wait_for(lambda: bus_has(env, "org.mpris.MediaPlayer2.playerhost"), p, "playerhostd's MPRIS name")
            rows["playerhostd"].append((vmrss_kib(p.pid), libraries(p.pid), ready_ms))
            breakdown = rss_by_file(p.pid)
            p.terminate()
            p.wait(10)
            # playerctld on the same bus.
            q = subprocess.Popen(pin + ["playerctld"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            wait_for(lambda: bus_has(env, "org.mpris.MediaPlayer2.playerctld"), q, "playerctld")
            rows["playerctld"].append((vmrss_kib(q.pid), libraries(q.pid), None))
            q.terminate()
            q.wait(10)
            if shutil.which("redis-server"):
                rsock = os.path.join(tmp, f"redis{run}.sock")
                r = subprocess.Popen(pin + ["redis-server", "--port", "0", "--unixsocket", rsock, "--save", "", "--dir", tmp],
                                     env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                wait_for(lambda: os.path.exists(rsock), r, "redis-server")
                time.sleep(0.2)  # its socket exists a moment before it has finished start-up
                rows["redis-server"].append((vmrss_kib(r.pid), libraries(r.pid), None))
                r.terminate()
                r.wait(10)
        print(f"{'server':<14}{'VmRSS MiB (median, runs)':<40}{'libraries':<11}exec->READY=1 ms (median)")
        for name, rs in rows.items():
            if not rs:
                print(f"{name:<14}(not installed)")
                continue
            rss = [r[0] / 1024 for r in rs]
            ready = [r[2] for r in rs if r[2] is not None]
            print(f"{name:<14}{statistics.median(rss):5.1f}  ({' '.join(f'{x:.1f}' for x in rss)}){'':<6}"
                  f"{rs[0][1]:<11}{f'{statistics.median(ready):.1f}' if ready else '-'}")
            print(f"RESULT {name} rss_mib={statistics.median(rss):.2f} libs={rs[0][1]}"
                  + (f" ready_ms={statistics.median(ready):.1f}" if ready else ""))
        if a.breakdown:
            print("playerhostd's resident KiB by mapping (last run):")
            for name, kib in sorted(breakdown.items(), key=lambda x: -x[1]):
                if kib:
                    print(f"  {kib:7d}  {name}")
    finally:
        bus.terminate()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
