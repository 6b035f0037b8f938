import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient
@testable import PlayerHostHost
@testable import PlayerHostRPC
@testable import Plugins

/// Issue 12 against the real binary: what the state file keeps across an orderly stop and
/// `kill -9` — the host's sessions, the pin (issue 23), the volume (issue 22), a plugin's own
/// state and the mpv plugin's sessions. Each test has its own daemon and directory, so they run
/// side by side. What goes wrong with the file (bad, unwritable, a kill mid-burst) and reloads:
/// `RestartRecoveryEndToEndTests`. The logic around (pin rules, volume over the protocol) is on
/// an embedded host: `PinOverSocketTests`, `VolumeOverSocketTests`.
@Suite struct RestartEndToEndTests {
    @Test func anOrderlyStopKeepsEverythingPausedWhereItWas() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start())
        try RestartSupport.makeKeep(try d.client())
        #expect(d.stop()?.status == 0)
        #expect(try d.start())
        let s = try d.client().call("session.get", ["session": "keep"])
        RestartSupport.expectKeep(s, position: 42, tolerance: 0.05)
        // (host.doctor also says MPRIS is off: the harness gives the daemon no session bus.)
        #expect(try d.client().call("host.doctor").arrayValue?.filter { $0["code"]?.stringValue?.hasPrefix("state") == true }.isEmpty == true)
    }

    @Test func aPlayingSessionComesBackPausedAtTheStopPosition() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start())
        let c = try d.client()
        try RestartSupport.makeKeep(c)
        try c.call("player.play", ["session": "keep"])
        let before = try c.call("session.get", ["session": "keep"])["players"]?.arrayValue?.first?["elapsed"]?.doubleValue ?? 0
        let t0 = ControlClient.now()
        #expect(d.stop()?.status == 0)
        let bound = ControlClient.now() - t0
        #expect(try d.start())
        let s = try d.client().call("session.get", ["session": "keep"])
        let after = s["players"]?.arrayValue?.first?["elapsed"]?.doubleValue ?? -1
        #expect(after >= before && after <= before + bound + 0.01, "\(before) → \(after) (stop took \(bound) s)")
        #expect(s["playbackState"] == "paused")
        #expect(s["isNowPlaying"] == true)
    }

    @Test func killNineKeepsTheLastWrite() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start())
        try RestartSupport.makeKeep(try d.client())
        #expect(try RestartSupport.waitForWrite(d))
        d.stop(signal: SIGKILL)
        #expect(try d.start())
        RestartSupport.expectKeep(try d.client().call("session.get", ["session": "keep"]), position: 42, tolerance: 1)
    }

    /// The play order of a player, as titles (`player.queue` pages in play order).
    func playOrder(_ c: ControlClient, _ session: String) throws -> [String] {
        (try c.call("player.queue", ["session": .string(session)])["items"]?.arrayValue ?? []).compactMap { $0["title"]?.stringValue }
    }

    /// Issue 21 item 20: a shuffled queue comes back in the order it was playing in, at the same
    /// place in it, after an orderly stop and after `kill -9` alike.
    @Test(arguments: [SIGTERM, SIGKILL])
    func aRestartKeepsTheShuffleOrder(_ signal: Int32) throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start())
        let c = try d.client()
        try c.call("session.create", ["id": "sh", "kind": "main"])
        let items: [JSON] = (1...8).map { ["title": .string("T\($0)"), "duration": 100] }
        try c.call("player.load", ["session": "sh", "items": .array(items)])
        for _ in 0..<7 { try c.call("player.next", ["session": "sh"]) }
        // On the last item; shuffling keeps it current, first in the play order.
        try c.call("player.setShuffle", ["session": "sh", "mode": "items"])
        let before = try c.call("session.get", ["session": "sh"])["players"]?.arrayValue?.first
        #expect(before?["queueIndex"]?.intValue == 0 && before?["itemIndex"]?.intValue == 7)
        let order = try playOrder(c, "sh")
        #expect(order.count == 8 && order.first == "T8")
        #expect(try RestartSupport.waitForWrite(d))
        d.stop(signal: signal)
        #expect(try d.start())
        let c2 = try d.client()
        let after = try c2.call("session.get", ["session": "sh"])["players"]?.arrayValue?.first
        #expect(after?["queueIndex"]?.intValue == 0, "\(after ?? nil)")
        #expect(after?["itemIndex"]?.intValue == 7)
        #expect(after?["shuffleMode"] == "items")
        #expect(try playOrder(c2, "sh") == order)
    }

    /// Issue 21 item 21: a background-audio session of an app that is still connected is handed
    /// to the host when its app goes away; a daemon killed with -9 takes the app's connection
    /// with it, so the restart brings the session back as the orderly stop does.
    @Test(arguments: [SIGTERM, SIGKILL])
    func aBackgroundAudioSessionOfAConnectedAppSurvivesTheDaemon(_ signal: Int32) throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start())
        let app = try d.client()
        try app.call("host.hello", ["name": "bgapp"])
        try app.call("session.create", ["id": "bg", "kind": "main", "backgroundAudio": true])
        try app.call("player.load", ["session": "bg", "items": [["title": "Radio", "duration": 300]]])
        try app.call("player.seek", ["session": "bg", "position": 12])
        try app.call("session.create", ["id": "fg", "kind": "main"])
        #expect(try RestartSupport.waitForWrite(d))
        d.stop(signal: signal)
        #expect(try d.start())
        let c = try d.client()
        #expect(try RestartSupport.sessionIDs(c) == ["bg"])
        let s = try c.call("session.get", ["session": "bg"])
        #expect(s["app"] == "host", "\(s)")
        #expect(s["backgroundAudio"] == true || s["audio"]?["backgroundAudio"] == true, "\(s)")
        let p = s["players"]?.arrayValue?.first
        #expect(p?["currentItem"]?["title"] == "Radio")
        #expect(abs((p?["elapsed"]?.doubleValue ?? -1) - 12) < 0.5)
    }

    // MARK: Config sessions

    @Test func aRestartDropsAConfigSessionTheConfigNoLongerLists() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        let config = d.directory + "/c.toml"
        try RestartSupport.writeConfig(config, sessions: ["a", "b"])
        #expect(try d.start(["--config", config]))
        let c = try d.client()
        try c.call("player.seek", ["session": "a", "position": 30])
        try c.call("session.create", ["id": "mine", "kind": "main"])
        #expect(d.stop()?.status == 0)
        try RestartSupport.writeConfig(config, sessions: ["a"])
        #expect(try d.start(["--config", config]))
        let c2 = try d.client()
        #expect(try RestartSupport.sessionIDs(c2) == ["a", "mine"])
        // The kept config session has its saved state, not the config's fresh one.
        #expect(try c2.call("session.get", ["session": "a"])["players"]?.arrayValue?.first?["elapsed"]?.doubleValue == 30)
    }

    // MARK: The pin (issue 23)

    /// A pinned paused host session is Now Playing again after a restart, over a session that
    /// plays; unpinned, the playing one takes over. (The pin's rules before the restart:
    /// `PinOverSocketTests.aPinnedPausedSessionStaysNowPlayingUntilUnpinned`.)
    @Test func aPinnedPausedSessionSurvivesARestart() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start())
        let host = try d.client()
        try PinOverSocketTests.make(host, "kept", play: false)  // the host's own: kept across the restart
        try host.call("arbiter.pin", ["player": "kept"])
        #expect(try RestartSupport.waitForWrite(d, atLeast: 1))
        #expect(d.stop()?.status == 0)
        #expect(try d.start())
        let c = try d.client()
        #expect(try c.call("arbiter.explain")["pinned"] == "kept")
        let later = try d.client()
        try later.call("host.hello", ["name": "later"])
        try PinOverSocketTests.make(later, "later", play: true)
        #expect(try PinOverSocketTests.nowPlaying(c) == "kept", "the pin came back with the daemon")
        #expect(try c.call("arbiter.unpin")["unpinned"] == "kept")
        #expect(try PinOverSocketTests.nowPlaying(c) == "later")
    }

    // MARK: The volume (issue 22)

    func npctl(_ d: DaemonHarness, _ args: String) throws -> (status: Int64, output: String) {
        try NpctlEndToEndTests.npctl(args, socket: d.socketPath)
    }

    /// `npctl volume`/`mute` as a user types them (the binary's syntax and output), and the
    /// level and mute kept across a restart. One daemon, two starts. (`changeVolume` over the
    /// protocol, `volume`/`muted` in replies and events: `VolumeOverSocketTests`.)
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

    // MARK: Plugins (issue 12 item 4)

    /// What a plugin asks the host to keep survives a restart.
    @Test func aPluginsStateIsKeptAcrossARestart() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start())
        let anonymous = try d.client()
        #expect(try RestartSupport.refusal(anonymous, "plugin.saveState", ["state": ["x": 1]])?.code == RPCErrorCode.invalidState.rawValue,
                "a connection without an app name has no state to keep")
        let p = try d.client()
        try p.call("host.hello", ["name": "keeper"])
        #expect(try p.call("plugin.savedState") == ["state": .null, "savedAt": .null])
        let kept: JSON = ["version": 1, "items": ["a", "b"], "at": 20.5]
        #expect(try p.call("plugin.saveState", ["state": kept]) == true)
        let big = JSON.string(String(repeating: "x", count: HostMethods.maxPluginStateBytes))
        let refused = try RestartSupport.refusal(p, "plugin.saveState", ["state": big])
        #expect(refused?.code == RPCErrorCode.limitExceeded.rawValue)
        #expect(refused?.data?["limit"] == .int(Int64(HostMethods.maxPluginStateBytes)), "the error names the limit")
        #expect(try p.call("plugin.savedState")["state"] == kept, "a refused state changes nothing")

        #expect(d.stop()?.status == 0)
        #expect(try d.start())
        let again = try d.client()
        try again.call("host.hello", ["name": "keeper"])
        let back = try again.call("plugin.savedState")
        #expect(back["state"] == kept)
        #expect((back["savedAt"]?.doubleValue ?? 0) > 1_700_000_000, "the file's wall-clock write time")
        // Another app has its own (none); clearing drops it from the file.
        let other = try d.client()
        try other.call("host.hello", ["name": "other"])
        #expect(try other.call("plugin.savedState")["state"] == .null)
        #expect(try again.call("plugin.saveState", ["state": .null]) == true)
        #expect(try again.call("plugin.savedState")["state"] == .null)
    }

    /// The case: an mpv session on item 2 of 3 at 20 s; after an orderly restart mpv runs
    /// again, paused on item 2 at 20 s (±1 s), and `npctl play` plays on from there.
    @Test(.enabled(if: MPVFixture.toolsAvailable, "mpv and sox are not installed: apt-get install mpv sox libsox-fmt-base"))
    func anMPVSessionComesBackPausedOnItsItemAtItsPosition() throws {
        let f = try MPVFixture()
        defer { f.close() }
        let three = f.daemon.directory + "/three.ogg"
        #expect(try runShell("sox -n -r 44100 -c 2 --comment 'title=Sine Three' '\(three)' synth 40 sine 550 && echo ok").output == "ok\n")
        #expect(try f.npctl("open --session m '\(f.one)' '\(f.two)' '\(three)'").status == 0)
        #expect(try f.npctl("next --session m").status == 0)
        #expect(try f.npctl("pause --session m").status == 0)
        #expect(try f.npctl("position --session m 20").status == 0)
        // Issue 22: mpv's volume and mute are the plugin's to keep (the host's snapshot has neither).
        #expect(try f.npctl("volume --session m 0.4").status == 0)
        #expect(try f.npctl("mute on --session m").status == 0)
        let before = try f.probe(session: "m")
        #expect(try before.get("playlist-pos") == 1)
        #expect(abs(try before.number("time-pos") - 20) < 0.3)
        let oldPID = try f.client.call("mpv.status", ["session": "m"])["pid"]

        #expect(f.daemon.stop()?.status == 0)
        // A command timeout far past the client's (10 s), so that a command waiting on itself
        // (see the end) shows as a failed call rather than as a 2 s delay.
        try runShell("mkdir -p '\(f.daemon.directory)/config/playerhost' && echo 'command_timeout_ms = 60000' > '\(f.daemon.directory)/config/playerhost/playerhost.toml'")
        #expect(try f.daemon.start())
        let c = try f.daemon.client()
        // The session is back by the time the daemon is ready; mpv restores it a moment later.
        _ = try c.call("events.subscribe", ["topics": ["players"]])
        let restored: (JSON?) -> Bool = { p in
            guard let p else { return false }
            return p["itemIndex"] == 1 && p["status"] == "ready" && abs((p["elapsed"]?.doubleValue ?? -1) - 20) <= 1
        }
        if !restored(try c.call("session.get", ["session": "m"])["players"]?.arrayValue?.first) {
            try f.waitForPlayer(c, session: "m", deadline: 20) { restored($0) }
        }
        let s = try c.call("session.get", ["session": "m"])
        let p = s["players"]?.arrayValue?.first
        #expect(p?["queueCount"] == 3)
        #expect(p?["currentItem"]?["title"] == "Sine Two")
        #expect(p?["playbackState"] == "paused")
        let status = try c.call("mpv.status", ["session": "m"])
        #expect(status["phase"] == "running" && status["pid"] != nil && status["pid"] != oldPID, "\(status)")
        // mpv itself: the three files, on the second, paused at 20 s.
        let mpv = try MPVProbe(path: try #require(status["socket"]?.stringValue))
        #expect(try mpv.get("playlist-count") == 3)
        #expect(try mpv.get("playlist-pos") == 1)
        #expect(try mpv.get("pause") == true)
        #expect(abs(try mpv.number("time-pos") - 20) <= 1)
        #expect(try mpv.number("volume") == 40 && mpv.get("mute") == true, "the volume and mute it had")
        #expect(p?["volume"] == 0.4 && p?["muted"] == true, "\(String(describing: p))")

        // Play goes on from there.
        #expect(try f.npctl("play --session m").status == 0)
        #expect(try mpv.get("pause") == false)
        #expect(try mpv.get("playlist-pos") == 1)
        #expect(try mpv.number("time-pos") >= 19)
        #expect(f.daemon.waitForStderr("restored: item 2 of 3 at"), "\(f.daemon.stderrText)")

        // Opening a file into the session while it is paused plays it (mpv.open sends `play`
        // through the host, which asks the plugin): the plugin's answer never waits for the
        // host's reply to its own report, which sits behind that very `command.send`.
        #expect(try f.npctl("pause --session m").status == 0)
        #expect(try c.call("mpv.open", ["session": "m", "urls": [.string(f.one)]])["id"] == "m")
        #expect(try mpv.get("playlist-count") == 1, "open replaces the queue")
        #expect(try mpv.get("pause") == false)
    }
}
