import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient
@testable import PlayerHostRPC

/// Issue 16 item 3, methods one connection may provide (`max_provided_methods`): going over it
/// is error 1050 naming the key, nothing is added, other clients are unaffected; a provider
/// with many methods going away is dropped in slices while others are served.
///
/// On an embedded host; the 20 000-method provider (a line over `--max-line-bytes`, a 3 MB
/// reply read slowly) needs the real transport and is in `SocketTransportLimitsEndToEndTests`.
@Suite(.serialized) struct ProvidedMethodLimitTests {
    func daemon(_ limit: Int, _ more: String = "") throws -> EmbeddedHost {
        try EmbeddedHost(configTOML: "max_provided_methods = \(limit)\n\(more)")
    }

    func methodNames(_ c: EmbeddedClient) throws -> Set<String> {
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
        // One host turn: the disconnect is seen and the first slice dropped, not all 5 000.
        d.scheduler.runPending(limit: 1)
        // Served while the methods are dropped: a ping and a listing read in the next turn are
        // answered, and the listing still has some of them.
        try pinger.send(requestLine("host.ping", id: 900) + requestLine("rpc.discover", id: 901))
        #expect(try pinger.readMessage()["result"] == .string("pong"))
        let during = Set(FuzzMethod.all(from: try pinger.readMessage()["result"] ?? .null).map(\.name))
        #expect(during.count > before.count && during.count < before.count + 5_000, "dropped in slices: \(during.count - before.count) left")
        // Every one of them goes (each call lets the host run its later turns first).
        var after = during
        for _ in 0..<100 where after != before { after = try methodNames(pinger) }
        #expect(after == before)
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
        func send(_ c: EmbeddedClient, ids: Range<Int>) throws {
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
