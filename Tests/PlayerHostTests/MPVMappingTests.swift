import Testing
@testable import PlayerHost
@testable import Plugins

/// The pure parts of the mpv plugin: remote commands → mpv commands, and mpv's observed state →
/// the `player.sync` report.
@Suite struct MPVMappingTests {
    /// Two files, the second playing at normal speed, tags known for the first only.
    static func playing() -> MPVState {
        var s = MPVState()
        s.apply("playlist", [["filename": "/m/a.ogg"], ["filename": "/m/b.ogg", "current": true]])
        s.apply("playlist-count", 2)
        s.apply("playlist-pos", 0)
        s.apply("metadata", ["TITLE": "A", "Artist": "Band", "album": "LP"])
        s.apply("duration", 60.0)
        s.apply("playlist-pos", 1)
        s.apply("metadata", [:])
        s.apply("media-title", "b.ogg")
        s.apply("duration", 30.0)
        s.apply("idle-active", false)
        s.apply("pause", false)
        return s
    }

    func plan(_ event: JSON, _ state: MPVState = playing()) -> MPVCommandPlan? {
        try? MPVCommandPlan.make(event, state: state).get()
    }

    @Test func commandsMapOntoMpv() throws {
        #expect(plan(["command": "pause"])?.commands == [["set_property", "pause", true]])
        #expect(plan(["command": "togglePlayPause"])?.commands == [["cycle", "pause"]])
        // Skips use the event's interval, never a fixed one.
        let skip = try #require(plan(["command": "skipBackward", "interval": 7]))
        #expect(skip.commands == [["seek", -7.0, "relative+exact"]] && skip.awaitsRestart)
        #expect(plan(["command": "changePlaybackPosition", "position": 12.5])?.commands == [["seek", 12.5, "absolute+exact"]])
        #expect(plan(["command": "changePlaybackRate", "rate": 1.5])?.commands == [["set_property", "speed", 1.5]])
        #expect(plan(["command": "changeRepeatMode", "repeatType": "one"])?.commands
            == [["set_property", "loop-file", "inf"], ["set_property", "loop-playlist", "no"]])
        #expect(plan(["command": "changeShuffleMode", "shuffleType": "items"])?.shuffle == "items")
        let next = try #require(plan(["command": "nextTrack"]))
        #expect(next.refusedStatus == .noSuchContent && next.awaitsRestart)
        // The first item: previous goes back to its start.
        var first = Self.playing()
        first.apply("playlist-pos", 0)
        #expect(plan(["command": "previousTrack"], first)?.commands == [["seek", 0, "absolute"]])
        // Stop keeps the item loaded: paused at its start.
        #expect(plan(["command": "stop"])?.commands == [["set_property", "pause", true], ["seek", 0, "absolute"]])
    }

    @Test func nothingLoadedOrMalformedAnswersWithoutMpv() {
        #expect(throws: MPVCommandPlan.StatusOnly(.noActionableNowPlayingItem)) {
            try MPVCommandPlan.make(["command": "play"], state: MPVState()).get()
        }
        #expect(throws: MPVCommandPlan.StatusOnly(.commandFailed)) {
            try MPVCommandPlan.make(["command": "changePlaybackRate"], state: Self.playing()).get()
        }
        #expect(throws: MPVCommandPlan.StatusOnly(.commandFailed)) {
            try MPVCommandPlan.make(["command": "rating", "rating": 3], state: Self.playing()).get()
        }
    }

    @Test func reportCarriesQueueTagsPositionAndRate() {
        var s = Self.playing()
        let r = s.report(elapsed: 4.5)
        let items = r["items"]?.arrayValue ?? []
        #expect(items.count == 2)
        // Tags learned while the first file played stay with it (case-insensitive keys).
        #expect(items[0] == ["title": "A", "artist": "Band", "url": "/m/a.ogg", "duration": 60.0, "info": ["albumTitle": "LP"]])
        // No tags: mpv's media-title.
        #expect(items[1]["title"] == "b.ogg" && items[1]["duration"] == 30.0)
        #expect(r["index"] == 1 && r["elapsed"] == 4.5 && r["rate"] == 1.0 && r["duration"] == 30.0)
        #expect(r["status"] == "ready" && r["repeatMode"] == "off" && r["shuffleMode"] == "off")

        s.apply("speed", 2.0)
        #expect(s.report(elapsed: nil)["rate"] == 2.0)
        #expect(s.report(elapsed: nil)["elapsed"] == nil)
        s.apply("pause", true)
        #expect(s.report(elapsed: 5)["rate"] == 0.0)
        s.apply("loop-playlist", "inf")
        #expect(s.report(elapsed: 5)["repeatMode"] == "all")
        // mpv gone: failed, not moving, the queue kept.
        let dead = s.report(elapsed: 5, failed: true)
        #expect(dead["status"] == "failed" && dead["rate"] == 0.0 && dead["items"]?.arrayValue?.count == 2)
        // The queue ended: mpv idles at position -1; the host keeps the last item.
        s.apply("playlist-pos", -1)
        s.apply("idle-active", true)
        let ended = s.report(elapsed: nil)
        #expect(ended["index"] == 1 && ended["rate"] == 0.0 && ended["status"] == "ready")
        #expect(MPVState().report(elapsed: nil)["status"] == "idle")
    }

    @Test func mpvIsStartedHeadlessOnAPrivateSocket() {
        let o = MPVOptions(executable: "/usr/bin/mpv", parentDeathWrapper: "/usr/bin/setpriv")
        let (program, args) = o.command(socket: "/run/x/1.sock")
        #expect(program == "/usr/bin/setpriv" && args.prefix(4) == ["--pdeathsig", "KILL", "--", "/usr/bin/mpv"])
        #expect(args.contains("--idle=yes") && args.contains("--no-config") && args.contains("--ao=null") && args.contains("--vo=null"))
        #expect(args.contains("--input-ipc-server=/run/x/1.sock"))
        let loud = MPVOptions(executable: "/usr/bin/mpv", audioOutput: "pulse").command(socket: "/s")
        #expect(loud.0 == "/usr/bin/mpv" && loud.1.contains("--ao=pulse") && !loud.1.contains("--ao-null-buffer=0.05"))
        #expect(MPVOptions.fromEnvironment(["PLAYERHOST_MPV": "off"]) == nil)
        #expect(MPVOptions.fromEnvironment(["PATH": "/nonexistent"]) == nil)
    }
}
