import Glibc
import Testing
@testable import PlayerHost

/// Peers that break the control server's transport, each against the real daemon (issue 16):
/// a write that fails inside the call that made it (half-closed target or provider, a handler
/// that exits as its command arrives, a peer that shut its read side and sends an overlong
/// line), output that passes the limit inside `command.send` or a forwarded call (a target or
/// provider that stopped reading, a SIGSTOPped handler, replies held behind a slow one), and
/// connections cut off while their callbacks are still reachable (non-reading flooders). Each
/// time the daemon lives, the sender gets `commandFailed` or an error, and the next request is
/// served. (What a turn, a client and all clients may hold: `SocketTransportLimitsEndToEndTests`.)
///
/// Not on an embedded host: these are `ClientConnection`'s writes, cut-offs and half-closed
/// sockets, which the embedded host's in-memory pipes do not have. Not serialized: each test
/// has its own daemon.
@Suite struct SocketTransportEndToEndTests {
    /// A peer that owns session `session` and is the target of its `play` command.
    func target(_ d: DaemonHarness, session: String = "s") throws -> RawPeer {
        let t = try RawPeer(path: d.socketPath)
        #expect(try t.call("session.create", ["id": .string(session), "kind": "main"])["error"] == nil)
        #expect(try t.call("command.addTarget", ["session": .string(session), "command": "play"])["error"] == nil)
        #expect(try t.call("command.enable", ["session": .string(session), "command": "play", "enabled": true])["error"] == nil)
        return t
    }

    /// A command's reply: its status, or the error's code.
    func outcome(_ reply: JSON) -> String {
        if let status = reply["result"]?["status"]?.stringValue { return status }
        return "error \(reply["error"]?["code"]?.intValue ?? 0)"
    }

    @Test func aHalfClosedCommandTarget() throws {
        let d = try DaemonHarness.started()
        defer { d.close() }
        let t = try target(d)
        t.shutdownRead()
        let sender = try d.client()
        let r = try sender.call("command.send", ["command": "play", "session": "s"])
        #expect(r["status"] == "commandFailed")
        #expect(try sender.call("host.ping") == "pong")
        #expect(d.exit == nil)
    }

    @Test func aHalfClosedProvider() throws {
        let d = try DaemonHarness.started()
        defer { d.close() }
        let p = try RawPeer(path: d.socketPath)
        #expect(try p.call("plugin.provide", ["methods": ["x.m"]])["result"] == true)
        p.shutdownRead()
        let caller = try d.client()
        #expect {
            try caller.call("x.m", ["a": 1])
        } throws: { error in
            guard case ClientError.rpc(let e) = error else { return false }
            return e.code == RPCErrorCode.pluginFailure.rawValue
        }
        #expect(try caller.call("host.ping") == "pong")
        #expect(d.exit == nil)
    }

    @Test func handlersThatExitAsTheirCommandArrives() throws {
        let d = try DaemonHarness.started()
        defer { d.close() }
        let sender = try d.client()
        for i in 0..<40 {
            let session = "s\(i)"
            let t = try target(d, session: session)
            // Either order: the command goes out just before or just after the handler is gone.
            if i % 2 == 0 { t.close() }
            try sender.send(requestLine("command.send", ["command": "play", "session": .string(session)], id: Int64(i + 1000)))
            if i % 2 == 1 { t.close() }
            let reply = try sender.readMessage()
            #expect(reply["id"] == .int(Int64(i + 1000)))
            let o = outcome(reply)
            #expect(o == "commandFailed" || o.hasPrefix("error "), "got \(o)")
        }
        #expect(try sender.call("host.ping") == "pong")
        #expect(d.exit == nil)
    }

    /// Every command failed: `commandFailed` while its target was there, commandHasNoTarget once
    /// the target's connection was gone (the session stays: it was created by the same client but
    /// this test's targets come and go with it, so either may be seen first).
    func allFailed(_ outcomes: Set<String>) -> Bool {
        let allowed: Set = ["commandFailed", "error \(RPCErrorCode.commandHasNoTarget.rawValue)",
                            "error \(RPCErrorCode.sessionNotFound.rawValue)"]
        return outcomes.contains("commandFailed") && outcomes.isSubset(of: allowed)
    }

    /// Pipelines `count` commands at `session` and reads every reply: each one answered.
    func sendCommands(_ sender: ControlClient, session: String, count: Int, payload: String = "") throws -> [String] {
        var burst: [UInt8] = []
        for i in 0..<count {
            var p: [String: JSON] = ["command": "play", "session": .string(session)]
            if !payload.isEmpty { p["languageOption"] = .string(payload) }
            burst += requestLine("command.send", .object(p), id: Int64(i + 1))
        }
        try sender.send(burst)
        var outcomes: [String] = []
        while outcomes.count < count {
            let reply = try sender.readMessage()
            guard reply["method"] == nil else { continue }
            outcomes.append(outcome(reply))
        }
        return outcomes
    }

    @Test func aTargetThatStoppedReadingPassesTheOutputLimit() throws {
        let d = try DaemonHarness.started(config: "command_timeout_ms = 30000\n", ["--max-output-bytes", "65536"])
        defer { d.close() }
        let t = try target(d)
        let sender = try d.client(timeout: 20)
        // 2 kB each, so what the socket buffers hold is soon passed and the 64 kB limit after it.
        let outcomes = try sendCommands(sender, session: "s", count: 400, payload: String(repeating: "x", count: 2000))
        #expect(outcomes.count == 400)
        #expect(allFailed(Set(outcomes)))
        #expect(t.isHungUp(), "the target that never read was cut off")
        #expect(try sender.call("host.ping") == "pong")
        #expect(d.stop()?.status == 0)
        #expect(d.stderrText.contains("client is not reading"))
    }

    @Test func aTargetThatStoppedReadingGetsLargeCommands() throws {
        let d = try DaemonHarness.started(config: "command_timeout_ms = 30000\n")
        defer { d.close() }
        let t = try target(d)
        let sender = try d.client(timeout: 20)
        // 900 kB each: the default 8 MiB limit passes after about ten.
        let outcomes = try sendCommands(sender, session: "s", count: 14, payload: String(repeating: "x", count: 900_000))
        #expect(allFailed(Set(outcomes)))
        #expect(t.isHungUp())
        #expect(try sender.call("host.ping") == "pong")
        #expect(d.exit == nil)
    }

    @Test func aProviderThatStoppedReadingPassesTheOutputLimit() throws {
        let d = try DaemonHarness.started(config: "", ["--max-output-bytes", "65536"])
        defer { d.close() }
        let p = try RawPeer(path: d.socketPath)
        #expect(try p.call("plugin.provide", ["methods": ["x.m"]])["result"] == true)
        let caller = try d.client(timeout: 20)
        var burst: [UInt8] = []
        for i in 0..<400 { burst += requestLine("x.m", ["n": .int(Int64(i)), "pad": .string(String(repeating: "p", count: 2000))], id: Int64(i + 1)) }
        try caller.send(burst)
        var codes: [Int] = []
        for _ in 0..<400 { codes.append(try caller.readMessage()["error"]?["code"]?.intValue ?? 0) }
        // pluginFailure while the provider was there, method not found once it was gone.
        #expect(codes.contains(RPCErrorCode.pluginFailure.rawValue))
        #expect(codes.allSatisfy { $0 == RPCErrorCode.pluginFailure.rawValue || $0 == RPCErrorCode.methodNotFound.rawValue },
                "\(Set(codes))")
        #expect(p.isHungUp())
        #expect(try caller.call("host.ping") == "pong")
        #expect(d.exit == nil)
    }

    @Test func aStoppedHandlerReceivingMediaKeys() throws {
        let d = try DaemonHarness.started(config: "command_timeout_ms = 30000\n", ["--max-output-bytes", "65536"])
        defer { d.close() }
        let script = """
            import json, os, signal, socket, sys
            s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile('rb')
            def call(i, m, p):
                s.sendall(json.dumps({"jsonrpc": "2.0", "id": i, "method": m, "params": p}).encode() + b"\\n")
                f.readline()
            call(1, "session.create", {"id": "stopped", "kind": "main"})
            call(2, "command.addTarget", {"session": "stopped", "command": "play"})
            call(3, "command.enable", {"session": "stopped", "command": "play", "enabled": True})
            print("ready", flush=True)
            os.kill(os.getpid(), signal.SIGSTOP)
            """
        var out = ""
        var exited = false
        let handler = try ChildProcess(loop: d.loop, executable: "/usr/bin/python3", arguments: ["-c", script, d.socketPath],
                                       stdio: [.ignore, .pipe, .inherit], onExit: { _ in exited = true })
        try handler.pipes[1]!.startReading(onRead: { out += String(decoding: $0, as: UTF8.self) }, onEnd: { _ in })
        #expect(d.runUntil(20) { out.contains("ready") })
        let sender = try d.client(timeout: 20)
        let outcomes = try sendCommands(sender, session: "stopped", count: 400, payload: String(repeating: "x", count: 2000))
        #expect(allFailed(Set(outcomes)))
        #expect(try sender.call("host.ping") == "pong")
        try handler.kill(SIGKILL)
        #expect(d.runUntil(20) { exited })
        #expect(d.exit == nil)
        // Ours, on the harness's loop: closed here, or the harness's leak check reports them.
        handler.pipes[1]?.close()
        handler.close()
    }

    @Test func nonReadingFloodersWhileAnotherClientPings() throws {
        let d = try DaemonHarness.started(config: "", ["--max-output-bytes", "262144"])
        defer { d.close() }
        let burst = Array(String(repeating: #"{"jsonrpc":"2.0","method":"session.list","id":1}"# + "\n", count: 500).utf8)
        var flooders = [try RawPeer(path: d.socketPath), try RawPeer(path: d.socketPath)]
        var cutOff = 0
        var held = 0
        let pinger = try d.client()
        for _ in 0..<150 {
            for i in flooders.indices {
                switch flooders[i].sendSome(burst) {
                case nil:
                    cutOff += 1
                    flooders[i] = try RawPeer(path: d.socketPath)
                case 0?:
                    held += 1  // the daemon stopped reading it: back-pressure
                default:
                    break
                }
            }
            #expect(try pinger.call("host.ping") == "pong")
        }
        #expect(cutOff + held > 0, "the flooders were cut off or held back")
        for f in flooders { f.close() }
        #expect(try pinger.call("host.ping") == "pong")
        #expect(d.exit == nil)
    }

    @Test func aPeerThatShutItsReadSideAndSendsAnOverlongLine() throws {
        let d = try DaemonHarness.started()
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

    @Test func repliesHeldBehindASlowOneCountTowardTheOutputLimit() throws {
        let d = try DaemonHarness.started(config: "", ["--max-output-bytes", "65536"])
        defer { d.close() }
        let hog = try d.client(timeout: 20)
        try hog.call("plugin.provide", ["methods": ["slow.never"]])
        // Call it ourselves and never answer the forwarded request: everything after waits.
        try hog.send(requestLine("slow.never", [:], id: 1))
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
