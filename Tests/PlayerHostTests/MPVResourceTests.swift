import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient
@testable import PlayerHostRPC
@testable import Plugins

/// Issue 21, the mpv plugin's resources, against the real daemon and a fake mpv (`FakeMPV`): a
/// burst of opens makes one session and one mpv, the mpv sessions are capped, a flood of huge
/// `mpv.open` lines from other clients does not cut the built-in plugin off.
@Suite(.serialized) struct MPVResourceTests {
    private func request(_ method: String, _ params: JSON, id: Int64) -> [UInt8] {
        var line: [UInt8] = []
        RPCEncoder.request(method: method, params: params, id: id, into: &line)
        return line
    }

    /// Item 7: 20 `mpv.open` at once with no session yet (what an `OpenUri` burst does): they
    /// join one creation — one session, one mpv — and each is answered with that session.
    @Test func anOpenBurstWithoutASessionMakesOneSessionAndOneMpv() throws {
        let f = try FakeMPV()
        defer { f.close() }
        let c = try f.daemon.client(timeout: 30)
        // All sent before the first is answered: they reach the plugin while the session is created.
        var burst: [UInt8] = []
        for i in 0..<20 { burst += request("mpv.open", ["urls": [.string("/music/track\(i).ogg")]], id: Int64(i)) }
        try c.send(burst)
        var sessions = Set<String>()
        for _ in 0..<20 {
            let m = try c.readMessage()
            #expect(m["error"] == nil, "\(m)")
            if let id = m["result"]?["id"]?.stringValue { sessions.insert(id) }
        }
        #expect(sessions.count == 1, "\(sessions)")
        #expect(try c.call("session.list").arrayValue?.count == 1)
        #expect(f.startedPIDs.count == 1, "fake mpv started: \(f.startedPIDs)")
        // Every open reached that one mpv (each replaced the queue: one file is left).
        #expect(f.loads.count == 20, "\(f.loads)")
        #expect(try c.call("mpv.status")["playlistCount"] == 1)
    }

    /// Item 7 as it was seen: `OpenUri` over D-Bus with no mpv session yet — 20 at once, then
    /// three one after another (the bridge does not wait for the open, so those overlap too) —
    /// makes one session and one mpv (it made 20, 1.3 GB; and two in one run of three).
    @Test(.enabled(if: access("/usr/bin/dbus-daemon", X_OK) == 0 && access("/usr/bin/gdbus", X_OK) == 0, "dbus-daemon and gdbus are needed"))
    func openUriBurstsOverDBusMakeOneMpv() throws {
        let m = try MPRISFixture(startDaemon: false)
        defer { m.close() }
        let f = try FakeMPV(daemon: m.harness, environment: m.environment)
        defer { f.close() }
        #expect(try m.waitForName())
        let call = "gdbus call --session --dest \(MPRISBridge.busName) --object-path /org/mpris/MediaPlayer2 --method org.mpris.MediaPlayer2.Player.OpenUri"
        let burst = (0..<20).map { "\(call) /music/t\($0).ogg >/dev/null &" }.joined(separator: " ") + " wait; echo done"
        #expect(try m.sh(burst, timeout: 30).contains("done"))
        for i in 0..<3 { _ = try m.sh("\(call) /music/u\(i).ogg") }
        let c = try f.daemon.client(timeout: 30)
        // Every open reached the one mpv (23 loadfile; each replaced the queue).
        #expect(try f.wait(10, c) { f.loads.count == 23 }, "\(f.loads)")
        #expect(try c.call("mpv.status")["playlistCount"] == 1)
        #expect(try c.call("session.list").arrayValue?.filter { $0["kind"] == "mpv" }.count == 1)
        #expect(f.startedPIDs.count == 1, "fake mpv started: \(f.startedPIDs)")
        // OpenUri plays now (issue 22 item 2): the session plays one of the URIs opened last
        // (once the last open, which the bridge does not wait for, is done).
        var now = JSON.null
        #expect(try f.wait(10, c) {
            now = try c.call("nowPlaying.get")
            return now["playbackState"] == "playing" && now["info"]?["title"]?.stringValue?.hasPrefix("u") == true
        }, "\(now)")
    }

    /// Item 7: `[mpv] max_sessions` caps the mpv sessions (each one mpv): past it, 1050 naming the
    /// key, before anything is created or started — a burst of new names included.
    @Test func mpvSessionsAreCappedWithAnErrorNamingTheLimit() throws {
        let f = try FakeMPV(config: "[mpv]\nmax_sessions = 2\n")
        defer { f.close() }
        let c = try f.daemon.client(timeout: 30)
        var burst: [UInt8] = []
        for i in 0..<6 { burst += request("mpv.open", ["session": .string("s\(i)"), "urls": ["/music/a.ogg"]], id: Int64(i)) }
        try c.send(burst)
        var opened = 0
        var refused: [JSON] = []
        for _ in 0..<6 {
            let m = try c.readMessage()
            if m["result"] != nil { opened += 1 } else { refused.append(m["error"] ?? .null) }
        }
        #expect(opened == 2)
        #expect(refused.count == 4)
        for e in refused {
            #expect(e["code"] == .int(Int64(RPCErrorCode.limitExceeded.rawValue)), "\(e)")
            #expect(e["data"]?["limit"] == "mpv.max_sessions" && e["data"]?["value"] == 2, "\(e)")
            #expect(e["message"]?.stringValue?.contains("max_sessions") == true)
        }
        #expect(try c.call("session.list").arrayValue?.count == 2)
        #expect(f.startedPIDs.count == 2)
        // An open of a session that exists is not a new one.
        #expect(try c.call("mpv.open", ["session": "s0", "urls": ["/music/b.ogg"]])["id"] == "s0")
        // Closing one makes room.
        try c.call("session.close", ["session": "s0"])
        #expect(try c.call("mpv.open", ["session": "s9", "urls": ["/music/a.ogg"]])["id"] == "s9")
        // A reload applies a new cap to the next open.
        #expect(throws: ClientError.self) { try c.call("mpv.open", ["session": "s10", "urls": ["/music/a.ogg"]]) }
        try writeTestFile(f.daemon.directory + "/fake-mpv.toml", "[mpv]\nmax_sessions = 3\n")
        _ = try c.call("host.reload")
        #expect(try c.call("mpv.open", ["session": "s10", "urls": ["/music/a.ogg"]])["id"] == "s10")
        #expect(f.startedPIDs.count == 4)
    }

    /// Item 8: 32 clients each send 900 KB `mpv.open` lines. The built-in plugin is never cut off
    /// (its calls are refused with 1050 once too many wait for it): its session stays, its mpv
    /// is the one it controls, and nothing is orphaned.
    @Test func aFloodOfHugeOpensDoesNotCutTheBuiltinPluginOff() throws {
        let f = try FakeMPV()
        defer { f.close() }
        let c = try f.daemon.client(timeout: 30)
        let session = try #require(try c.call("mpv.open", ["urls": ["/music/a.ogg"]])["id"]?.stringValue)
        let pid = try #require(try c.call("mpv.status")["pid"]?.intValue)
        let script = f.daemon.directory + "/flood.py"
        try writeTestFile(script, Self.floodScript(socket: f.daemon.socketPath))
        let run = try runShell("/usr/bin/python3 '\(script)'", deadline: 120)
        print("mpv open flood: \(run.output)")
        #expect(run.output.contains("\"answered\": 128"), "\(run.output)")
        // The plugin is still there, with its session and the mpv it started.
        let plugin = try c.call("plugin.list").arrayValue?.first { $0["name"] == "mpv" }
        #expect(plugin?["state"] == "running" && plugin?["restarts"] == nil, "\(String(describing: plugin))")
        #expect(try c.call("session.list").arrayValue?.contains { $0["id"] == .string(session) } == true)
        #expect(try c.call("mpv.status")["pid"]?.intValue == pid)
        #expect(f.startedPIDs == [Int32(pid)])
        #expect(try c.call("host.stats")["server"]?["cutOffOverLimit"] == 0)
    }

    /// 32 threads, each a client sending 4 `mpv.open` lines of 900 KB (refused by the plugin:
    /// unknown parameter) and reading the 4 answers. Prints how many came back, by error code.
    static func floodScript(socket: String) -> String {
        """
        import json, socket, threading
        pad = "x" * (900 * 1024)
        codes, lock = {}, threading.Lock()
        def client(n):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect("\(socket)")
            for i in range(4):
                line = json.dumps({"jsonrpc": "2.0", "id": i, "method": "mpv.open",
                                   "params": {"urls": ["/music/a.ogg"], "pad": pad}}) + "\\n"
                s.sendall(line.encode())
            buf = b""
            got = 0
            while got < 4:
                chunk = s.recv(65536)
                if not chunk:
                    break
                buf += chunk
                while b"\\n" in buf:
                    line, buf = buf.split(b"\\n", 1)
                    m = json.loads(line)
                    with lock:
                        code = m.get("error", {}).get("code", 0)
                        codes[code] = codes.get(code, 0) + 1
                    got += 1
            s.close()
        threads = [threading.Thread(target=client, args=(n,)) for n in range(32)]
        for t in threads: t.start()
        for t in threads: t.join()
        print(json.dumps({"answered": sum(codes.values()), "codes": codes}))
        """
    }
}
