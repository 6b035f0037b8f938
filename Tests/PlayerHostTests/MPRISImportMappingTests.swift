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

    // MARK: - Issue 21: a hostile player's values never trap and never pass unbounded

    /// Item 2: `mpris:length` INT64_MAX is no duration (the title stays); a Position of INT64_MAX
    /// with no length is no elapsed time; a Rate of 1e300 (or ∞, NaN, −1) is 1 while playing.
    @Test func outOfRangeTimesAndRatesAreAbsent() {
        let item = M.item(["xesam:title": .string("Song"), "mpris:length": .int64(.max)])
        #expect(item["title"] == "Song")
        #expect(item["duration"] == nil)
        #expect(M.item(["mpris:length": .int64(.min)])["duration"] == nil)
        #expect(M.item(["mpris:length": .int64(1_000_000_000_000_001)])["duration"] == nil)
        #expect(M.item(["mpris:length": .int64(1_000_000_000_000_000)])["duration"] == 1e9)

        let meta = DBusValue.dictionary(["xesam:title": .string("Song")])
        for position in [Int64.max, .min, -1, 1_000_000_000_000_001] {
            let s = M.sync(["PlaybackStatus": .string("Playing"), "Metadata": meta], position: position)
            #expect(s["elapsed"] == nil, "position \(position)")
        }
        #expect(M.sync(["PlaybackStatus": .string("Playing"), "Metadata": meta], position: 0)["elapsed"]?.doubleValue == 0)
        for rate in [1e300, .infinity, -.infinity, .nan, -1, 0, 1000.5, .greatestFiniteMagnitude] {
            let s = M.sync(["PlaybackStatus": .string("Playing"), "Rate": .double(rate), "Metadata": meta], position: 0)
            #expect(s["rate"]?.doubleValue == 1, "rate \(rate)")
        }
        #expect(M.sync(["PlaybackStatus": .string("Playing"), "Rate": .double(1000), "Metadata": meta], position: 0)["rate"]?.doubleValue == 1000)
        #expect(M.microseconds(.int64(.min)) == nil)
        #expect(M.microseconds(.string("5")) == nil)
        #expect(M.microseconds(.int64(5)) == 5)
    }

    /// Item 3: a position or interval of 1e300 (or any double) never traps: seeks are clamped to
    /// ±10⁹ s.
    @Test func hugeSeeksAreClampedNotTrapped() {
        let track: [String: DBusValue] = ["Metadata": .dictionary(["mpris:trackid": .objectPath("/t/7")])]
        let max = Microseconds.maxMicroseconds
        #expect(M.call(for: ["command": "changePlaybackPosition", "position": 1e300], properties: track, position: nil)
                == .method("SetPosition", [.objectPath("/t/7"), .int64(max)]))
        #expect(M.call(for: ["command": "changePlaybackPosition", "position": 1e300], properties: [:], position: 4_000_000)
                == .method("Seek", [.int64(max - 4_000_000)]))
        #expect(M.call(for: ["command": "skipForward", "interval": 1e300], properties: track, position: nil)
                == .method("Seek", [.int64(max)]))
        #expect(M.call(for: ["command": "skipBackward", "interval": 1e300], properties: track, position: nil)
                == .method("Seek", [.int64(-max)]))
        #expect(M.call(for: ["command": "skipForward", "interval": -1e300], properties: track, position: nil)
                == .method("Seek", [.int64(-max)]))
        #expect(M.call(for: ["command": "changePlaybackRate", "rate": 1e300], properties: track, position: nil) == nil)
        // Every double a client could send, against every position: no trap, and within bounds.
        let doubles: [Double] = [0, -0.0, 1e-300, 0.5, 9.2e12, 9.3e12, 9.223372036854775e12, 1e13, 1e300,
                                 .greatestFiniteMagnitude, .leastNonzeroMagnitude, -1, -1e300, -.greatestFiniteMagnitude]
        let positions: [Int64?] = [nil, 0, 4_000_000, .max, .min, -1, max, max + 1]
        for d in doubles {
            for position in positions {
                for props in [track, [:]] {
                    for command in ["skipForward", "skipBackward", "changePlaybackPosition", "changePlaybackRate"] {
                        let call = M.call(for: ["command": .string(command), "interval": .double(d), "position": .double(d),
                                                "rate": .double(d)], properties: props, position: position)
                        if case .method(_, let args)? = call, case .int64(let us)? = args.last {
                            #expect(us.magnitude <= 2 * UInt64(max), "\(command) \(d) at \(String(describing: position)): \(us)")
                        }
                    }
                }
            }
        }
    }

    /// Item 4: a player without track ids that reported Position (or Seeked) INT64_MIN: the next
    /// seek is refused (the position is not known), not computed as `target − INT64_MIN`.
    @Test func seekFromAnOutOfRangePositionIsRefused() {
        #expect(M.call(for: ["command": "changePlaybackPosition", "position": 5], properties: [:], position: .min) == nil)
        #expect(M.call(for: ["command": "changePlaybackPosition", "position": 5], properties: [:], position: .max) == nil)
        #expect(M.call(for: ["command": "changePlaybackPosition", "position": 5], properties: [:], position: -1) == nil)
        #expect(M.call(for: ["command": "changePlaybackPosition", "position": 5], properties: [:], position: 1_000_000)
                == .method("Seek", [.int64(4_000_000)]))
    }

    /// Item 15: a 1 MiB title is cut to the 4 KiB cap (on a character boundary, ended with "…"),
    /// not dropped by the host's 1 MiB line limit; lists and metadata entries are bounded; a URL
    /// beyond the cap is dropped whole.
    @Test func hugeStringsAreCutToTheCap() {
        let mib = String(repeating: "é", count: 512 * 1024)  // 1 MiB of UTF-8, 2 bytes a character
        let item = M.item(["xesam:title": .string(mib), "xesam:album": .string(mib),
                           "xesam:artist": .strings(Array(repeating: mib, count: 100)),
                           "mpris:artUrl": .string("file:///" + mib), "xesam:url": .string("file:///" + mib)])
        let title = item["title"]?.stringValue ?? ""
        #expect(title.utf8.count <= M.maxStringBytes && title.utf8.count > M.maxStringBytes - 8)
        #expect(title.hasSuffix("…"))
        #expect(title.dropLast().allSatisfy { $0 == "é" })
        #expect((item["artist"]?.stringValue ?? "").utf8.count <= M.maxStringBytes)
        #expect((item["info"]?["albumTitle"]?.stringValue ?? "").utf8.count <= M.maxStringBytes)
        #expect(item["info"]?["artwork"] == nil)
        #expect(item["url"] == nil)
        #expect(M.text("short") == "short")
        #expect(M.text(String(repeating: "a", count: M.maxStringBytes)).utf8.count == M.maxStringBytes)
        // The whole sync stays far below the host's 1 MiB line.
        let sync = M.sync(["PlaybackStatus": .string("Playing"),
                           "Metadata": .dictionary(["xesam:title": .string(mib), "xesam:artist": .strings([mib, mib])])],
                          position: 0)
        #expect(JSON.object(sync).description.utf8.count < 64 * 1024)

        // Kept properties: MPRIS's names only; Metadata bounded as it comes in.
        var many: [String: DBusValue] = ["xesam:title": .string(mib), "xesam:artist": .strings(Array(repeating: "a", count: 10_000)),
                                         "nested": .dictionary(["x": .string("y")])]
        for i in 0..<1000 { many["x:key\(i)"] = .int64(Int64(i)) }
        let kept = M.bounded(properties: ["Metadata": .dictionary(many), "MadeUp": .string(mib), "Rate": .double(1)])
        #expect(Set(kept.keys) == ["Metadata", "Rate"])
        guard case .dictionary(let m)? = kept["Metadata"] else { return #expect(Bool(false), "Metadata kept") }
        #expect(m.count <= M.maxMetadataEntries)
        #expect((m["xesam:title"]?.stringValue ?? "").utf8.count <= M.maxStringBytes)
        if case .strings(let a)? = m["xesam:artist"] { #expect(a.count == M.maxListEntries) } else { #expect(Bool(false)) }
        #expect(m["nested"] == nil)
    }

    /// Issue 22 item 4: the rates are the usual steps within MinimumRate–MaximumRate (mpv-mpris
    /// says 0.01–100); a player that cannot change rate (1–1, or no range at all) offers 1 only.
    @Test func supportedRatesAreTheStepsWithinTheRange() {
        #expect(M.supportedRates(["MinimumRate": .double(0.01), "MaximumRate": .double(100)]) == M.rateSteps)
        #expect(M.supportedRates(["MinimumRate": .double(0.5), "MaximumRate": .double(2)]) == [0.5, 0.75, 1, 1.25, 1.5, 1.75, 2])
        #expect(M.supportedRates(["MinimumRate": .double(1), "MaximumRate": .double(1)]) == [1])
        #expect(M.supportedRates([:]) == [1])
        // Not a rate (NaN, negative, a string): as absent.
        #expect(M.supportedRates(["MinimumRate": .double(.nan), "MaximumRate": .double(-3)]) == [1])
        #expect(M.supportedRates(["MinimumRate": .string("x"), "MaximumRate": .double(.infinity)]) == [1])
        // A range holding no step (against MPRIS, which wants 1 in it): still one rate, 1.
        #expect(M.supportedRates(["MinimumRate": .double(1.1), "MaximumRate": .double(1.2)]) == [1])
        #expect(M.supportedRates(["MinimumRate": .double(1e-300), "MaximumRate": .double(1e300)]) == M.rateSteps)
    }

    /// Issue 22 item 4: a player without Seeked has played on since its Position was read; the
    /// seek goes from there (before: from the stale Position, overshooting by the time since).
    @Test func positionIsExtrapolatedWhilePlaying() {
        let playing: [String: DBusValue] = ["PlaybackStatus": .string("Playing"), "Rate": .double(1)]
        let read: UInt64 = 1_000_000_000
        // 3 s after a read of 10 s, playing at 1: at 13 s; at 2: at 16 s; paused: still 10 s.
        #expect(M.extrapolated(10_000_000, readAt: read, now: read + 3_000_000_000, properties: playing) == 13_000_000)
        var fast = playing
        fast["Rate"] = .double(2)
        #expect(M.extrapolated(10_000_000, readAt: read, now: read + 3_000_000_000, properties: fast) == 16_000_000)
        #expect(M.extrapolated(10_000_000, readAt: read, now: read + 3_000_000_000, properties: ["PlaybackStatus": .string("Paused")])
                == 10_000_000)
        // Not past the end of the track; a clock that went back moves nothing; unknown stays so.
        var short = playing
        short["Metadata"] = .dictionary(["mpris:length": .int64(11_000_000)])
        #expect(M.extrapolated(10_000_000, readAt: read, now: read + 3_000_000_000, properties: short) == 11_000_000)
        #expect(M.extrapolated(10_000_000, readAt: read, now: read - 1, properties: playing) == 10_000_000)
        #expect(M.extrapolated(nil, readAt: read, now: read + 1, properties: playing) == nil)
        #expect(M.extrapolated(.min, readAt: read, now: read + 1, properties: playing) == nil)
        // A rate a peer made huge is bounded; the result stays within the host's bound.
        var huge = playing
        huge["Rate"] = .double(1e300)
        let far = M.extrapolated(0, readAt: 0, now: .max, properties: huge)
        #expect(far.map { Microseconds.boundedSeconds($0) != nil } == true)

        // The seek from the extrapolated position lands on the target: 20 s from 13 s is +7 s.
        let now = M.extrapolated(10_000_000, readAt: read, now: read + 3_000_000_000, properties: playing)
        #expect(M.call(for: ["command": "changePlaybackPosition", "position": 20], properties: playing, position: now)
                == .method("Seek", [.int64(7_000_000)]))
        #expect(M.seeksByOffset(["command": "changePlaybackPosition", "position": 20], playing))
        #expect(!M.seeksByOffset(["command": "changePlaybackPosition", "position": 20],
                                 ["Metadata": .dictionary(["mpris:trackid": .objectPath("/t/1")])]))
        #expect(!M.seeksByOffset(["command": "skipForward", "interval": 5], playing))
    }

    /// The security follow-up: only the bus driver's own NameOwnerChanged counts.
    @Test func onlyTheBusDriverSendsNameOwnerChanged() {
        #expect(M.isFromBusDriver("org.freedesktop.DBus"))
        #expect(!M.isFromBusDriver(":1.42"))
        #expect(!M.isFromBusDriver(""))
    }

    /// An Identity the host would refuse as an app name (over 128 characters, blank) does not
    /// keep the player out: it is cut, or the session id stands in.
    @Test func identityBecomesAnAppNameTheHostTakes() {
        #expect(M.appName(.string("Fake Player"), fallback: "mpris-x") == "Fake Player")
        let long = M.appName(.string(String(repeating: "a", count: 150)), fallback: "mpris-x")
        #expect(long.count == 128 && long.utf8.count <= 200)
        #expect(M.appName(.string(String(repeating: "é", count: 150)), fallback: "mpris-x").utf8.count <= 200)
        #expect(M.appName(.string("   "), fallback: "mpris-x") == "mpris-x")
        #expect(M.appName(nil, fallback: "mpris-x") == "mpris-x")
        #expect(M.appName(.int64(3), fallback: "mpris-x") == "mpris-x")
    }
}
