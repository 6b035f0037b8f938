import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient
@testable import PlayerHostRPC

/// Issue 16 item 3, methods one connection may provide (`max_provided_methods`): going over it
/// is error 1050 naming the key, nothing is added, other clients are unaffected; a provider
/// with many methods going away is dropped in slices while others are served.
@Suite(.serialized) struct ProvidedMethodLimitTests {
    func daemon(_ limit: Int) throws -> DaemonHarness {
        let d = try DaemonHarness()
        let config = d.directory + "/limits.toml"
        _ = try runShell("printf 'max_provided_methods = \(limit)\\n' > '\(config)'")
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
}
