import Glibc
import Testing
@testable import PlayerHost

/// Issue 8 through the protocol: what a subscriber receives, on an embedded host (manual time:
/// "at once" means before any host time passes, "at the window's end" when the host's clock
/// reaches it).
@Suite(.serialized) struct GateOverSocketTests {
    func daemon(_ config: String) throws -> EmbeddedHost {
        try EmbeddedHost(configTOML: config + "\n")
    }

    /// A manual (app-published) session holding the slot, playing "Real Song".
    func radio(_ c: EmbeddedClient) throws {
        try c.call("session.create", ["id": "radio", "kind": "main", "automaticallyPublishes": false])
        try c.call("audio.configure", ["session": "radio", "category": "playback"])
        try c.call("audio.activate", ["session": "radio"])
        try c.call("command.bindDefaults", ["session": "radio"])
        try c.call("info.set", ["session": "radio", "info": ["title": "Real Song", "artist": "Real Band",
                                                            "assetURL": "http://radio/1", "elapsed": 0, "rate": 1]])
    }

    func updates(_ infos: [JSON]) -> [UInt8] {
        var out: [UInt8] = []
        for (i, info) in infos.enumerated() {
            RPCEncoder.request(method: "info.update", params: ["session": "radio", "info": info], id: Int64(100 + i), into: &out)
        }
        return out
    }

    func nowPlaying(_ n: JSON) -> JSON? { n["params"]?["type"] == "nowPlaying" ? n["params"]?["nowPlaying"] : nil }

    /// The next gated value (the topic also carries the slot's `nowPlayingChanged` key moments).
    func nextValue(_ c: EmbeddedClient, timeout: Double? = nil) throws -> JSON {
        while true {
            let n = try c.nextNotification(timeout: timeout)
            if let v = nowPlaying(n) { return v }
        }
    }

    @Test func twentyTitleChangesGoOutAsTheFirstAtOnceAndTheTwentiethAtTheWindowsEnd() throws {
        // A window long enough that "at once" and "at the window's end" cannot be confused.
        let d = try daemon("coalesce_ms = 2000")
        defer { d.close() }
        let app = try d.client()
        let sub = try d.client()
        try sub.call("events.subscribe", ["topics": ["nowPlaying"]])
        #expect(nowPlaying(try sub.nextNotification(timeout: 5)) == JSON.null, "the slot is empty: the gate is quiet")
        // Everything but audio.activate: not eligible yet, so nothing reaches the gate.
        try app.call("session.create", ["id": "radio", "kind": "main", "automaticallyPublishes": false])
        try app.call("audio.configure", ["session": "radio", "category": "playback"])
        try app.call("command.bindDefaults", ["session": "radio"])
        try app.call("info.set", ["session": "radio", "info": ["title": "t0", "assetURL": "http://radio/1", "rate": 1]])
        // In one write, well within 5 ms on the daemon's side: t0 takes the slot, then t1…t19.
        var burst: [UInt8] = []
        RPCEncoder.request(method: "audio.activate", params: ["session": "radio"], id: 99, into: &burst)
        burst += updates((1..<20).map { ["title": .string("t\($0)")] })
        try app.send(burst)
        for _ in 0..<20 { _ = try app.readMessage() }
        let first = try nextValue(sub, timeout: 1.5)
        #expect(first["info"]?["title"] == "t0", "the first at once, not after the 2 s window")
        let second = try nextValue(sub, timeout: 10)
        #expect(second["info"]?["title"] == "t19")
        sub.timeout = 0.5
        #expect(throws: ClientError.self, "nothing after") { try nextValue(sub) }
        let stats = try app.call("host.stats")
        #expect(stats["eventsCoalesced"]?.intValue == 18)
        // The gate's own timer (the state store may hold a debounced write for this host-owned session).
        #expect(stats["gateTimerArmed"] == false, "nothing pending: no timer")
    }

    @Test func coalesceZeroDeliversEveryChange() throws {
        let d = try daemon("coalesce_ms = 0")
        defer { d.close() }
        let app = try d.client()
        try radio(app)
        let sub = try d.client()
        try sub.call("events.subscribe", ["topics": ["nowPlaying"]])
        _ = try sub.nextNotification(timeout: 5)
        try app.send(updates((0..<20).map { ["title": .string("t\($0)")] }))
        var titles: [String] = []
        for _ in 0..<20 { titles.append(try nextValue(sub, timeout: 5)["info"]?["title"]?.stringValue ?? "?") }
        #expect(titles == (0..<20).map { "t\($0)" })
    }

    @Test func placeholdersAreNotPublishedAndNowPlayingGetShowsTheRealValue() throws {
        let d = try daemon("coalesce_ms = 0")
        defer { d.close() }
        let app = try d.client()
        try radio(app)
        let sub = try d.client()
        try sub.call("events.subscribe", ["topics": ["nowPlaying"]])
        _ = try sub.nextNotification(timeout: 5)
        let placeholders = NowPlayingGate.Configuration.defaultPlaceholders
        try app.send(updates(placeholders.map { ["title": .string($0)] } + placeholders.map { ["artist": .string($0)] }))
        for _ in 0..<(2 * placeholders.count) { _ = try app.readMessage() }
        let np = try app.call("nowPlaying.get")
        #expect(np["info"]?["title"] == "Real Song")
        #expect(np["info"]?["artist"] == "Real Band")
        #expect(try app.call("info.get", ["session": "radio"])["info"]?["artist"] == "Connecting...", "the session keeps what it was told")
        // Counted per offered value and field: the artist updates find the title a placeholder too.
        #expect(try app.call("host.stats")["placeholdersBlocked"]?.intValue == 3 * placeholders.count)
        // A track change to an item with a real title shows it, and is the next thing published.
        try app.call("info.set", ["session": "radio", "info": ["title": "Next Song", "assetURL": "http://radio/2", "rate": 1]])
        #expect(try nextValue(sub, timeout: 5)["info"]?["title"] == "Next Song")
    }

    @Test func keyMomentsOnAQuietSessionDoNotWaitForTheWindow() throws {
        // A window far longer than the test's deadlines: anything that waited for it would fail.
        let d = try daemon("coalesce_ms = 60000")
        defer { d.close() }
        let app = try d.client()
        try app.call("session.create", ["id": "s", "kind": "main"])
        try app.call("audio.configure", ["session": "s", "category": "playback"])
        try app.call("audio.activate", ["session": "s"])
        try app.call("player.load", ["session": "s", "items": [["title": "Song", "duration": 100]]])
        try app.call("command.bindDefaults", ["session": "s"])
        let sub = try d.client()
        try sub.call("events.subscribe", ["topics": ["nowPlaying", "players", "commands"]])
        _ = try sub.nextNotification(timeout: 5)
        // The slot's first value went out at once and opened the window: the nowPlaying value of
        // what follows waits in the gate, but the other topics' key moments are never delayed.
        try app.call("player.play", ["session": "s"])
        #expect(try sub.nextNotification(timeout: 5)["params"]?["type"] == "playerChanged")
        try app.call("player.seek", ["session": "s", "position": 30])
        #expect(try sub.nextNotification(timeout: 5)["params"]?["type"] == "playerChanged")
        try app.call("player.pause", ["session": "s"])
        #expect(try sub.nextNotification(timeout: 5)["params"]?["type"] == "playerChanged")
        // Reads are never held: the guarded current value.
        #expect(try app.call("nowPlaying.get")["playbackState"] == "paused")
        #expect(try app.call("host.stats")["gateTimerArmed"] == true, "the window's timer, for the held value")
    }

    @Test func aQuietSessionsPauseReachesASubscriberAtOnce() throws {
        let d = try daemon("coalesce_ms = 60000")
        defer { d.close() }
        let app = try d.client()
        let sub = try d.client()
        // Subscribed before anything exists: the first change the gate sees is the pause below.
        try app.call("session.create", ["id": "s", "kind": "main"])
        try sub.call("events.subscribe", ["topics": ["nowPlaying"]])
        #expect(nowPlaying(try sub.nextNotification(timeout: 5)) == JSON.null, "the slot is empty")
        try app.call("player.load", ["session": "s", "items": [["title": "Song", "duration": 100]]])
        try app.call("player.play", ["session": "s"])
        try app.call("audio.configure", ["session": "s", "category": "playback"])
        try app.call("command.bindDefaults", ["session": "s"])
        // The session becomes eligible while playing: the slot's first value goes out at once.
        try app.call("audio.activate", ["session": "s"])
        #expect(try nextValue(sub, timeout: 5)["playbackState"] == "playing")
    }
}
