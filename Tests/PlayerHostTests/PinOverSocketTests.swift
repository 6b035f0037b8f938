import Testing
@testable import PlayerHost

/// Issue 23 (player selection) through the protocol, on an embedded host: a pinned paused session
/// stays Now Playing while another app plays, unpinned the playing one takes over; `[arbiter]`
/// applied at start and on reload, and `arbiter.pin` refusing a name that names nothing. (The pin
/// kept across a daemon restart needs the state file: `RestartEndToEndTests`.)
@Suite(.serialized) struct PinOverSocketTests {
    /// An eligible session with one item; playing when `play`. (On the embedded host here, on
    /// a daemon in `RestartEndToEndTests`' pin test.)
    static func make(_ c: some RPCClientEndpoint, _ id: String, play: Bool) throws {
        try c.call("session.create", ["id": .string(id), "kind": "main"])
        try c.call("audio.configure", ["session": .string(id), "category": "playback"])
        try c.call("audio.activate", ["session": .string(id)])
        try c.call("player.load", ["session": .string(id), "items": [["title": .string(id), "duration": 600]]])
        try c.call("command.bindDefaults", ["session": .string(id)])
        if play { try c.call("player.play", ["session": .string(id)]) }
    }

    static func nowPlaying(_ c: some RPCClientEndpoint) throws -> String? { try c.call("arbiter.explain")["nowPlaying"]?.stringValue }


    /// The pin beats a playing session of another app; unpinning gives the slot back to it.
    @Test func aPinnedPausedSessionStaysNowPlayingUntilUnpinned() throws {
        let d = EmbeddedHost()
        defer { d.close() }
        let host = try d.client()
        try Self.make(host, "kept", play: false)  // the host's own (its client never said host.hello)
        let other = try d.client()
        try other.call("host.hello", ["name": "other"])
        try Self.make(other, "loud", play: true)
        #expect(try Self.nowPlaying(host) == "loud")

        let pinned = try host.call("arbiter.pin", ["player": "kept"])
        #expect(pinned["session"] == "kept")
        #expect(try Self.nowPlaying(host) == "kept", "pinned, paused, it beats a playing session")
        let why = try host.call("arbiter.explain", ["session": "kept"])["sessions"]?.arrayValue?.first
        #expect(why?["nowPlayingReason"]?.stringValue?.contains("pinned") == true)
        #expect(try host.call("player.get", ["session": "loud"])["playbackState"] == "playing")

        #expect(try host.call("arbiter.unpin")["unpinned"] == "kept")
        #expect(try Self.nowPlaying(host) == "loud", "unpinned, the playing session takes over")
    }

    /// `[arbiter] ignore` from the file at start and again on reload: the ignored session leaves
    /// the slot at once, and is back when the reload drops it.
    @Test func aReloadAppliesArbiterIgnore() throws {
        let d = try EmbeddedHost(configTOML: "[arbiter]\npriority = [\"x\"]\n")
        defer { d.close() }
        let c = try d.client()
        #expect(try c.call("arbiter.explain")["priority"] == ["x"])
        try Self.make(c, "loud", play: true)
        #expect(try Self.nowPlaying(c) == "loud")
        d.reload(try HostConfig.parse("[arbiter]\nignore = [\"loud\"]\n"))
        #expect(try Self.nowPlaying(c) == nil, "ignored: never Now Playing")
        let why = try c.call("arbiter.explain", ["session": "loud"])["sessions"]?.arrayValue?.first
        #expect(why?["nowPlayingReason"]?.stringValue?.contains("ignored") == true)
        d.reload(try HostConfig.parse("command_timeout_ms = 500\n"))
        #expect(try Self.nowPlaying(c) == "loud")
    }

    @Test func pinningANameThatNamesNothingIsRefused() throws {
        let d = EmbeddedHost()
        defer { d.close() }
        #expect(throws: ClientError.self) { try d.client().call("arbiter.pin", ["player": "nope"]) }
        let methods = try d.client().call("rpc.discover")["methods"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? []
        #expect(methods.contains("arbiter.pin") && methods.contains("arbiter.unpin"))
    }
}
