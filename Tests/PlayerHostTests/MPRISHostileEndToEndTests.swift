import CSDBus
import Glibc
import Testing
@testable import PlayerHost

/// Issue 21 end to end: the real daemon on a private dbus-daemon, hit as the issue's reporter
/// did (`dbus-send` with INT64_MAX; an impostor holding the name). Few, each bounded by
/// deadlines. (The socket's −32602 on a time beyond 10⁹ s is host logic:
/// `TimeBoundsOverSocketTests`, on an embedded host.)
@Suite(.serialized) struct MPRISHostileEndToEndTests {
    /// Item 1: Seek / SetPosition by INT64_MAX while a live item (no duration) is Now Playing
    /// killed the daemon (SIGILL). Now both saturate at 10⁹ s and the daemon answers.
    @Test func seekAndSetPositionByInt64MaxOnALiveStreamKeepTheDaemonAlive() throws {
        let f = try MPRISFixture()
        defer { f.close() }
        #expect(try f.waitForName())
        let app = try f.harness.client()
        defer { app.close() }
        try app.call("host.hello", ["name": "radio"])
        try app.call("session.create", ["id": "live", "kind": "main"])
        try app.call("audio.configure", ["session": "live", "category": "playback"])
        try app.call("audio.activate", ["session": "live"])
        try app.call("player.load", ["session": "live", "items": [["title": "Live"]]])
        try app.call("command.bindDefaults", ["session": "live"])
        try app.call("player.play", ["session": "live"])
        #expect(try app.call("nowPlaying.get")["session"] == "live")
        #expect(try f.playerctl("metadata title") == "Live")

        let dest = "--dest=\(MPRISBridge.busName) /org/mpris/MediaPlayer2 org.mpris.MediaPlayer2.Player"
        let seek = try f.sh("dbus-send --session --print-reply \(dest).Seek int64:9223372036854775807")
        #expect(seek.contains("method return"), "Seek: \(seek)")
        #expect(try app.call("host.ping") == "pong", "the daemon is alive after Seek(INT64_MAX)")
        #expect(try f.property("Position").contains("1000000000000000"), "Position saturates at 10⁹ s")

        let track = try f.playerctl("metadata mpris:trackid")
        let set = try f.sh("dbus-send --session --print-reply \(dest).SetPosition objpath:\(track) int64:9223372036854775807")
        #expect(set.contains("method return"), "SetPosition: \(set)")
        #expect(try app.call("host.ping") == "pong", "the daemon is alive after SetPosition(INT64_MAX)")
        let seekBack = try f.sh("dbus-send --session --print-reply \(dest).Seek int64:-9223372036854775808")
        #expect(seekBack.contains("method return"), "Seek(INT64_MIN): \(seekBack)")
        #expect(try f.property("Position").contains("<int64 "), "Position readable")
        #expect(f.harness.exit == nil, "daemon exit \(String(describing: f.harness.exit)): \(f.harness.stderrText.suffix(2000))")
    }

    /// Item 22: the daemon queued behind an impostor gets the name when it is released, and
    /// `host.stats` says so (before, only RequestName's reply set the status: `queued` forever).
    /// A peer's forged NameAcquired does not count.
    @Test func afterAnImpostorReleasesTheNameTheStatusIsActive() throws {
        let f = try MPRISFixture(startDaemon: false)
        defer { f.close() }
        let impostor = try DBusTestPeer(address: f.address)
        defer { impostor.close() }
        let waiter = HarnessLoopWaiter(f.harness)
        defer { waiter.close() }
        waiter.attach(impostor)
        #expect(try impostor.requestName(MPRISBridge.busName) == 1, "the impostor owns the name")

        #expect(try f.harness.start([], environment: f.environment))
        #expect(f.harness.waitForStderr("queued"), "\(f.harness.stderrText)")
        let c = try f.harness.client()
        defer { c.close() }
        #expect(try c.call("host.stats")["mpris"]?["status"] == "queued")

        // A forged NameAcquired, unicast to the daemon from the impostor: not the bus's.
        let queue = try impostor.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "ListQueuedOwners") {
            appendString($0, "s", MPRISBridge.busName)
        }
        guard case .success(let owners) = queue, case .array(let names)? = owners.first, names.count == 2, let daemon = names[1].string else {
            Issue.record("queued owners: \(queue)")
            return
        }
        var forged: OpaquePointer?
        #expect(sd_bus_message_new_signal(impostor.bus, &forged, "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameAcquired") >= 0)
        if let forged {
            _ = sd_bus_message_set_destination(forged, daemon)
            _ = appendString(forged, "s", MPRISBridge.busName)
            impostor.sendSignal(forged)
        }
        // A round trip after it: the daemon has handled the signal by the time Ping returns.
        guard case .success = try impostor.call(daemon, "/", "org.freedesktop.DBus.Peer", "Ping") else {
            Issue.record("the daemon did not answer Ping")
            return
        }
        #expect(try c.call("host.stats")["mpris"]?["status"] == "queued", "a forged NameAcquired is ignored")

        waiter.close()
        impostor.close()
        #expect(f.harness.waitForStderr("MPRIS: \(MPRISBridge.busName) on"), "\(f.harness.stderrText)")
        #expect(try c.call("host.stats")["mpris"]?["status"] == "active")
        let checker = try DBusTestPeer(address: f.address)
        defer { checker.close() }
        #expect(try checker.owner(of: MPRISBridge.busName) == daemon)
        #expect(try f.playerctl("status") == "Stopped")
    }
}
