import Testing
@testable import PlayerHost
@testable import Plugins

/// Issue 22, volume on an imported MPRIS player: its `Volume` is reported with `player.sync`,
/// `changeVolume` writes it (MPRIS has no mute: muting is `Volume` 0). Pure mapping, no bus.
@Suite struct VolumeImportMappingTests {
    typealias M = MPRISImportMapping

    let playing: [String: DBusValue] = [
        "PlaybackStatus": .string("Playing"), "CanControl": .boolean(true),
        "Metadata": .dictionary(["xesam:title": .string("T")]), "Volume": .double(0.4),
    ]

    @Test func thePlayersVolumeIsReported() {
        #expect(M.sync(playing, position: nil)["volume"] == 0.4)
        var loud = playing
        loud["Volume"] = .double(3)
        #expect(M.sync(loud, position: nil)["volume"] == 1.5, "clamped to the model's range")
        loud["Volume"] = .double(-1)
        #expect(M.sync(loud, position: nil)["volume"] == 0.0)
        loud["Volume"] = .double(.nan)
        #expect(M.sync(loud, position: nil)["volume"] == nil, "not a level: not reported")
        loud["Volume"] = nil
        #expect(M.sync(loud, position: nil)["volume"] == nil)
        #expect(M.sync(playing, position: nil)["muted"] == nil, "MPRIS has no mute to report")
    }

    @Test func changeVolumeWritesVolume() {
        #expect(M.commands.contains("changeVolume"))
        #expect(M.isEnabled("changeVolume", playing))
        var fixed = playing
        fixed["Volume"] = nil
        #expect(!M.isEnabled("changeVolume", fixed), "no Volume: nothing to set")
        fixed = playing
        fixed["CanControl"] = .boolean(false)
        #expect(!M.isEnabled("changeVolume", fixed))
        func call(_ e: JSON) -> M.Call? { M.call(for: e, properties: playing, position: nil) }
        #expect(call(["command": "changeVolume", "volume": 0.7, "muted": false]) == .set("Volume", .double(0.7)))
        #expect(call(["command": "changeVolume", "volume": 0.7]) == .set("Volume", .double(0.7)))
        #expect(call(["command": "changeVolume", "muted": true]) == .set("Volume", .double(0)))
        #expect(call(["command": "changeVolume", "volume": 0.7, "muted": true]) == .set("Volume", .double(0)))
        #expect(call(["command": "changeVolume", "muted": false]) == nil, "no level to come back to")
        #expect(call(["command": "changeVolume", "volume": -1]) == nil)
    }
}

/// The same through a real daemon and a fake player on a private bus: its `Volume` shows as the
/// session's volume, and `npctl volume` sets the player's `Volume`.
@Suite(.serialized) struct VolumeImportEndToEndTests {
    @Test func anImportedPlayersVolumeIsReadAndSet() throws {
        let f = try ImportFixture()
        defer { f.close() }
        try f.startFake("fake")
        func level() throws -> Double? { try f.client.call("info.get", ["session": "mpris-fake"])["volume"]?.doubleValue }
        #expect(try f.waitUntil(10) { try f.session("mpris-fake") != nil && level() == 0.8 }, "\((try? level()) ?? -1)")
        #expect(try f.npctl("volume --session mpris-fake") == (0, "0.800000\n"))
        let r = try f.npctl("volume 0.3 --session mpris-fake")
        #expect(r.status == 0, "\(r.output)")
        let volume = try f.mpris.sh("gdbus call --session --dest org.mpris.MediaPlayer2.fake --object-path /org/mpris/MediaPlayer2 "
            + "--method org.freedesktop.DBus.Properties.Get org.mpris.MediaPlayer2.Player Volume")
        #expect(volume == "(<0.29999999999999999>,)" || volume == "(<0.3>,)", "the player's Volume: \(volume)")
        #expect(try f.waitUntil(10) { try level() == 0.3 }, "the player's report came back: \((try? level()) ?? -1)")
    }
}
