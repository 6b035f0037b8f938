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
