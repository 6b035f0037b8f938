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
        // The null output, pinned (the default is the system's output, see the next test).
        let o = MPVOptions(executable: "/usr/bin/mpv", audioOutput: "null", parentDeathWrapper: "/usr/bin/setpriv")
        let (program, args) = o.command(socket: "/run/x/1.sock")
        #expect(program == "/usr/bin/setpriv" && args.prefix(4) == ["--pdeathsig", "KILL", "--", "/usr/bin/mpv"])
        #expect(args.contains("--idle=yes") && args.contains("--no-config") && args.contains("--ao=null") && args.contains("--vo=null"))
        #expect(args.contains("--input-ipc-server=/run/x/1.sock"))
        let loud = MPVOptions(executable: "/usr/bin/mpv", audioOutput: "pulse").command(socket: "/s")
        #expect(loud.0 == "/usr/bin/mpv" && loud.1.contains("--ao=pulse") && !loud.1.contains("--ao-null-buffer=0.05"))
        #expect(MPVOptions.fromEnvironment(["PLAYERHOST_MPV": "off"]) == nil)
        #expect(MPVOptions.fromEnvironment(["PATH": "/nonexistent"]) == nil)
    }

    /// Issue 22 item 1: by default mpv plays through the system's output, in mpv's own probing
    /// order, and the list ends in `null` (mpv 0.35 stops playing when no output in its probe
    /// answers). `[mpv] ao`, `audio_device` and `vo` replace the defaults, a reload (`apply`)
    /// included; `PLAYERHOST_MPV_AO`/`_VO` override the configuration.
    @Test func mpvPlaysThroughTheSystemsOutputByDefaultEndingInNull() throws {
        let env = ["PLAYERHOST_MPV": "/bin/sh", "PATH": "/nonexistent"]
        var o = try #require(MPVOptions.fromEnvironment(env))
        func ao(_ o: MPVOptions) -> [Substring] {
            let arg = o.command(socket: "/s").1.first { $0.hasPrefix("--ao=") } ?? ""
            return arg.dropFirst("--ao=".count).split(separator: ",")
        }
        #expect(ao(o) == ["pipewire", "pulse", "alsa", "jack", "sdl", "null"])
        #expect(ao(o).last == "null")
        #expect(o.command(socket: "/s").1.contains("--vo=null"))
        #expect(!o.command(socket: "/s").1.contains { $0.hasPrefix("--audio-device") })

        let config = MPVConfig(audioOutput: "pulse,null", audioDevice: "pulse/sink-1", videoOutput: "gpu")
        o.apply(config)
        let args = o.command(socket: "/s").1
        #expect(ao(o) == ["pulse", "null"] && args.contains("--audio-device=pulse/sink-1") && args.contains("--vo=gpu"))
        // A request's own output takes its own device (the configured one is the configured output's).
        #expect(!o.command(socket: "/s", audioOutput: "alsa").1.contains { $0.hasPrefix("--audio-device") })
        o.apply(nil)
        #expect(ao(o).last == "null" && ao(o).count == 6 && o.audioDevice == nil)

        var pinned = try #require(MPVOptions.fromEnvironment(env.merging(["PLAYERHOST_MPV_AO": "null", "PLAYERHOST_MPV_VO": "x11"]) { $1 },
                                                            config: config))
        #expect(ao(pinned) == ["null"] && pinned.command(socket: "/s").1.contains("--vo=x11"))
        #expect(pinned.command(socket: "/s").1.contains("--ao-null-buffer=0.05"))
        pinned.apply(MPVConfig(audioOutput: "alsa"))
        #expect(ao(pinned) == ["null"], "the environment still overrides after a reload")
    }

    @Test func configuredOutputsParseAndEmptyOnesAreRefused() throws {
        let c = try HostConfig.parse("[mpv]\nao = \"pulse,null\"\naudio_device = \"auto\"\nvo = \"null\"\n")
        #expect(c.mpv == MPVConfig(audioOutput: "pulse,null", audioDevice: "auto", videoOutput: "null"))
        #expect(throws: ConfigError.self) { try HostConfig.parse("[mpv]\nao = \"\"\n") }
        #expect(throws: ConfigError.self) { try HostConfig.parse("[mpv]\nao = 3\n") }
        // A request may ask for a list of allowed outputs, not for one that writes files.
        let policy = MPVRequestPolicy()
        #expect(policy.checkAudioOutput("pulse,null") == nil)
        #expect(policy.checkAudioOutput("pulse,pcm") != nil && policy.checkAudioOutput("pulse,") != nil)
    }

    /// Issue 22 item 2: where `mpv.open`'s modes and the queue edits put things in mpv's playlist.
    @Test func queueEditsBecomeMpvPlaylistCommands() throws {
        typealias Plan = MPVQueuePlan
        #expect(Plan.load(["/a", "/b"], mode: .replace, count: 5, position: 2)
                == [["loadfile", "/a", "replace"], ["loadfile", "/b", "append"]])
        #expect(Plan.load(["/a"], mode: .append, count: 5, position: 2) == [["loadfile", "/a", "append"]])
        // Next: appended, then moved right behind the current item (mpv 0.35 has no insert-next).
        #expect(Plan.load(["/a", "/b"], mode: .next, count: 5, position: 2)
                == [["loadfile", "/a", "append"], ["playlist-move", 5, 3], ["loadfile", "/b", "append"], ["playlist-move", 6, 4]])
        // The current item is the last, or nothing is current: appending is it.
        #expect(Plan.load(["/a"], mode: .next, count: 3, position: 2) == [["loadfile", "/a", "append"]])
        #expect(Plan.load(["/a"], mode: .next, count: 3, position: -1) == [["loadfile", "/a", "append"]])

        #expect(Plan.commands(.clear, count: 0) == .success([["stop"]]))
        #expect(Plan.commands(.remove(1), count: 3) == .success([["playlist-remove", 1]]))
        #expect(Plan.commands(.jump(2), count: 3) == .success([["playlist-play-index", 2]]))
        // mpv puts entry a before entry b: to end at index `to` moving down, b is the one after it.
        #expect(Plan.commands(.move(from: 0, to: 2), count: 3) == .success([["playlist-move", 0, 3]]))
        #expect(Plan.commands(.move(from: 2, to: 0), count: 3) == .success([["playlist-move", 2, 0]]))
        #expect(Plan.commands(.move(from: 1, to: 1), count: 3) == .success([]))
        #expect(Plan.commands(.remove(3), count: 3) == .failure(.init(param: "index", index: 3, count: 3)))
        #expect(Plan.commands(.move(from: 0, to: 7), count: 3) == .failure(.init(param: "to", index: 7, count: 3)))
        #expect(Plan.commands(.jump(0), count: 0) == .failure(.init(param: "index", index: 0, count: 0)))

        #expect(try MPVPlugin.loadMode([:]).get() == .replace)
        #expect(try MPVPlugin.loadMode(["append": true]).get() == .append)
        #expect(try MPVPlugin.loadMode(["next": true]).get() == .next)
        #expect(try MPVPlugin.loadMode(["replace": false]).get() == .append, "the old default, asked for explicitly")
        #expect(throws: RPCError.self) { try MPVPlugin.loadMode(["append": true, "next": true]).get() }
        #expect(throws: RPCError.self) { try MPVPlugin.loadMode(["replace": true, "append": true]).get() }
    }

    /// Issue 22 item 10: seeking past the end of the last item ends the queue there, and mpv
    /// idles with no `time-pos`: the report says the end of that item (it said nothing, and the
    /// host kept whatever position it had, 1:55 or 2:00 at random).
    @Test func theQueueEndingAtTheLastItemsEndReportsItsEnd() {
        var s = Self.playing()
        s.endedFile = "/m/b.ogg"  // end-file (eof) of the current, last, item
        s.apply("playlist-pos", -1)
        s.apply("idle-active", true)
        let ended = s.report(elapsed: nil)
        #expect(ended["index"] == 1 && ended["rate"] == 0.0 && ended["elapsed"] == 30.0, "\(ended)")
        // Another item at that index since (the ended one was removed): no such claim.
        s.apply("playlist", [["filename": "/m/a.ogg"], ["filename": "/m/c.ogg"]])
        #expect(s.report(elapsed: nil)["elapsed"] == nil)
    }

    /// Issue 22 item 10: a seek to the end of an item or past it is what mpv does at the end, in
    /// one step — the next item, the file again (loop one), or the queue's end (the last item).
    @Test func seekingToOrPastTheEndIsTheItemsEnd() throws {
        var s = Self.playing()  // item 2 of 2 (30 s) current
        func plan(_ e: JSON, elapsed: Double? = nil) throws -> MPVCommandPlan { try MPVCommandPlan.make(e, state: s, elapsed: elapsed).get() }
        let past: JSON = ["command": "changePlaybackPosition", "position": 30.0]
        #expect(try plan(past) == MPVCommandPlan(commands: [["playlist-next", "force"]], awaitsRestart: true, endsQueue: true))
        #expect(try plan(["command": "changePlaybackPosition", "position": 29.5]).commands == [["seek", 29.5, "absolute+exact"]])
        #expect(try plan(["command": "skipForward", "interval": 10.0], elapsed: 25).endsQueue)
        #expect(try plan(["command": "skipForward", "interval": 10.0], elapsed: 5).commands == [["seek", 10.0, "relative+exact"]])
        #expect(try plan(["command": "skipForward", "interval": 10.0]).commands == [["seek", 10.0, "relative+exact"]], "position unknown: mpv's seek")
        s.apply("loop-playlist", "inf")
        #expect(try plan(past) == MPVCommandPlan(commands: [["playlist-next", "force"]], awaitsRestart: true))
        s.apply("loop-file", "inf")
        #expect(try plan(past).commands == [["seek", 0, "absolute+exact"]])
        s.apply("loop-file", false)
        s.apply("loop-playlist", false)
        s.apply("playlist-pos", 0)
        s.apply("duration", 60.0)
        #expect(try plan(["command": "changePlaybackPosition", "position": 75.0]) == MPVCommandPlan(commands: [["playlist-next", "force"]], awaitsRestart: true))
    }

    /// Issue 22 (volume): `changeVolume` sets mpv's `volume` (percent: the host's 1 is mpv's
    /// 100) and/or `mute`, even with nothing loaded; the report always carries both back.
    @Test func volumeMapsOntoMpvsPercentAndMute() throws {
        #expect(plan(["command": "changeVolume", "volume": 0.5])?.commands == [["set_property", "volume", 50.0]])
        #expect(plan(["command": "changeVolume", "volume": 1.3, "muted": false])?.commands
            == [["set_property", "volume", 130.0], ["set_property", "mute", false]])
        #expect(plan(["command": "changeVolume", "muted": true], MPVState())?.commands == [["set_property", "mute", true]],
                "an idle mpv has a volume too")
        #expect(plan(["command": "changeVolume", "volume": -1, "muted": true])?.commands == [["set_property", "mute", true]])
        for bad: JSON in [["command": "changeVolume"], ["command": "changeVolume", "volume": -0.5], ["command": "changeVolume", "volume": "loud"]] {
            #expect(throws: MPVCommandPlan.StatusOnly(.commandFailed)) { try MPVCommandPlan.make(bad, state: Self.playing()).get() }
        }
        #expect(MPVCommandPlan.handled.contains("changeVolume"))
        #expect(MPVState.observed.contains("volume") && MPVState.observed.contains("mute"))

        var s = Self.playing()
        #expect(s.report(elapsed: nil)["volume"] == 1.0 && s.report(elapsed: nil)["muted"] == false)
        s.apply("volume", 50.0)
        s.apply("mute", true)
        #expect(s.report(elapsed: nil)["volume"] == 0.5 && s.report(elapsed: nil)["muted"] == true)
        s.apply("volume", 1000.0)  // a volume-max raised by hand: the bound player.sync accepts
        #expect(s.report(elapsed: nil)["volume"] == 1.5)
        s.apply("volume", .null)
        #expect(s.report(elapsed: nil)["volume"] == 1.5, "no value keeps the last")
        var idle = MPVState()
        idle.apply("volume", 30.0)
        #expect(idle.report(elapsed: nil)["volume"] == 0.3 && idle.report(elapsed: nil)["muted"] == false)
    }
}
