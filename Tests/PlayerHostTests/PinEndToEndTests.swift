import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient
@testable import PlayerHostHost
@testable import PlayerHostRPC

/// Issue 23 (player selection) against the real binary: a pinned paused session stays Now
/// Playing while another app plays; unpinned, the playing one takes over; the pin survives a
/// restart of the daemon (the state file). `[arbiter]` on reload and refused pins are host
/// logic: `PinOverSocketTests`, on an embedded host.
@Suite(.serialized) struct PinEndToEndTests {
    /// An eligible session with one item; playing when `play`.
    func make(_ c: ControlClient, _ id: String, play: Bool) throws {
        try c.call("session.create", ["id": .string(id), "kind": "main"])
        try c.call("audio.configure", ["session": .string(id), "category": "playback"])
        try c.call("audio.activate", ["session": .string(id)])
        try c.call("player.load", ["session": .string(id), "items": [["title": .string(id), "duration": 600]]])
        try c.call("command.bindDefaults", ["session": .string(id)])
        if play { try c.call("player.play", ["session": .string(id)]) }
    }

    func nowPlaying(_ c: ControlClient) throws -> String? { try c.call("arbiter.explain")["nowPlaying"]?.stringValue }

    /// Waits (with a deadline) until the state file holds what changed: no write pending.
    func waitForWrite(_ d: DaemonHarness, atLeast writes: Int) throws -> Bool {
        let c = try d.client()
        for _ in 0..<200 {
            let st = try c.call("host.stats")["state"]
            if (st?["writes"]?.intValue ?? 0) >= writes, st?["pending"] == false { return true }
            _ = d.runUntil(0.05) { false }
        }
        return false
    }

    @Test func aPinnedPausedSessionStaysNowPlayingAndSurvivesARestart() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start())
        let host = try d.client()
        try make(host, "kept", play: false)  // the host's own: kept across the restart
        let other = try d.client()
        try other.call("host.hello", ["name": "other"])
        try make(other, "loud", play: true)
        #expect(try nowPlaying(host) == "loud")

        let pinned = try host.call("arbiter.pin", ["player": "kept"])
        #expect(pinned["session"] == "kept")
        #expect(try nowPlaying(host) == "kept", "pinned, paused, it beats a playing session")
        let why = try host.call("arbiter.explain", ["session": "kept"])["sessions"]?.arrayValue?.first
        #expect(why?["nowPlayingReason"]?.stringValue?.contains("pinned") == true)
        #expect(try host.call("player.get", ["session": "loud"])["playbackState"] == "playing")

        #expect(try host.call("arbiter.unpin")["unpinned"] == "kept")
        #expect(try nowPlaying(host) == "loud", "unpinned, the playing session takes over")

        try host.call("arbiter.pin", ["player": "kept"])
        #expect(try waitForWrite(d, atLeast: 1))
        #expect(d.stop()?.status == 0)
        #expect(try d.start())
        let c = try d.client()
        #expect(try c.call("arbiter.explain")["pinned"] == "kept")
        let later = try d.client()
        try later.call("host.hello", ["name": "later"])
        try make(later, "later", play: true)
        #expect(try nowPlaying(c) == "kept", "the pin came back with the daemon")
        #expect(try c.call("arbiter.unpin")["unpinned"] == "kept")
        #expect(try nowPlaying(c) == "later")
    }
}
