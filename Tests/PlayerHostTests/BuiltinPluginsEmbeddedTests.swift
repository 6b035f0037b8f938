import Testing
@testable import PlayerHost
@testable import PlayerHostHost
@testable import Plugins

/// Built-in plugins in the core (issue 24): each on its own in-memory connection into
/// `HostCore` (`PluginLink`), carrying the protocol's bytes as a plugin process sends them, so an
/// `EmbeddedHost` runs them on manual time — no daemon, socket or loop.
@Suite struct BuiltinPluginsEmbeddedTests {
    /// A plugin that provides a method, handles `play` on a session of its own, and can open a
    /// second app (as the MPRIS importer opens one per desktop player).
    final class Probe: SessionPlugin {
        let name = "probe"
        var actsForHost: Bool { false }
        var context: PluginContext?
        var commands: [JSON] = []
        /// What `play` answers; nil: never.
        var answer: CommandStatus? = .success
        var detached = 0

        func attach(_ c: PluginContext) {
            context = c
            c.provide("probe.echo", summary: "Echoes its params.") { params, reply in reply(.success(.object(params))) }
            c.call("session.create", ["id": "probe-s", "kind": "main"]) { _ in
                c.addTarget(session: "probe-s", command: "play") { [weak self] event, reply in
                    self?.commands.append(event)
                    if let status = self?.answer { reply(status) }
                }
            }
        }

        func detach() {
            detached += 1
            context = nil
        }
    }

    static let clockConfig = """
        command_timeout_ms = 300
        [[session]]
        id = "main"
        kind = "main"
        autoplay = true
          [[session.item]]
          title = "a"
          duration = 60

        """

    @Test func theClockSessionsPluginMakesTheConfiguredSessionsAndFollowsAReload() throws {
        let host = try EmbeddedHost(configTOML: Self.clockConfig)
        defer { host.close() }
        host.attach([ClockSessionsPlugin(sessions: host.core.config.sessions)])
        let c = try host.client()
        // Set up by the time `attach` returns, as by the daemon's READY=1.
        let main = try c.call("session.get", ["session": "main"])
        #expect(main["app"] == .string(NowPlayingModel.hostApp) && main["playbackState"] == "playing", "\(main)")
        host.advance(byMilliseconds: 2000)
        let np = try c.call("nowPlaying.get")
        #expect(np["session"] == "main" && np["info"]?["title"] == "a", "\(np)")
        #expect(try c.call("player.get", ["session": "main"])["elapsed"]?.doubleValue == 2.0, "the clock ran on host time")
        // The plugin's connection is the core's own: not a client in the counts.
        #expect(try c.call("host.stats")["connections"] == 1)

        // A reload: the added session is made by the plugin, the removed one closed by the core.
        let changes = try host.reload(configTOML: "[[session]]\nid = \"pip\"\nkind = \"pip\"\n")
        #expect(changes.sessionsRemoved == ["main"])
        #expect(try c.call("session.list").arrayValue?.compactMap { $0["id"]?.stringValue } == ["pip"])
    }

    @Test func aBuiltinsProvidedMethodAndCommandTargetWorkOverItsConnection() throws {
        let host = try EmbeddedHost(configTOML: "command_timeout_ms = 300\n")
        defer { host.close() }
        let probe = Probe()
        host.attach([probe])
        let c = try host.client()
        #expect(try c.call("probe.echo", ["x": 1]) == ["x": 1])
        #expect(try c.call("session.get", ["session": "probe-s"])["app"] == "probe", "host.hello named the app")

        #expect(try c.call("command.send", ["command": "play", "session": "probe-s"])["status"] == "success")
        #expect(probe.commands.count == 1 && probe.commands.first?["command"] == "play")

        // A plugin that never answers: the command fails at the timeout, in host time.
        probe.answer = nil
        let start = host.scheduler.nowNanoseconds
        #expect(try c.call("command.send", ["command": "play", "session": "probe-s"])["status"] == "commandFailed")
        #expect((host.scheduler.nowNanoseconds - start) / 1_000_000 == 300)
        #expect(probe.commands.count == 2)
    }

    @Test func aSecondAppOfABuiltinIsItsOwnConnectionAndGoesWithIt() throws {
        let host = EmbeddedHost()
        defer { host.close() }
        let probe = Probe()
        host.attach([probe])
        var second: PluginContext?
        probe.context?.openApp("second-app") { second = try? $0.get() }
        host.runUntilIdle()
        let app = try #require(second)
        app.call("session.create", ["id": "other", "kind": "pip"])
        host.runUntilIdle()
        let c = try host.client()
        #expect(try c.call("session.get", ["session": "other"])["app"] == "second-app")
        // Closed by its plugin: the core sees it go on its next turn, and its session with it.
        app.close()
        host.runUntilIdle()
        #expect(try c.call("session.list").arrayValue?.compactMap { $0["id"]?.stringValue } == ["probe-s"])
        #expect(probe.detached == 0, "the plugin's own connection is untouched")
    }

    /// The core's end is bounded where calls queue for it (`ProvidedMethods`' high-water mark),
    /// not by cutting the plugin off: a flood of big calls in one turn is refused past the mark,
    /// the plugin stays attached, and the calls that got through are answered.
    @Test func aFloodOfCallsToABuiltinIsRefusedPastTheHighWaterMarkAndCutsNothing() throws {
        let host = try EmbeddedHost(configTOML: "output_high_water_kb = 64\nmax_pending_provided_calls = 1000\n")
        defer { host.close() }
        let probe = Probe()
        host.attach([probe])
        let c = try host.client()
        let big = String(repeating: "x", count: 16 * 1024)
        var lines: [UInt8] = []
        for id in 1...40 { RPCEncoder.request(method: "probe.echo", params: ["s": .string(big)], id: Int64(id), into: &lines) }
        try c.send(lines)
        var answered = 0, refused = 0
        for _ in 1...40 {
            let reply = try c.readMessage()
            if reply["result"] != nil { answered += 1 }
            if reply["error"]?["data"]?["limit"] == "output_high_water_kb" { refused += 1 }
        }
        #expect(answered > 0 && refused > 0 && answered + refused == 40, "answered \(answered), refused \(refused)")
        #expect(probe.detached == 0 && probe.context?.isClosed == false)
        #expect(try c.call("probe.echo", ["after": true]) == ["after": true])
    }

    /// What a plugin wrote before it closed is still read, as a socket's bytes are read before
    /// its end: a session made with background audio in the same turn as the close outlives it.
    @Test func linesWrittenJustBeforeTheCloseAreStillServed() throws {
        let host = EmbeddedHost()
        defer { host.close() }
        let probe = Probe()
        host.attach([probe])
        var second: PluginContext?
        probe.context?.openApp("leaving") { second = try? $0.get() }
        host.runUntilIdle()
        let app = try #require(second)
        app.send("session.create", ["id": "kept", "kind": "main", "backgroundAudio": true])
        app.close()
        host.runUntilIdle()
        let c = try host.client()
        #expect(try c.call("session.list").arrayValue?.compactMap { $0["id"]?.stringValue }.sorted() == ["kept", "probe-s"])
    }

    /// A built-in's requests are served a turn's budget at a time, as a socket client's are: one
    /// that passes on a flood (a page's, a bus peer's) cannot hold the other clients for a turn.
    @Test func aBuiltinsFloodIsServedATurnsBudgetAtATime() throws {
        let host = EmbeddedHost()
        defer { host.close() }
        let probe = Probe()
        host.attach([probe])
        let before = host.core.dispatcher.linesReceived
        for _ in 0..<100 { probe.context?.send("host.ping") }
        host.scheduler.runPending(limit: 1)  // one turn
        #expect(host.core.dispatcher.linesReceived - before == RPCLimits().requestsPerTurn)
        host.runUntilIdle()
        #expect(host.core.dispatcher.linesReceived - before == 100)
        #expect(probe.context?.pendingCalls == 0, "every ping answered")
    }

    /// Closing the host ends the plugins' connections in the core too (their sessions and
    /// methods go), as the daemon's loop runs dry after its core closes.
    @Test func closingTheHostEndsThePluginsConnections() throws {
        let host = EmbeddedHost()
        let probe = Probe()
        host.attach([probe])
        #expect(host.core.connection(id: HostCore.firstLinkID) != nil)
        host.close()
        #expect(host.core.connection(id: HostCore.firstLinkID) == nil)
        #expect(probe.detached == 1)
    }
}
