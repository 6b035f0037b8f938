import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient
@testable import PlayerHostRPC

/// Issue 16 items 2 and 3, what one client may ask the host to hold, over the protocol (an
/// embedded host): a reply over the output limit is an error reply to a client that reads, never
/// a disconnect; subscriptions per client are bounded by `max_subscriptions_per_client`, which a
/// reload raises at once, with the output budget and the fairness knobs. (Moved from the daemon
/// suites `FairnessTests` and `OutputBudgetTests`; what the socket transport does with clients
/// that do not read is in `SocketTransportLimitsEndToEndTests`.)
@Suite struct ClientLimitsOverSocketTests {
    @Test func aReadingClientAskingForAHugeReplyGetsAnErrorAndStays() throws {
        // As `playerhostd --max-output-bytes 65536`.
        var limits = RPCLimits()
        limits.maxOutputBytes = 65536
        let d = EmbeddedHost(limits: limits)
        defer { d.close() }
        // Enough provided methods that rpc.discover is over the 64 kB limit, from six providers
        // (each stays under max_provided_methods).
        var providers: [EmbeddedClient] = []
        for p in 0..<6 {
            let provider = try d.client()
            let names = (0..<250).map { JSON.string("big.p\(p).method\($0)") }
            try provider.call("plugin.provide", ["methods": .array(names)])
            providers.append(provider)
        }
        defer { providers.forEach { $0.close() } }
        let asker = try d.client()
        #expect {
            try asker.call("rpc.discover")
        } throws: { error in
            guard case ClientError.rpc(let e) = error else { return false }
            return e.code == RPCErrorCode.limitExceeded.rawValue && e.data?["limit"] == 65536
        }
        #expect(try asker.call("host.ping") == "pong", "still connected")
        #expect(!d.isClosed)
    }

    @Test func subscriptionsPerClientAreBoundedAndTheLimitReloads() throws {
        let d = try EmbeddedHost(configTOML: "max_subscriptions_per_client = 1\n")
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
        let changes = try d.reload(configTOML: "max_subscriptions_per_client = 4\nmax_total_output_mb = 3\nrequests_per_turn = 8\nturn_budget_us = 500\n")
        #expect(Set(changes.changed).isSuperset(of: ["max_subscriptions_per_client", "max_total_output_mb", "requests_per_turn", "turn_budget_us"]))
        try c.call("events.subscribe", ["topics": ["sessions"]])
        // What the daemon's `host.stats` reports as the server's `outputBudgetBytes`.
        #expect(d.core.dispatcher.limits.maxTotalOutputBytes == 3 << 20)
    }
}
