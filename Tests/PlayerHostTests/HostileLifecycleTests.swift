import Glibc
import Testing
@testable import PlayerHost

/// Crashes and hangs a review found, each reproduced against the real daemon: a writer that
/// cannot be written to, clients that never read during shutdown, a deadline timer re-armed
/// during shutdown, and replies piling up behind a slow one. (Late answers for callers that
/// left are host logic: `CallerLeftOverSocketTests`, on an embedded host.)
@Suite(.serialized) struct HostileLifecycleTests {
    func request(_ method: String, _ params: JSON, id: Int64 = 7) -> [UInt8] {
        var out: [UInt8] = []
        RPCEncoder.request(method: method, params: params, id: id, into: &out)
        return out
    }

    func daemon(config: String = "command_timeout_ms = 200\n", _ args: [String] = []) throws -> DaemonHarness {
        let d = try DaemonHarness()
        _ = try runShell("cat > '\(d.directory)/c.toml' <<'EOF'\n\(config)EOF")
        #expect(try d.start(["--config", d.directory + "/c.toml"] + args))
        return d
    }

    @Test func aPeerThatShutItsReadSideAndSendsAnOverlongLine() throws {
        let d = try daemon()
        defer { d.close() }
        let script = """
            import socket, sys
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.shutdown(socket.SHUT_RD)
            try:
                s.sendall(b'x' * (1100 * 1024))
            except OSError:
                pass
            print("sent")
            """
        let r = try runShell("timeout 20 python3 -c '\(script.replacingQuote())' '\(d.socketPath)'")
        #expect(r.output.contains("sent"))
        #expect(try d.client().call("host.ping") == "pong", "the daemon survived")
        #expect(d.exit == nil)
    }

    @Test func sigtermDoesNotWaitForeverOnAClientThatNeverReads() throws {
        let d = try daemon()
        defer { d.close() }
        let hog = try d.client()
        let burst = Array(String(repeating: #"{"jsonrpc":"2.0","method":"rpc.discover","id":1}"# + "\n", count: 200).utf8)
        for _ in 0..<10 { try hog.send(burst) }
        // The time budget per turn spreads the hog's burst over loop turns: wait (each check is a
        // round trip, under a deadline) until the daemon holds replies the hog's socket did not
        // take, so SIGTERM meets a client that cannot take its last replies.
        let probe = try d.client()
        #expect(try probe.call("host.ping") == "pong")
        let deadline = ContinuousClock.now + .seconds(10)
        var held = 0
        while held == 0 && ContinuousClock.now < deadline {
            held = Int(try probe.call("host.stats")["server"]?["queuedOutputBytes"]?.intValue ?? 0)
        }
        #expect(held > 0, "the daemon holds output the hog does not read")
        // Exits within the 2 s shutdown grace (the deadline here is generous, not a measurement).
        #expect(d.stop(signal: SIGTERM, deadline: 15)?.status == 0)
        #expect(d.stderrText.contains("shutdown deadline") || d.stderrText.contains("client is not reading"))
    }

    @Test func sigtermWithPlayingSessionsOfAClientAndOfTheHost() throws {
        let d = try daemon(config: """
            [[session]]
            id = "main"
            kind = "main"
            autoplay = true
            repeat = "all"
              [[session.item]]
              title = "a"
              duration = 1

            """)
        defer { d.close() }
        let app = try d.client()
        try app.call("host.hello", ["name": "app"])
        try app.call("session.create", ["id": "mine", "kind": "main"])
        try app.call("player.load", ["session": "mine", "items": [["title": "b", "duration": 3]]])
        try app.call("player.play", ["session": "mine"])
        // The app's connection closes during shutdown, which changes the deadline: no new timer.
        #expect(d.stop(signal: SIGTERM, deadline: 15)?.status == 0)
        #expect(access(d.socketPath, F_OK) != 0)
    }

    @Test func repliesHeldBehindASlowOneCountTowardTheOutputLimit() throws {
        let d = try daemon(config: "", ["--max-output-bytes", "65536"])
        defer { d.close() }
        let hog = try d.client(timeout: 20)
        try hog.call("plugin.provide", ["methods": ["slow.never"]])
        // Call it ourselves and never answer the forwarded request: everything after waits.
        try hog.send(request("slow.never", [:], id: 1))
        let burst = Array(String(repeating: #"{"jsonrpc":"2.0","method":"rpc.discover","id":2}"# + "\n", count: 50).utf8)
        var cutOff = false
        for _ in 0..<100 {
            do { try hog.send(burst) } catch {
                cutOff = true
                break
            }
        }
        if !cutOff {
            // The writes fit in socket buffers; the hang-up then shows on reading.
            // Only a hang-up counts; a timeout would mean the replies just sit there.
            hog.timeout = 5
            do { while true { _ = try hog.readMessage() } } catch {
                if case .closed = error { cutOff = true }
            }
        }
        #expect(cutOff)
        #expect(try d.client().call("host.ping") == "pong")
        #expect(d.stop()?.status == 0)
        #expect(d.stderrText.contains("client is not reading"))
    }
}
