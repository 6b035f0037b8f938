import Testing
@testable import PlayerHost

/// Issue 22 through the protocol, on an embedded host: `changeVolume` over the socket,
/// `volume`/`muted` in replies and events, a refused volume changing nothing. (`npctl volume`
/// and the volume kept across a restart need the processes: `RestartEndToEndTests`.)
@Suite(.serialized) struct VolumeOverSocketTests {
    /// Reads notifications until one matches (at most `tries`, each up to 5 s of host time).
    func event(_ c: EmbeddedClient, tries: Int = 20, _ match: (JSON) -> Bool) throws -> JSON? {
        for _ in 0..<tries {
            let n = try c.nextNotification(timeout: 5)
            if match(n["params"] ?? .null) { return n["params"] }
        }
        return nil
    }

    @Test func changeVolumeReachesRepliesAndEvents() throws {
        let d = EmbeddedHost()
        defer { d.close() }
        let c = try d.client()
        try c.call("session.create", ["id": "main", "kind": "main"])
        try c.call("audio.configure", ["session": "main", "category": "playback"])
        try c.call("audio.activate", ["session": "main"])
        try c.call("player.load", ["session": "main", "items": [["title": "Song", "duration": 100]]])
        try c.call("command.bindDefaults", ["session": "main"])
        #expect(try c.call("nowPlaying.get")["volume"] == 1.0)

        let sub = try d.client()
        try sub.call("events.subscribe", ["topics": ["players", "info"]])
        let reply = try c.call("command.send", ["session": "main", "command": "changeVolume", "volume": 0.4])
        #expect(reply["status"] == "success")
        let player = try event(sub) { $0["type"] == "playerChanged" }
        #expect(player?["player"]?["volume"] == 0.4 && player?["player"]?["muted"] == false)
        let info = try event(sub) { $0["type"] == "infoChanged" }
        #expect(info?["volume"] == 0.4)
        #expect(try c.call("player.get", ["session": "main"])["volume"] == 0.4)
        #expect(try c.call("nowPlaying.get")["volume"] == 0.4)
        #expect(throws: ClientError.self) {
            try c.call("command.send", ["session": "main", "command": "changeVolume", "volume": 1.2])
        }
        #expect(try c.call("nowPlaying.get")["volume"] == 0.4, "a refused volume changes nothing")
    }
}
