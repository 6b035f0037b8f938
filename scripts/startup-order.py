#!/usr/bin/env python3
"""Writes Sources/playerhostd/startup-order.txt: the functions playerhostd runs at start, for lld.

  scripts/startup-order.py [--bin DIR] [--out FILE]

Runs a release playerhostd (debug info stripped into a scratch copy: valgrind cannot read the
toolchain's DWARF 5) under valgrind's callgrind, on a private session bus and a scratch HOME,
as scripts/bench-footprint.py starts it: no config file, the MPRIS export on; then, with
--config FILE (repeatable), once more with each config file. Once READY=1 came, the export's
name is owned and the state file's first save is done (two seconds more), callgrind dumps what
ran; every function of playerhostd's own file that ran is written, one mangled name a line, the
bare start's first. Package.swift gives the file to lld
(--symbol-ordering-file), which puts those functions first and together in .text, so start-up
pages in about 1 MB of contiguous code instead of touching most of the 8.7 MB
(docs/PERFORMANCE.md, "Footprint"). Names that no longer exist are skipped by lld: re-run this
after a change to what start-up does (it needs valgrind: apt-get install valgrind). SwiftPM does
not relink for a new list alone: delete .build/release/playerhostd, then build again.
"""
import argparse, glob, os, re, shutil, socket, subprocess, sys, tempfile, time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=None, help="folder with a release playerhostd (default: swift build -c release --show-bin-path)")
    ap.add_argument("--out", default=None, help="default: Sources/playerhostd/startup-order.txt")
    ap.add_argument("--config", action="append", help="also trace a start with this config file (repeatable)")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    bindir = a.bin or subprocess.check_output(["swift", "build", "-c", "release", "--show-bin-path"], cwd=root, text=True).strip()
    out = a.out or os.path.join(root, "Sources", "playerhostd", "startup-order.txt")
    if not shutil.which("valgrind"):
        sys.exit("valgrind missing (apt-get install valgrind)")
    tmp = tempfile.mkdtemp(prefix="phorder-")
    try:
        phd = os.path.join(tmp, "playerhostd")
        subprocess.check_call(["objcopy", "--strip-debug", os.path.join(bindir, "playerhostd"), phd])
        names, seen = [], set()
        # First a start without a config file, then one with each --config: each run's new
        # functions after the ones before, so the bare start's code stays first and together.
        for config in [None] + (a.config or []):
            for name in trace(phd, tmp, config):
                if name not in seen:
                    seen.add(name)
                    names.append(name)
        with open(out, "w") as f:
            f.write("\n".join(names) + "\n")
        print(f"{len(names)} functions -> {out}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def trace(phd, tmp, config):
    """The functions of `phd` that ran from exec to READY=1 with the MPRIS name owned, in the
    order callgrind lists them."""
    run = tempfile.mkdtemp(prefix="run-", dir=tmp)
    bus = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
    p = None
    try:
        address = bus.stdout.readline().strip()
        env = dict(os.environ, HOME=run, XDG_RUNTIME_DIR=run, XDG_CONFIG_HOME=run + "/config", XDG_STATE_HOME=run + "/state",
                   XDG_CACHE_HOME=run + "/cache", DBUS_SESSION_BUS_ADDRESS=address)
        notify = os.path.join(run, "notify")
        ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        ns.bind(notify)
        ns.settimeout(120)
        args = [phd, "--socket", run + "/ph.sock"] + (["--config", os.path.abspath(config)] if config else [])
        p = subprocess.Popen(["valgrind", "--tool=callgrind", "--demangle=no", "--dump-instr=no", "--compress-strings=no",
                              "--compress-pos=no", f"--callgrind-out-file={run}/cg.%p"] + args,
                             env=dict(env, NOTIFY_SOCKET=notify), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while "READY=1" not in ns.recv(4096).decode():
            pass
        deadline = time.time() + 60
        while True:
            r = subprocess.run(["dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
                                "org.freedesktop.DBus.NameHasOwner", "string:org.mpris.MediaPlayer2.playerhost"],
                               env=env, capture_output=True, text=True)
            if "boolean true" in r.stdout:
                break
            if time.time() > deadline:
                sys.exit("playerhostd's MPRIS name never came")
            time.sleep(0.1)
        # The state file's first save comes a second after start (StateStore.delayMilliseconds):
        # it is part of every start too.
        time.sleep(2)
        subprocess.run(["callgrind_control", "--dump", str(p.pid)], capture_output=True, check=True)
        dumps = []
        deadline = time.time() + 30
        while not dumps and time.time() < deadline:
            dumps = [d for d in glob.glob(f"{run}/cg.{p.pid}.*") if os.path.getsize(d) > 0]
            time.sleep(0.2)
        if not dumps:
            sys.exit("callgrind wrote no dump")
        time.sleep(0.5)  # the dump is written in one go; let it finish
        names, obj = [], ""
        with open(dumps[0]) as f:
            for line in f:
                if line.startswith("ob="):
                    obj = line[3:].strip()
                elif line.startswith("fn="):
                    # callgrind marks recursion levels with 'N; an address is a function without a symbol.
                    name = re.sub(r"'\d+$", "", line[3:].strip())
                    if os.path.basename(obj) == "playerhostd" and not name.startswith("0x"):
                        names.append(name)
        return names
    finally:
        if p:
            p.kill()
            p.wait()
        bus.terminate()
        bus.wait()


if __name__ == "__main__":
    main()
