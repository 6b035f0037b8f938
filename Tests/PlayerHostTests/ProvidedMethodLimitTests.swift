import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient
@testable import PlayerHostRPC

/// Issue 16 item 3, methods one connection may provide (`max_provided_methods`): going over it
/// is error 1050 naming the key, nothing is added, other clients are unaffected; a provider
/// with many methods going away is dropped in slices while others are served.
@Suite(.serialized) struct ProvidedMethodLimitTests {
    func daemon(_ limit: Int, _ more: String = "") throws -> DaemonHarness {
        let d = try DaemonHarness()
        let config = d.directory + "/limits.toml"
        _ = try runShell("printf 'max_provided_methods = \(limit)\\n\(more)' > '\(config)'")
        #expect(try d.start(["--config", config]))
        return d
    }

    func methodNames(_ c: ControlClient) throws -> Set<String> {
        Set(FuzzMethod.all(from: try c.call("rpc.discover")).map(\.name))
    }

    @Test func providedMethodsArePerConnection() throws {
        let d = try daemon(3)
        defer { d.close() }
        let greedy = try d.client()
        try greedy.call("plugin.provide", ["methods": ["g.a", "g.b"]])
        // Providing one already provided again is not a new one.
        try greedy.call("plugin.provide", ["methods": ["g.a", "g.c"]])
        var refused: RPCError?
        do { try greedy.call("plugin.provide", ["methods": ["g.d"]]) } catch {
            if case .rpc(let r) = error { refused = r }
        }
        #expect(refused?.code == RPCErrorCode.limitExceeded.rawValue, "got \(String(describing: refused))")
        #expect(refused?.data?["limit"] == .string("max_provided_methods") && refused?.data?["value"] == .int(3))
        #expect(refused?.message.contains("max_provided_methods") == true)
        let other = try d.client()
        #expect(try !methodNames(other).contains("g.d"))
        // Another connection has its own budget.
        try other.call("plugin.provide", ["methods": ["o.a", "o.b", "o.c"]])
        #expect(try other.call("host.ping") == .string("pong"))
    }

    @Test func aProviderWithManyMethodsGoingAwayIsDroppedWhileOthersAreServed() throws {
        let d = try daemon(10_000)
        defer { d.close() }
        let pinger = try d.client()
        let before = try methodNames(pinger)
        let big = try d.client(timeout: 60)
        let names: [JSON] = (0..<5_000).map { .string("big.m\($0)") }
        try big.call("plugin.provide", ["methods": .array(names)])
        #expect(try methodNames(pinger).count == before.count + 5_000)
        big.close()
        // Served while the methods are dropped, and every one of them goes.
        #expect(try pinger.call("host.ping") == .string("pong"))
        var after = try methodNames(pinger)
        let deadline = ControlClient.now() + 30
        while after != before && ControlClient.now() < deadline { after = try methodNames(pinger) }
        #expect(after == before)
    }

    @Test func twentyThousandMethodsGetOneClearAnswerNeverASilentClose() throws {
        let d = try daemon(30_000)
        defer { d.close() }
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
        #expect(try methodNames(other).isSuperset(of: names))
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

    /// Issue 21 item 9: calls one caller may have waiting at provided methods
    /// (`max_pending_provided_calls`). A plugin that never answers held 134 000 of one caller's
    /// calls (+179 MiB); past the limit a call is error 1050 naming the key, at once. Each caller
    /// has its own budget, and an answer frees a place.
    @Test func pendingCallsPerCallerAreCapped() throws {
        let d = try daemon(256, "max_pending_provided_calls = 8\n")
        defer { d.close() }
        let provider = try d.client()
        try provider.call("plugin.provide", ["methods": ["slow.m"]])
        let caller = try d.client(timeout: 5)
        func send(_ c: ControlClient, ids: Range<Int>) throws {
            var lines: [UInt8] = []
            for i in ids { RPCEncoder.request(method: "slow.m", params: [:], id: Int64(i), into: &lines) }
            try c.send(lines)
        }
        // Nine at once from one caller, eight from another (a budget of its own).
        try send(caller, ids: 0..<9)
        let other = try d.client(timeout: 5)
        try send(other, ids: 100..<108)
        // The plugin answers every call it is given: 16 (with no limit it would be given 17).
        var answered = 0
        while answered < 16 {
            let r = try provider.readMessage()
            guard r["method"] == "slow.m", let id = r["id"] else { continue }
            try provider.send(Array(JSON.object(["jsonrpc": "2.0", "id": id, "result": true]).serialized()) + [0x0A])
            answered += 1
        }
        // Replies come in request order: the first eight answered, the ninth refused (1050).
        for i in 0..<8 {
            let m = try caller.readMessage()
            #expect(m["id"] == .int(Int64(i)) && m["result"] == true, "\(m)")
        }
        let refused = try caller.readMessage()
        #expect(refused["id"] == 8, "\(refused)")
        #expect(refused["error"]?["code"] == .int(Int64(RPCErrorCode.limitExceeded.rawValue)), "\(refused)")
        #expect(refused["error"]?["data"]?["limit"] == "max_pending_provided_calls" && refused["error"]?["data"]?["value"] == 8)
        #expect(refused["error"]?["message"]?.stringValue?.contains("max_pending_provided_calls") == true)
        for i in 100..<108 {
            let m = try other.readMessage()
            #expect(m["id"] == .int(Int64(i)) && m["result"] == true, "\(m)")
        }
        // The answers freed the places: the caller's next call goes through.
        try send(caller, ids: 9..<10)
        let r = try provider.readMessage()
        let id = try #require(r["id"])
        try provider.send(Array(JSON.object(["jsonrpc": "2.0", "id": id, "result": true]).serialized()) + [0x0A])
        #expect(try caller.readMessage()["result"] == true)
    }
}
