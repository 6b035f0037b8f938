import Testing
@testable import PlayerHost
@testable import Plugins

/// The importer's pure mapping (issue 11): which names are imported, the session id, the item
/// and `player.sync` a player's properties make, which commands its `Can*` enable, and which
/// MPRIS call each command becomes. No bus, nothing spawned.
@Suite struct MPRISImportMappingTests {
    typealias M = MPRISImportMapping

    @Test func namesImportedAndSkipped() {
        #expect(M.isImportable("org.mpris.MediaPlayer2.mpv", ignore: []))
        #expect(M.isImportable("org.mpris.MediaPlayer2.firefox.instance_1_23", ignore: []))
        #expect(!M.isImportable("org.mpris.MediaPlayer2.playerhost", ignore: []))
        #expect(!M.isImportable("org.mpris.MediaPlayer2.playerhost.instance2", ignore: []))
        #expect(!M.isImportable("org.mpris.MediaPlayer2.playerctld", ignore: []))
        #expect(!M.isImportable("org.freedesktop.Notifications", ignore: []))
        #expect(!M.isImportable(":1.42", ignore: []))
        #expect(!M.isImportable("org.mpris.MediaPlayer2.vlc", ignore: ["vlc"]))
        #expect(!M.isImportable("org.mpris.MediaPlayer2.vlc.instance7", ignore: ["vlc"]))
        #expect(M.isImportable("org.mpris.MediaPlayer2.vlc.instance7", ignore: ["vlc.instance8"]))
    }

    @Test func sessionIDKeepsTheInstanceAndFitsTheModel() {
        #expect(M.sessionID(for: "org.mpris.MediaPlayer2.mpv") == "mpris-mpv")
        #expect(M.sessionID(for: "org.mpris.MediaPlayer2.mpv.instance42") == "mpris-mpv.instance42")
        #expect(M.sessionID(for: "org.mpris.MediaPlayer2.chromium.instance_1_2") == "mpris-chromium.instance_1_2")
        let long = M.sessionID(for: "org.mpris.MediaPlayer2." + String(repeating: "x", count: 100))
        #expect(long.count == 64)
    }

    @Test func metadataBecomesTheItem() {
        let item = M.item([
            "mpris:trackid": .objectPath("/t/1"), "xesam:title": .string("Song"),
            "xesam:artist": .strings(["Ann", "Bob"]), "xesam:album": .string("Album"),
            "mpris:length": .int64(324_500_000), "mpris:artUrl": .string("file:///a.png"),
        ])
        #expect(item["title"] == "Song")
        #expect(item["artist"] == "Ann, Bob")
        #expect(item["duration"] == 324.5)
        #expect(item["info"]?["albumTitle"] == "Album")
        #expect(item["info"]?["artwork"]?["sources"] == ["file:///a.png"])
    }

    @Test func syncRateIsZeroUnlessPlayingAndEmptyMetadataIsIdle() {
        let meta = DBusValue.dictionary(["xesam:title": .string("Song"), "mpris:length": .int64(60_000_000)])
        let playing = M.sync(["PlaybackStatus": .string("Playing"), "Rate": .double(1.5), "Metadata": meta,
                              "LoopStatus": .string("Track"), "Shuffle": .boolean(true)], position: 12_000_000)
        #expect(playing["rate"] == 1.5)
        #expect(playing["elapsed"] == 12.0)
        #expect(playing["status"] == "ready")
        #expect(playing["repeatMode"] == "one")
        #expect(playing["shuffleMode"] == "items")
        let paused = M.sync(["PlaybackStatus": .string("Paused"), "Rate": .double(1), "Metadata": meta], position: 5_000_000)
        #expect(paused["rate"]?.doubleValue == 0)
        let nothing = M.sync(["PlaybackStatus": .string("Stopped"),
                              "Metadata": .dictionary(["mpris:trackid": .objectPath("/org/mpris/MediaPlayer2/TrackList/NoTrack")])],
                             position: 0)
        #expect(nothing["status"] == "idle")
        #expect(nothing["items"] == [])
    }

    @Test func canPropertiesEnableCommands() {
        var p: [String: DBusValue] = ["CanGoNext": .boolean(false), "CanPlay": .boolean(true), "CanSeek": .boolean(true)]
        #expect(!M.isEnabled("nextTrack", p))
        #expect(M.isEnabled("play", p))
        #expect(!M.isEnabled("pause", p))
        #expect(M.isEnabled("togglePlayPause", p))
        #expect(M.isEnabled("changePlaybackPosition", p))
        #expect(!M.isEnabled("changeShuffleMode", p))
        p["CanGoNext"] = .boolean(true)
        p["CanControl"] = .boolean(true)
        p["Shuffle"] = .boolean(false)
        #expect(M.isEnabled("nextTrack", p))
        #expect(M.isEnabled("changeShuffleMode", p))
        #expect(!M.isEnabled("changeRepeatMode", p), "no LoopStatus property: nothing to write")
    }

    @Test func commandsBecomeMPRISCalls() {
        let p: [String: DBusValue] = ["Metadata": .dictionary(["mpris:trackid": .objectPath("/t/7")])]
        #expect(M.call(for: ["command": "togglePlayPause"], properties: p, position: nil) == .method("PlayPause", []))
        #expect(M.call(for: ["command": "changePlaybackPosition", "position": 10], properties: p, position: nil)
                == .method("SetPosition", [.objectPath("/t/7"), .int64(10_000_000)]))
        // Without a trackid: Seek by the difference from the last known position.
        #expect(M.call(for: ["command": "changePlaybackPosition", "position": 10], properties: [:], position: 4_000_000)
                == .method("Seek", [.int64(6_000_000)]))
        #expect(M.call(for: ["command": "skipBackward", "interval": 15], properties: p, position: nil) == .method("Seek", [.int64(-15_000_000)]))
        #expect(M.call(for: ["command": "changeRepeatMode", "repeatType": "all"], properties: p, position: nil)
                == .set("LoopStatus", .string("Playlist")))
        #expect(M.call(for: ["command": "changePlaybackRate", "rate": 0], properties: p, position: nil) == nil)
        #expect(M.call(for: ["command": "like"], properties: p, position: nil) == nil)
    }
}
