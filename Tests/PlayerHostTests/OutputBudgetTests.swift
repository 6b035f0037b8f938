import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient
@testable import PlayerHostConfig
@testable import PlayerHostRPC

/// Issue 16 item 3, what all clients together may make the daemon hold: a global budget for
/// unsent output (`max_total_output_mb`, the slowest cut off first), subscriptions per client,
/// and the fairness knobs as config keys (checked, hot-reloaded).
@Suite(.serialized) struct OutputBudgetTests {
    /// A daemon reading `config` (written to its directory); `arguments` go on the command line.
    func daemon(_ config: String, _ arguments: [String] = []) throws -> (DaemonHarness, String) {
        let d = try DaemonHarness()
        let path = d.directory + "/budget.toml"
        try write(config, to: path)
        #expect(try d.start(["--config", path] + arguments))
        return (d, path)
    }

    func write(_ text: String, to path: String) throws {
        guard let f = fopen(path, "w") else { throw RawPeer.Failure(description: "cannot write \(path)") }
        fputs(text, f)
        fclose(f)
    }

    func server(_ c: ControlClient) throws -> JSON { try c.call("host.stats")["server"] ?? .null }

    // MARK: - Without a socket

    @Test func theKnobsAreConfigKeysThatReachTheLimits() throws {
        let config = try HostConfig.parse("""
            max_total_output_mb = 2
            requests_per_turn = 4
            turn_budget_us = 250
            output_high_water_kb = 64
            max_stall_ms = 250
            max_subscriptions_per_client = 3
            """)
        var base = RPCLimits()
        base.maxOutputBytes = 1 << 20
        let l = config.rpcLimits(over: base)
        #expect(l.maxTotalOutputBytes == 2 << 20)
        #expect(l.requestsPerTurn == 4)
        #expect(l.turnBudgetMicroseconds == 250)
        #expect(l.effectiveHighWater == 64 << 10)
        #expect(l.maxStallMilliseconds == 250)
        #expect(l.maxOutputBytes == 1 << 20, "the command line's limits stay")
        #expect(config.maxSubscriptionsPerClient == 3)
        #expect(HostConfig().rpcLimits(over: base) == base, "no keys: the defaults")
    }

    @Test func outOfRangeKnobsAreRefusedWithTheKeyAndItsLine() throws {
        for (text, key) in [("coalesce_ms = 10\nrequests_per_turn = 0\n", "requests_per_turn"),
                            ("\nmax_stall_ms = 5\n", "max_stall_ms"),
                            ("turn_budget_us = 0\n", "turn_budget_us"),
                            ("max_total_output_mb = 0\n", "max_total_output_mb"),
                            ("output_high_water_kb = -1\n", "output_high_water_kb"),
                            ("max_subscriptions_per_client = 0\n", "max_subscriptions_per_client")] {
            #expect {
                try HostConfig.parse(text, source: "ph.toml")
            } throws: { error in
                guard case ConfigError.config(let message) = error else { return false }
                return message.hasPrefix("ph.toml:2: \(key): must be") || message.hasPrefix("ph.toml:1: \(key): must be")
            }
        }
    }

    // MARK: - Against the daemon

    @Test func overTheBudgetTheSlowestAreCutOffFirstAndAReaderIsUnaffected() throws {
        // 1 MiB for everyone; each client alone may hold 64 MiB, and nobody is cut off for a stall.
        let (d, _) = try daemon("max_total_output_mb = 1\nmax_stall_ms = 3600000\n", ["--max-output-bytes", "67108864"])
        defer { d.close() }
        let driver = try d.client()
        try driver.call("session.create", ["id": "s", "kind": "main"])
        let title = String(repeating: "x", count: 64 << 10)
        var loads = 0
        func load() throws {
            loads += 1
            try driver.call("player.load", ["session": "s", "items": [["title": .string(title + "#\(loads)"), "duration": 100]]])
        }
        func queued() throws -> Int { Int(try server(driver)["queuedOutputBytes"]?.intValue ?? 0) }
        func cutOff() throws -> Int { Int(try server(driver)["cutOffOverBudget"]?.intValue ?? 0) }
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
        let stats = try server(driver)
        #expect(stats["cutOffOverBudget"] == 2)
        #expect(stats["cutOffOverLimit"] == 0 && stats["cutOffStalled"] == 0)
        #expect(Int(stats["queuedOutputBytes"]?.intValue ?? .max) <= 1 << 20, "back under the budget")
        #expect(stalled[0].isHungUp() && stalled[1].isHungUp(), "the two slowest were cut off")
        #expect(!stalled[2].isHungUp(), "the third, holding least, is still connected")
        #expect(try reader.call("host.ping") == "pong")
        #expect(d.exit == nil)
    }

    @Test func aHeldBackClientIsCutOffAfterTheConfiguredStall() throws {
        let (d, _) = try daemon("max_stall_ms = 300\n", ["--max-output-bytes", "1048576"])
        defer { d.close() }
        let hog = try RawPeer(path: d.socketPath)
        let burst = Array(String(repeating: #"{"jsonrpc":"2.0","method":"rpc.discover","id":1}"# + "\n", count: 100).utf8)
        let pinger = try d.client()
        // Requests until the daemon stops reading us, then nothing: cut off 300 ms later.
        while let n = hog.sendSome(burst), n == burst.count {}
        var cut = false
        let deadline = ControlClient.now() + 20
        while !cut && ControlClient.now() < deadline {
            cut = try server(pinger)["cutOffStalled"] == 1
        }
        #expect(cut)
        #expect(hog.isHungUp())
        #expect(try pinger.call("host.ping") == "pong")
    }

    @Test func subscriptionsPerClientAreBoundedAndTheLimitReloads() throws {
        let (d, path) = try daemon("max_subscriptions_per_client = 1\n")
        defer { d.close() }
        let c = try d.client()
        try c.call("events.subscribe", ["topics": ["players"]])
        #expect {
            try c.call("events.subscribe", ["topics": ["sessions"]])
        } throws: { error in
            guard case ClientError.rpc(let e) = error else { return false }
            return e.code == RPCErrorCode.limitExceeded.rawValue && e.data?["limit"] == "max_subscriptions_per_client"
                && e.data?["value"] == 1 && e.message.contains("max_subscriptions_per_client")
        }
        #expect(try d.client().call("host.ping") == "pong", "others are unaffected")
        // Raised in the file and reloaded: applies at once, with the budget and knobs.
        try write("max_subscriptions_per_client = 4\nmax_total_output_mb = 3\nrequests_per_turn = 8\nturn_budget_us = 500\n", to: path)
        let summary = try c.call("host.reload")
        let changed = summary["settingsChanged"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(Set(changed).isSuperset(of: ["max_subscriptions_per_client", "max_total_output_mb", "requests_per_turn", "turn_budget_us"]))
        try c.call("events.subscribe", ["topics": ["sessions"]])
        #expect(try server(c)["outputBudgetBytes"] == .int(3 << 20))
    }
}
