import Testing
@testable import PlayerHost
@testable import PlayerHostHost

/// Issue 24: start is "apply the config to an empty host", and a reload takes the same path, so
/// every key takes effect on reload. Before, `HostDaemon.init` read the model limits,
/// `max_provided_methods` and `max_pending_provided_calls` at start only and
/// `ConfigReloader.apply` never looked at them: a reload answered "reloaded" and kept the old
/// values. Each test reloads one key on an embedded host and observes the change through the
/// protocol; keys only a restart applies are named in the reload's answer.
@Suite struct ConfigApplyTests {
    func config(_ text: String) throws -> HostConfig { try HostConfig.parse(text, source: "test.toml") }

    /// The limit error a call got (nil: it succeeded).
    func limitError(_ body: () throws -> Void) -> (limit: String?, value: Int?)? {
        do { try body() } catch {
            guard case .rpc(let e) = error as? ClientError, e.code == RPCErrorCode.limitExceeded.rawValue else { return ("other: \(error)", nil) }
            return (e.data?["limit"]?.stringValue, e.data?["value"]?.intValue)
        }
        return nil
    }

    @Test func maxSessionsPerAppTakesEffectOnReload() throws {
        let d = try EmbeddedHost(configTOML: "max_sessions_per_app = 1")
        defer { d.close() }
        let c = try d.client()
        try c.call("host.hello", ["name": "app"])
        try c.call("session.create", ["id": "a", "kind": "main"])
        #expect(limitError { try c.call("session.create", ["id": "b", "kind": "main"]) }! == ("max_sessions_per_app", 1))
        let changes = d.reload(try config("max_sessions_per_app = 2"))
        #expect(changes.changed.contains("max_sessions_per_app"))
        try c.call("session.create", ["id": "b", "kind": "main"])
        #expect(limitError { try c.call("session.create", ["id": "c", "kind": "main"]) }! == ("max_sessions_per_app", 2))
    }

    @Test func maxTargetsPerCommandTakesEffectOnReload() throws {
        let d = try EmbeddedHost(configTOML: "max_targets_per_command = 1")
        defer { d.close() }
        let c = try d.client()
        try c.call("session.create", ["id": "s", "kind": "main"])
        try c.call("command.addTarget", ["session": "s", "command": "play"])
        #expect(limitError { try c.call("command.addTarget", ["session": "s", "command": "play"]) }! == ("max_targets_per_command", 1))
        d.reload(try config("max_targets_per_command = 2"))
        try c.call("command.addTarget", ["session": "s", "command": "play"])
        #expect(limitError { try c.call("command.addTarget", ["session": "s", "command": "play"]) }! == ("max_targets_per_command", 2))
    }

    @Test func maxQueueItemsTakesEffectOnReload() throws {
        let d = try EmbeddedHost(configTOML: "max_queue_items = 2")
        defer { d.close() }
        let c = try d.client()
        try c.call("session.create", ["id": "s", "kind": "main"])
        let three: JSON = [["title": "1"], ["title": "2"], ["title": "3"]]
        #expect(limitError { try c.call("player.load", ["session": "s", "items": three]) }! == ("max_queue_items", 2))
        d.reload(try config("max_queue_items = 3"))
        try c.call("player.load", ["session": "s", "items": three])
    }

    @Test func maxProvidedMethodsTakesEffectOnReload() throws {
        let d = try EmbeddedHost(configTOML: "max_provided_methods = 1")
        defer { d.close() }
        let p = try d.client()
        try p.call("plugin.provide", ["methods": ["p.a"]])
        #expect(limitError { try p.call("plugin.provide", ["methods": ["p.b"]]) }! == ("max_provided_methods", 1))
        let changes = d.reload(try config("max_provided_methods = 2"))
        #expect(changes.changed == ["max_provided_methods"])
        try p.call("plugin.provide", ["methods": ["p.b"]])
        #expect(limitError { try p.call("plugin.provide", ["methods": ["p.c"]]) }! == ("max_provided_methods", 2))
        // Removed from the file: back to the default (256), as a restart would do.
        d.reload(HostConfig())
        try p.call("plugin.provide", ["methods": ["p.c"]])
    }

    @Test func maxPendingProvidedCallsTakesEffectOnReload() throws {
        let d = try EmbeddedHost(configTOML: "max_pending_provided_calls = 1")
        defer { d.close() }
        let provider = try d.client()
        try provider.call("plugin.provide", ["methods": ["slow.m"]])
        let caller = try d.client()
        func send(_ ids: Range<Int>) throws {
            var lines: [UInt8] = []
            for i in ids { RPCEncoder.request(method: "slow.m", params: [:], id: Int64(i), into: &lines) }
            try caller.send(lines)
        }
        // Two at once: the second is refused (replies wait in request order behind the first).
        try send(0..<2)
        d.reload(try config("max_pending_provided_calls = 3"))
        // Now three may wait: the first still does, two more go through to the plugin.
        try send(2..<4)
        var asked: [JSON] = []
        for _ in 0..<3 { asked.append(try provider.readMessage()) }
        #expect(asked.map { $0["method"] } == ["slow.m", "slow.m", "slow.m"])
        for r in asked { try provider.send(Array(JSON.object(["jsonrpc": "2.0", "id": r["id"]!, "result": true]).serialized()) + [0x0A]) }
        let replies = try (0..<4).map { _ in try caller.readMessage() }
        #expect(replies.map { $0["id"] } == [0, 1, 2, 3])
        #expect(replies[1]["error"]?["data"]?["limit"] == "max_pending_provided_calls" && replies[1]["error"]?["data"]?["value"] == 1)
        #expect(replies[0]["result"] == true && replies[2]["result"] == true && replies[3]["result"] == true)
    }

    @Test func maxSubscriptionsPerClientTakesEffectOnReload() throws {
        let d = try EmbeddedHost(configTOML: "max_subscriptions_per_client = 1")
        defer { d.close() }
        let c = try d.client()
        #expect(limitError { try c.call("events.subscribe", ["topics": ["sessions", "players"]]) }! == ("max_subscriptions_per_client", 1))
        d.reload(try config("max_subscriptions_per_client = 2"))
        try c.call("events.subscribe", ["topics": ["sessions", "players"]])
    }

    @Test func commandTimeoutTakesEffectOnReload() throws {
        let d = try EmbeddedHost(configTOML: "command_timeout_ms = 5000")
        defer { d.close() }
        let handler = try d.client()
        try handler.call("session.create", ["id": "s", "kind": "main"])
        try handler.call("command.addTarget", ["session": "s", "command": "play"])
        try handler.call("command.enable", ["session": "s", "command": "play", "enabled": true])
        d.reload(try config("command_timeout_ms = 100"))
        let sender = try d.client()
        let start = d.scheduler.nowNanoseconds
        #expect(try sender.call("command.send", ["command": "play", "session": "s"])["status"] == "commandFailed")
        // Failed at the new timeout, in host time: 100 ms, not 5 s.
        #expect((d.scheduler.nowNanoseconds - start) / 1_000_000 == 100)
    }

    @Test func coalesceWindowTakesEffectOnReload() throws {
        let d = try EmbeddedHost(configTOML: "coalesce_ms = 0")
        defer { d.close() }
        d.reload(try config("coalesce_ms = 60000"))
        let app = try d.client()
        try app.call("session.create", ["id": "s", "kind": "main", "automaticallyPublishes": false])
        try app.call("audio.configure", ["session": "s", "category": "playback"])
        try app.call("audio.activate", ["session": "s"])
        try app.call("command.bindDefaults", ["session": "s"])
        try app.call("info.set", ["session": "s", "info": ["title": "first", "rate": 1]])
        try app.call("info.update", ["session": "s", "info": ["title": "second"]])
        // The second change waits in the 60 s window the reload set (with 0 it would be sent).
        #expect(try app.call("host.stats")["gateTimerArmed"] == true)
    }

    /// Keys only a restart applies are named, not silently kept; keys applied are not among them.
    @Test func aReloadNamesTheKeysThatNeedARestart() throws {
        let d = EmbeddedHost()
        defer { d.close() }
        let changes = d.reload(try config("socket = \"/tmp/elsewhere.sock\"\nstate_dir = \"/tmp/st\"\nmax_queue_items = 9\n[mpris]\nenabled = false\n"))
        #expect(changes.restartNeeded == ["socket", "state_dir", "mpris.enabled"])
        #expect(changes.changed == ["max_queue_items"])
    }
}
