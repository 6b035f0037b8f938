import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient

/// A seeded, bounded fuzz of every method an embedded host's `rpc.discover` lists, with valid
/// and mutated params, pipelined over several connections (`FuzzDriver`). Checks: exactly one
/// reply per request id, no reading client hung up on, another connection's `host.ping`
/// answered throughout. On manual time a request waiting for a timer costs no wall time, so a
/// run sends many times the requests the socket fuzz does in the same seconds.
///
/// What only the real daemon has — its transport, its own methods (`host.reload`,
/// `host.shutdown`, `host.doctor`, MPRIS, artwork, plugins, the web remote) and its memory
/// over a run — is fuzzed, shorter, by `SocketTransportLimitsEndToEndTests.fuzzOverTheRealSocket`.
///
/// `FUZZ_SECONDS` (default 4) and `FUZZ_SEED` change the run; `scripts/fuzz.sh SECONDS SEED`
/// runs a longer one.
@Suite("Fuzz")
struct FuzzTests {
    @Test("every rpc.discover method of the embedded host, valid and mutated params, over several connections")
    func fuzzEveryDiscoveredMethod() throws {
        let settings = FuzzSettings(defaultSeconds: 4)
        let host = EmbeddedHost()
        defer { host.close() }
        let control = try host.client(timeout: 10)
        let methods = FuzzMethod.all(from: try control.call("rpc.discover"))
        try #require(methods.count > 10, "rpc.discover listed \(methods.count) methods")
        var driver = FuzzDriver(settings: settings, methods: methods, excluded: ["host.shutdown"])

        var peers = try (0..<4).map { _ in EmbeddedFuzzPeer(try host.client()) }
        try driver.run(seconds: settings.seconds, peers: &peers, makePeer: { EmbeddedFuzzPeer(try host.client()) },
                       retire: { $0.client.close() }, pump: { pumpEmbeddedFuzzPeers($0, host: host) },
                       ping: { try control.call("host.ping") },
                       state: { "host closed: \(host.isClosed)" },
                       diagnose: { "\(host.connectionCount) connections, \(host.scheduler.armedTimerCount) timers armed" })
        #expect(!host.isClosed, "\(driver.tag): the host closed")
        #expect(Set(driver.calls.keys).count > methods.count / 2, "\(driver.tag): only \(driver.calls.count) methods were called")
        print("fuzz: seed \(settings.seed) (embedded host), \(Int(settings.seconds)) s, \(driver.rounds) rounds, \(driver.sent) requests, \(driver.calls.count) methods")
        control.close()
    }
}
