import Testing
@testable import PlayerHost

/// Issue 16 item 3, the model's limits through the protocol (an embedded host): each is a
/// config key, going over it is error 1050 naming the key and its value, and other clients are
/// unaffected.
@Suite(.serialized) struct ModelLimitsOverSocketTests {
    func daemon() throws -> EmbeddedHost {
        try EmbeddedHost(configTOML: "max_sessions_per_app = 3\nmax_targets_per_command = 2\nmax_queue_items = 5\n")
    }

    /// The RPC error a call threw, if it threw one.
    func rpcError(_ body: () throws -> Void) -> RPCError? {
        do { try body() } catch { if case .rpc(let r) = error as? ClientError { return r } }
        return nil
    }

    func expectLimit(_ key: String, _ value: Int, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
        let e = rpcError(body)
        #expect(e?.code == RPCErrorCode.limitExceeded.rawValue, "got \(String(describing: e))", sourceLocation: sourceLocation)
        #expect(e?.data?["limit"] == .string(key) && e?.data?["value"] == .int(Int64(value)), sourceLocation: sourceLocation)
        #expect(e?.message.contains(key) == true, sourceLocation: sourceLocation)
    }

    @Test func sessionsPerAppAreLimitedPerApp() throws {
        let d = try daemon()
        defer { d.close() }
        let app = try d.client()
        try app.call("host.hello", ["name": "greedy"])
        for i in 0..<3 { try app.call("session.create", ["id": .string("g\(i)"), "kind": "main"]) }
        expectLimit("max_sessions_per_app", 3) { try app.call("session.create", ["id": "g3", "kind": "main"]) }
        // Nothing was created, and another app still may.
        let other = try d.client()
        try other.call("host.hello", ["name": "modest"])
        try other.call("session.create", ["id": "m0", "kind": "main"])
        #expect(rpcError { try other.call("session.get", ["session": "g3"]) }?.code == RPCErrorCode.sessionNotFound.rawValue)
        // Closing one makes room again.
        try app.call("session.close", ["session": "g0"])
        try app.call("session.create", ["id": "g3", "kind": "main"])
    }

    @Test func targetsPerCommandAndItemsPerQueue() throws {
        let d = try daemon()
        defer { d.close() }
        let c = try d.client()
        try c.call("session.create", ["id": "s", "kind": "main"])
        for _ in 0..<2 { try c.call("command.addTarget", ["session": "s", "command": "play"]) }
        expectLimit("max_targets_per_command", 2) { try c.call("command.addTarget", ["session": "s", "command": "play"]) }
        // Per command: another command still takes targets.
        try c.call("command.addTarget", ["session": "s", "command": "pause"])

        let six: JSON = .array((0..<6).map { .object(["title": .string("t\($0)"), "duration": 10]) })
        expectLimit("max_queue_items", 5) { try c.call("player.load", ["session": "s", "items": six]) }
        let five: JSON = .array((0..<5).map { .object(["title": .string("t\($0)"), "duration": 10]) })
        let player = try c.call("player.load", ["session": "s", "items": five])
        // Replies carry the current item and the count, never the queue; it is read in pages.
        #expect(player["items"] == nil && player["queueCount"] == 5 && player["currentItem"]?["title"] == "t0")
        let page = try c.call("player.queue", ["session": "s", "offset": 3, "limit": 10])
        #expect(page["count"] == 5 && page["offset"] == 3)
        #expect(page["items"]?.arrayValue?.map { $0["title"] } == ["t3", "t4"])
        #expect(try d.client().call("host.ping") == "pong")
    }
}
