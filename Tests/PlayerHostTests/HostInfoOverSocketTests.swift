import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient
@testable import PlayerHostRPC

/// The host's own methods over the protocol (an embedded host): ping, version, hello, stats and
/// discovery, and the counters they move. (Moved from `DaemonEndToEndTests`; that the real
/// daemon lists its own `host.shutdown` beside them, and stops cleanly, stays there.)
@Suite struct HostInfoOverSocketTests {
    @Test func pingVersionStatsDiscover() throws {
        let host = EmbeddedHost()
        defer { host.close() }
        let c = try host.client()
        #expect(try c.call("host.ping") == "pong")
        #expect(try c.call("host.version")["protocol"] == .int(Int64(HostVersion.protocolVersion)))
        let hello = try c.call("host.hello", ["name": "tests", "version": "1"])
        #expect(hello["app"] == "tests")
        let stats = try c.call("host.stats")
        #expect(stats["connections"] == 1)
        #expect(stats["requestsServed"] == 4)
        let doc = try c.call("rpc.discover")
        let names = Set(doc["methods"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? [])
        #expect(names.isSuperset(of: ["host.hello", "host.ping", "host.version", "host.stats", "rpc.discover"]))
        #expect(!host.isClosed)
    }
}
