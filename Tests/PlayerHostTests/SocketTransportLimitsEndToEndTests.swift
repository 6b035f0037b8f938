import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient
@testable import PlayerHostRPC

/// What the control server's transport lets a client hold, against the real daemon (issue 16,
/// items 2 and 3): clients that do not read are held back (back-pressure), then cut off past the
/// output limit or the configured stall; over the global output budget the slowest go first
/// while a reader is unaffected; a request over `--max-line-bytes` gets one clear answer; the
/// connection cap and other uids are refused; and a short fuzz over the real socket.
///
/// Not on an embedded host: back-pressure, the output limit per client, the budget, stalls, the
/// cap and peer credentials are `ControlServer`/`ClientConnection`'s, which the embedded host's
/// in-memory pipes do not have (what `RPCConnection` does alone is in `FairnessTests` and
/// `ClientLimitsOverSocketTests`). Not serialized: each test has its own daemon.
@Suite struct SocketTransportLimitsEndToEndTests {
    @Test func aClientThatNeverReadsIsHeldBackNotServedIntoMemory() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start(["--max-output-bytes", "1048576"]))
        let hog = try RawPeer(path: d.socketPath)
        let burst = Array(String(repeating: #"{"jsonrpc":"2.0","method":"rpc.discover","id":1}"# + "\n", count: 100).utf8)
        let pinger = try d.client()
        // Send until the daemon stops reading us (our socket buffer fills): back-pressure.
        var held = false
        for _ in 0..<2000 where !held {
            guard let n = hog.sendSome(burst) else { break }
            if n < burst.count { held = true }
            #expect(try pinger.call("host.ping") == "pong")
        }
        #expect(held, "the daemon stopped reading the client that does not read")
        let stats = try pinger.call("host.stats")
        #expect(stats["connections"] == 2, "held, not cut off")
        #expect(d.exit == nil)
        // Reading again, the client gets its replies and is served on.
        var replies = 0
        while replies < 5 {
            if try hog.readMessage(timeout: 30)["id"] == 1 { replies += 1 }
        }
        #expect(replies == 5)
        hog.close()
        #expect(try pinger.call("host.ping") == "pong")
    }

    /// Issue 16 item 3 over the real transport (moved from ProvidedMethodLimitTests): a request
    /// over `--max-line-bytes` gets one clear error, and a 3 MB reply read as it comes is never
    /// taken for a stall.
    @Test func twentyThousandMethodsGetOneClearAnswerNeverASilentClose() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        let config = d.directory + "/limits.toml"
        _ = try runShell("printf 'max_provided_methods = 30000\\n' > '\(config)'")
        #expect(try d.start(["--config", config]))
        let big = try d.client(timeout: 60)
        let names = (0..<20_000).map { "plugin.provided.method\($0)" }
        // With a summary each, the request is over max_line_bytes (1 MiB): one error naming the
        // limit (the daemon skips the line; it used to hang up while the client still wrote it,
        // which the client saw only as a broken pipe), and the connection stays.
        let summaries = JSON.object(Dictionary(uniqueKeysWithValues: names.map { ($0, JSON.string("what \($0) does, in one line")) }))
        #expect {
            try big.call("plugin.provide", ["methods": .array(names.map(JSON.string)), "summaries": summaries])
        } throws: { error in
            guard case ClientError.rpc(let e) = error else { return false }
            return e.code == RPCErrorCode.limitExceeded.rawValue && e.data?["limit"] == 1_048_576
                && e.message.contains("--max-line-bytes")
        }
        #expect(try big.call("host.ping") == .string("pong"), "still connected")
        // Without summaries it fits: all 20 000 are provided and listed.
        try big.call("plugin.provide", ["methods": .array(names.map(JSON.string))])
        let other = try d.client(timeout: 60)
        #expect(Set(FuzzMethod.all(from: try other.call("rpc.discover")).map(\.name)).isSuperset(of: names))
        // The 3 MB rpc.discover reply, read as it comes, is progress: never "stalled" (it once
        // was, until the whole write completed, and a slow reader was cut off after 5 s).
        #expect(try other.call("host.stats")["server"]?["cutOffStalled"] == 0)
        // The provider goes; a new one may take the names as soon as they are free, even while
        // the old ones are still being dropped from the table (never "a host method").
        big.close()
        let again = try d.client(timeout: 60)
        var provided = false
        let deadline = ControlClient.now() + 30
        while !provided && ControlClient.now() < deadline {
            do {
                try again.call("plugin.provide", ["methods": .array(names.map(JSON.string))])
                provided = true
            } catch {
                guard case .rpc(let e) = error, e.message.contains("already provided by another plugin") else {
                    Issue.record("unexpected: \(error)")
                    return
                }
            }
        }
        #expect(provided)
        #expect(try other.call("host.ping") == .string("pong"))
    }

    @Test func overTheBudgetTheSlowestAreCutOffFirstAndAReaderIsUnaffected() throws {
        // 1 MiB for everyone; each client alone may hold 64 MiB, and nobody is cut off for a stall.
        let d = try DaemonHarness.started(config: "max_total_output_mb = 1\nmax_stall_ms = 3600000\n", ["--max-output-bytes", "67108864"])
        defer { d.close() }
        let driver = try d.client()
        try driver.call("session.create", ["id": "s", "kind": "main"])
        let title = String(repeating: "x", count: 64 << 10)
        var loads = 0
        func load() throws {
            loads += 1
            try driver.call("player.load", ["session": "s", "items": [["title": .string(title + "#\(loads)"), "duration": 100]]])
        }
        func queued() throws -> Int { Int(try DaemonHarness.serverStats(driver)["queuedOutputBytes"]?.intValue ?? 0) }
        func cutOff() throws -> Int { Int(try DaemonHarness.serverStats(driver)["cutOffOverBudget"]?.intValue ?? 0) }
        // Subscribers that never read, joining one after another: each holds less than the one
        // before it, and the first is the slowest. Well under the budget so far.
        var stalled: [RawPeer] = []
        for _ in 0..<3 {
            let peer = try RawPeer(path: d.socketPath)
            try peer.call("events.subscribe", ["topics": ["players"]])
            stalled.append(peer)
            let target = try queued() + (128 << 10)
            while try queued() < target && loads < 200 { try load() }
        }
        #expect(try cutOff() == 0)
        let reader = try d.client()
        try reader.call("events.subscribe", ["topics": ["players"]])
        // On until two have been cut off.
        while try cutOff() < 2 && loads < 400 {
            try load()
            // The reader gets every event, the last one included.
            var seen = false
            while !seen {
                let n = try reader.nextNotification(timeout: 10)
                seen = n["params"]?["type"] == "playerChanged"
                    && n["params"]?["player"]?["currentItem"]?["title"]?.stringValue?.hasSuffix("#\(loads)") == true
            }
        }
        let stats = try DaemonHarness.serverStats(driver)
        #expect(stats["cutOffOverBudget"] == 2)
        #expect(stats["cutOffOverLimit"] == 0 && stats["cutOffStalled"] == 0)
        #expect(Int(stats["queuedOutputBytes"]?.intValue ?? .max) <= 1 << 20, "back under the budget")
        #expect(stalled[0].isHungUp() && stalled[1].isHungUp(), "the two slowest were cut off")
        #expect(!stalled[2].isHungUp(), "the third, holding least, is still connected")
        #expect(try reader.call("host.ping") == "pong")
        #expect(d.exit == nil)
    }

    @Test func aHeldBackClientIsCutOffAfterTheConfiguredStall() throws {
        let d = try DaemonHarness.started(config: "max_stall_ms = 300\n", ["--max-output-bytes", "1048576"])
        defer { d.close() }
        let hog = try RawPeer(path: d.socketPath)
        let burst = Array(String(repeating: #"{"jsonrpc":"2.0","method":"rpc.discover","id":1}"# + "\n", count: 100).utf8)
        let pinger = try d.client()
        // Requests until the daemon stops reading us, then nothing: cut off 300 ms later.
        while let n = hog.sendSome(burst), n == burst.count {}
        var cut = false
        let deadline = ControlClient.now() + 20
        while !cut && ControlClient.now() < deadline {
            cut = try DaemonHarness.serverStats(pinger)["cutOffStalled"] == 1
        }
        #expect(cut)
        #expect(hog.isHungUp())
        #expect(try pinger.call("host.ping") == "pong")
    }

    @Test func clientThatNeverReadsIsCutOffOthersUnaffected() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start(["--max-output-bytes", "65536"]))
        let hog = try d.client(timeout: 20)
        let other = try d.client()
        // Pipeline pings and never read: replies pile up past the limit and the daemon hangs up.
        let burst = Array(String(repeating: #"{"jsonrpc":"2.0","method":"host.ping","id":1}"# + "\n", count: 2000).utf8)
        var cutOff = false
        for _ in 0..<200 {
            do { try hog.send(burst) } catch {
                cutOff = true
                break
            }
            #expect(try other.call("host.ping") == "pong")
        }
        #expect(cutOff, "the daemon closed the connection of the client that does not read")
        #expect(try other.call("host.ping") == "pong")
        #expect(try other.call("host.stats")["connections"] == 1)
        #expect(d.stop()?.status == 0)
        #expect(d.stderrText.contains("client is not reading"))
    }

    @Test func connectionCapRefusesWithAClearError() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start(["--max-connections", "2"]))
        let a = try d.client()
        let b = try d.client()
        _ = try a.call("host.ping")
        _ = try b.call("host.ping")
        let c = try d.client()
        let refusal = try c.readMessage()
        #expect(refusal["error"]?["code"]?.intValue == RPCErrorCode.limitExceeded.rawValue)
        #expect(throws: ClientError.self) { try c.readMessage() }
        #expect(try a.call("host.ping") == "pong")
        #expect(d.stop()?.status == 0)
    }

    @Test func peerOfAnotherUidIsRefused() throws {
        guard getuid() == 0 else { return }  // needs root to act as another uid
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start())
        // Open the directory and socket so uid 65534 may connect at all; the daemon must still refuse.
        chmod(d.directory, 0o755)
        chmod(d.socketPath, 0o666)
        let script = """
            import socket, os, sys
            os.setgid(65534); os.setuid(65534)
            s = socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect(sys.argv[1])
            try:
                s.sendall(b'{"jsonrpc":"2.0","method":"host.ping","id":1}\\n')
                print("reply:" + repr(s.recv(100)))
            except (ConnectionResetError, BrokenPipeError):
                print("reply:b''")
            """
        let r = try runShell("python3 -c '\(script.replacingQuote())' '\(d.socketPath)'")
        #expect(r.output.contains("reply:b''"), "the other uid got nothing but a hang-up: \(r.output)")
        #expect(try d.client().call("host.stats")["connectionsRefused"] == 1)
        #expect(d.stop()?.status == 0)
    }

    /// The fuzz over the real socket, short (`FUZZ_SECONDS`, default 3): what the embedded
    /// host's fuzz (`FuzzTests`) cannot reach — the transport (non-blocking partial writes,
    /// requests split across reads, connections that go away with forwarded calls pending), the
    /// methods only the daemon has (`host.reload`, `host.doctor`, MPRIS, artwork, plugins, the
    /// web remote), and the daemon's memory over the run (its RSS stays bounded).
    @Test("every rpc.discover method of the daemon, over the real socket")
    func fuzzOverTheRealSocket() throws {
        let settings = FuzzSettings(defaultSeconds: 3)
        let tag = settings.tag
        let daemon = try DaemonHarness()
        defer { daemon.close() }
        // Its own config directory: the fuzz calls host.reload, which must not read the user's.
        var environment: [String: String] = [:]
        for key in ["PATH", "HOME", "LANG", "XDG_RUNTIME_DIR"] { environment[key] = FuzzSettings.environment(key) }
        environment["XDG_CONFIG_HOME"] = daemon.directory + "/config"
        try #require(try daemon.start(environment: environment), "daemon did not start: \(daemon.stderrText)")
        guard let pid = daemon.process?.pid else { Issue.record("no pid"); return }

        let control = try daemon.client(timeout: 10)
        let methods = FuzzMethod.all(from: try control.call("rpc.discover"))
        try #require(methods.count > 10, "rpc.discover listed \(methods.count) methods")
        var driver = FuzzDriver(settings: settings, methods: methods, excluded: ["host.shutdown"])

        // Warm up once so the baseline counts the daemon's steady allocations, not its first ones.
        _ = try control.call("host.stats")
        let rssBefore = residentKiB(pid: pid) ?? 0

        var peers = try (0..<4).map { _ in try FuzzPeer(path: daemon.socketPath) }
        try driver.run(seconds: settings.seconds, peers: &peers, makePeer: { try FuzzPeer(path: daemon.socketPath) },
                       retire: { _ in }, pump: { peers in
                           pumpFuzzPeers(peers, until: ControlClient.now() + 30)
                           // Drain the daemon's stderr (the harness reads it only while its loop runs): a full
                           // pipe would block the daemon's synchronous log writes, a hang of the test's making.
                           daemon.runUntil(0.001) { false }
                       }, ping: { try control.call("host.ping") },
                       state: { "daemon exit \(String(describing: daemon.exit))" },
                       diagnose: {
                           // A hung daemon: SIGQUIT makes the Swift runtime print where it is.
                           if daemon.waitForExit(deadline: 2) == nil { _ = kill(pid, SIGQUIT) }
                           let exit = daemon.waitForExit(deadline: 20)
                           let trace = daemon.stderrText.range(of: "Thread 0").map { String(daemon.stderrText[$0.lowerBound...].prefix(6000)) }
                               ?? String(daemon.stderrText.suffix(6000))
                           return "daemon exit \(String(describing: exit)); stderr: \(trace)"
                       })
        peers.removeAll()

        let rssAfter = residentKiB(pid: pid) ?? 0
        // Generous: the fuzz creates sessions, targets and methods that live on; this catches a
        // leak per request, not a cache.
        #expect(rssAfter - rssBefore < 256 * 1024, "\(tag): RSS grew from \(rssBefore) KiB to \(rssAfter) KiB over \(driver.sent) requests")
        #expect(daemon.exit == nil, "\(tag): the daemon exited: \(String(describing: daemon.exit)) \(daemon.stderrText.suffix(2000))")
        #expect(Set(driver.calls.keys).count > methods.count / 2, "\(tag): only \(driver.calls.count) methods were called")
        print("fuzz: seed \(settings.seed) (real socket), \(Int(settings.seconds)) s, \(driver.rounds) rounds, \(driver.sent) requests, \(driver.calls.count) methods, RSS \(rssBefore) → \(rssAfter) KiB")
        control.close()
    }
}
