import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient

/// A stand-in for mpv (a Python script): it serves mpv's JSON IPC on `--input-ipc-server` well
/// enough for the plugin — observed properties, `loadfile` with its `start-file` and
/// `playback-restart`, `get_property`/`set_property` — plays nothing, and records each start as a
/// file named by its pid in `starts`. The daemon runs it as `PLAYERHOST_MPV`: tests of the mpv
/// plugin's bookkeeping (how many mpv, who stops them) need no real mpv, no audio, no sox.
final class FakeMPV {
    let daemon: DaemonHarness
    /// Where each fake mpv started leaves a file named by its pid.
    let starts: String
    let executable: String

    /// Whether `close` closes the harness (not when it was given: its owner does).
    private let ownsDaemon: Bool

    /// `config`: TOML written to a file passed with `--config` (nil: none). `daemon` and
    /// `environment`: a harness to start it in and its environment (default: a new one, isolated).
    /// `pinNullOutput: false` leaves the output to the configuration (tests of `[mpv] ao`).
    init(config: String? = nil, daemon given: DaemonHarness? = nil, environment: [String: String]? = nil,
         pinNullOutput: Bool = true) throws {
        daemon = try given ?? DaemonHarness()
        ownsDaemon = given == nil
        starts = daemon.directory + "/starts"
        executable = daemon.directory + "/fake-mpv"
        mkdir(starts, 0o700)
        try writeTestFile(executable, Self.script(starts: starts))
        chmod(executable, 0o755)
        var env = environment ?? daemon.isolatedEnvironment
        env["PLAYERHOST_MPV"] = executable
        // The null output, pinned like every mpv test's (this mpv plays nothing anyway).
        if pinNullOutput { env["PLAYERHOST_MPV_AO"] = "null" } else { env["PLAYERHOST_MPV_AO"] = nil }
        var args: [String] = []
        if let config {
            let path = daemon.directory + "/fake-mpv.toml"
            try writeTestFile(path, config)
            args = ["--config", path]
        }
        guard try daemon.start(args, environment: env) else {
            if ownsDaemon { daemon.close() }
            throw MPVFixture.Failed("playerhostd did not start: \(daemon.stderrText)")
        }
    }

    func close() {
        _ = daemon.stop()
        if ownsDaemon { daemon.close() }
    }

    /// Pids of the fake mpv started so far.
    var startedPIDs: [Int32] {
        guard let d = opendir(starts) else { return [] }
        defer { closedir(d) }
        var pids: [Int32] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(cBuffer: Array($0.bindMemory(to: CChar.self))) }
            if let pid = Int32(name) { pids.append(pid) }
        }
        return pids.sorted()
    }

    /// The arguments fake mpv `pid` was started with.
    func arguments(_ pid: Int32) -> [String] { Self.lines(starts + "/\(pid)") }

    /// Every file a fake mpv was told to load (`loadfile`), in order.
    var loads: [String] { Self.lines(daemon.directory + "/loads") }

    /// The lines of a small file (none if it is not there).
    static func lines(_ path: String) -> [String] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return [] }
        defer { Glibc.close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &chunk, chunk.count)
            guard n > 0 else { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Those still running (not zombies: a zombie has exited).
    var runningPIDs: [Int32] { startedPIDs.filter(Self.isRunning) }

    static func isRunning(_ pid: Int32) -> Bool {
        guard let fp = fopen("/proc/\(pid)/stat", "r") else { return false }
        defer { fclose(fp) }
        var buf = [CChar](repeating: 0, count: 512)
        guard fgets(&buf, Int32(buf.count), fp) != nil else { return false }
        let text = String(cBuffer: buf)
        // "pid (comm) S …": the state follows the last ')'.
        guard let close = text.lastIndex(of: ")") else { return false }
        let state = text[text.index(after: close)...].trimmingPrefix(" ").first
        return state != "Z" && state != "X"
    }

    /// Waits until `condition` holds, asking again after each of the daemon's answers to a ping
    /// (no sleep: each round trip is an event), at most `seconds`.
    func wait(_ seconds: Double, _ client: ControlClient, until condition: () throws -> Bool) throws -> Bool {
        let end = ControlClient.now() + seconds
        while ControlClient.now() < end {
            if try condition() { return true }
            _ = try client.call("host.ping")
        }
        return try condition()
    }

    static func script(starts: String) -> String {
        """
        #!/usr/bin/python3
        import json, os, socket, sys, threading
        path = [a.split("=", 1)[1] for a in sys.argv if a.startswith("--input-ipc-server=")][0]
        with open(os.path.join("\(starts)", str(os.getpid())), "w") as f:
            f.write("\\n".join(sys.argv[1:]))
        props = {"pause": False, "duration": None, "metadata": {}, "media-title": None, "speed": 1.0,
                 "playlist-pos": -1, "playlist-count": 0, "eof-reached": False, "idle-active": True,
                 "loop-file": False, "loop-playlist": False, "playlist": [], "time-pos": None,
                 "volume": 100.0, "mute": False}
        observed = {}
        try:
            os.unlink(path)
        except OSError:
            pass
        srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        srv.bind(path)
        srv.listen(4)
        conn, _ = srv.accept()
        out = conn.makefile("wb")
        lock = threading.Lock()
        def send(o):
            with lock:
                out.write(json.dumps(o).encode() + b"\\n")
        def restarted():
            # Like mpv: playback restarts once the file is open, after the replies to what was
            # sent meanwhile (a burst of loadfile).
            send({"event": "playback-restart"})
            with lock:
                out.flush()
        def start(i):
            # A file opens: its start, the queue's new state, its playback restart a moment later.
            props["playlist-pos"] = i
            props["idle-active"] = False
            props["time-pos"] = 0.0
            props["duration"] = 60.0
            threading.Timer(0.1, restarted).start()
            return [("event", "start-file"), ("prop", "playlist"), ("prop", "playlist-count"),
                    ("prop", "playlist-pos"), ("prop", "idle-active"), ("prop", "duration")]
        def idle():
            props["playlist-count"] = len(props["playlist"])
            props["playlist-pos"] = -1
            props["idle-active"] = True
            props["time-pos"] = None
            props["duration"] = None
            return [("prop", "playlist"), ("prop", "playlist-count"), ("prop", "playlist-pos"),
                    ("prop", "idle-active"), ("event", "idle")]
        def changed(name):
            if name in observed:
                send({"event": "property-change", "id": observed[name], "name": name, "data": props[name]})
        for line in conn.makefile("rb"):
            try:
                m = json.loads(line)
            except ValueError:
                continue
            cmd, rid = m.get("command", []), m.get("request_id")
            reply = {"request_id": rid, "error": "success", "data": None}
            events = []
            if cmd and cmd[0] == "observe_property":
                observed[cmd[2]] = cmd[1]
                events = [("prop", cmd[2])]
            elif cmd and cmd[0] == "get_property":
                if props.get(cmd[1]) is None:
                    reply["error"] = "property unavailable"
                else:
                    reply["data"] = props[cmd[1]]
            elif cmd and cmd[0] == "set_property":
                props[cmd[1]] = cmd[2]
                events = [("prop", cmd[1])]
            elif cmd and cmd[0] == "loadfile":
                with open(os.path.join("\(starts)", "..", "loads"), "a") as f:
                    f.write(cmd[1] + "\\n")
                mode = cmd[2] if len(cmd) > 2 else "replace"
                if mode == "replace":
                    props["playlist"] = []
                    props["playlist-pos"] = -1
                props["playlist"].append({"filename": cmd[1]})
                props["playlist-count"] = len(props["playlist"])
                if props["playlist-pos"] < 0 and mode != "append":
                    events = start(0)
                else:
                    events = [("prop", "playlist"), ("prop", "playlist-count")]
            elif cmd and cmd[0] == "playlist-play-index":
                events = start(cmd[1])
            elif cmd and cmd[0] == "stop":
                props["playlist"] = []
                events = idle()
            elif cmd and cmd[0] == "playlist-remove":
                pl, i, pos = props["playlist"], cmd[1], props["playlist-pos"]
                del pl[i]
                props["playlist-count"] = len(pl)
                events = [("prop", "playlist"), ("prop", "playlist-count")]
                if i == pos:
                    events += start(i) if i < len(pl) else idle()
                elif i < pos:
                    props["playlist-pos"] = pos - 1
                    events.append(("prop", "playlist-pos"))
            elif cmd and cmd[0] == "playlist-move":
                # mpv: entry a takes the place of entry b (before it; b == count: the end).
                pl, a, b, pos = props["playlist"], cmd[1], cmd[2], props["playlist-pos"]
                current = pl[pos] if 0 <= pos < len(pl) else None
                e = pl.pop(a)
                pl.insert(b - 1 if a < b else b, e)
                props["playlist-pos"] = next((k for k, x in enumerate(pl) if x is current), -1)
                events = [("prop", "playlist"), ("prop", "playlist-pos")]
            send(reply)
            for kind, name in events:
                if kind == "prop":
                    changed(name)
                else:
                    send({"event": name})
            with lock:
                out.flush()
        """
    }
}

/// Writes `text` to `path` (created or truncated, mode 0600).
func writeTestFile(_ path: String, _ text: String) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw MPVFixture.Failed("cannot write \(path)") }
    defer { Glibc.close(fd) }
    let bytes = Array(text.utf8)
    guard bytes.withUnsafeBytes({ Glibc.write(fd, $0.baseAddress, $0.count) }) == bytes.count else {
        throw MPVFixture.Failed("short write to \(path)")
    }
}
