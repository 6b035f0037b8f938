import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient

/// Issue 22 through the real daemon: `npctl volume`/`mute` as a user types them, and the volume
/// kept across a restart (the state file). One daemon, two starts; every wait has a deadline.
/// (`changeVolume` over the protocol, `volume`/`muted` in replies and events, is host logic:
/// `VolumeOverSocketTests`, on an embedded host.)
@Suite(.serialized) struct VolumeEndToEndTests {
    func npctl(_ d: DaemonHarness, _ args: String) throws -> (status: Int64, output: String) {
        try NpctlEndToEndTests.npctl(args, socket: d.socketPath)
    }

    @Test func volumeFromNpctlAndAcrossARestart() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start())
        let c = try d.client()
        // A host session (its client never said host.hello): kept across a restart.
        try c.call("session.create", ["id": "main", "kind": "main"])
        try c.call("audio.configure", ["session": "main", "category": "playback"])
        try c.call("audio.activate", ["session": "main"])
        try c.call("player.load", ["session": "main", "items": [["title": "Song", "duration": 100]]])
        try c.call("command.bindDefaults", ["session": "main"])
        #expect(try c.call("nowPlaying.get")["volume"] == 1.0)

        let reply = try c.call("command.send", ["session": "main", "command": "changeVolume", "volume": 0.4])
        #expect(reply["status"] == "success")

        // npctl: playerctl's output and syntax.
        #expect(try npctl(d, "volume") == (0, "0.400000\n"))
        #expect(try npctl(d, "volume 0.1+").status == 0)
        #expect(try npctl(d, "volume") == (0, "0.500000\n"))
        #expect(try npctl(d, "volume 0.2-").status == 0)
        #expect(try npctl(d, "volume") == (0, "0.300000\n"))
        #expect(try npctl(d, "volume 0.75") == (0, ""))
        #expect(try npctl(d, "volume") == (0, "0.750000\n"))
        #expect(try npctl(d, "volume 2").status == 0)
        #expect(try npctl(d, "volume") == (0, "1.000000\n"), "clamped to maximumVolume, as the export clamps")
        let bad = try npctl(d, "volume abc")
        #expect(bad.status == 1 && bad.output.hasPrefix("Could not execute command: could not parse volume as a number: abc"))
        #expect(try npctl(d, "volume 0.6").status == 0)
        #expect(try npctl(d, "mute") == (0, ""))
        #expect(try npctl(d, "volume") == (0, "0.000000\n"), "muted: MPRIS shows silence")
        let json = try JSONParser.parse(try npctl(d, "volume --json").output)
        #expect(json["volume"] == 0.6 && json["muted"] == true && json["session"] == "main")
        #expect(try npctl(d, "mute sideways").status == 1)

        // Kept across a restart: level and mute.
        #expect(d.stop()?.status == 0)
        #expect(try d.start())
        let back = try d.client().call("nowPlaying.get")
        #expect(back["session"] == "main" && back["volume"] == 0.6 && back["muted"] == true)
        #expect(try npctl(d, "mute off") == (0, ""))
        #expect(try npctl(d, "volume") == (0, "0.600000\n"), "unmuting brings the level back")
        #expect(try npctl(d, "mute toggle").status == 0)
        #expect(try npctl(d, "mute") == (0, ""))
        #expect(try d.client().call("nowPlaying.get")["muted"] == false)
    }
}
