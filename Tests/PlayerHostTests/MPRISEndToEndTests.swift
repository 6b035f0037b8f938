import Glibc
import Testing
@testable import PlayerHost

/// Issue 10 end to end: the real daemon on a private dbus-daemon, driven by the real
/// `playerctl`, `gdbus` and `dbus-monitor`. Few, each bounded by deadlines.
@Suite(.serialized) struct MPRISEndToEndTests {
    @Test func playerctlReachesTheCommandCenter() throws {
        let f = try MPRISFixture()
        defer { f.close() }
        #expect(try f.waitForName())
        #expect(try f.sh("playerctl -l").contains("playerhost"))
        #expect(try f.playerctl("status") == "Playing")
        #expect(try f.playerctl("metadata --format '{{artist}} - {{title}}'") == "Ann - Alpha")
        #expect(try f.playerctl("metadata xesam:album") == "First")
        #expect(try f.playerctl("metadata mpris:length") == "100000000")

        let c = try f.harness.client()
        defer { c.close() }
        try f.playerctl("play-pause")
        #expect(try c.call("nowPlaying.get")["playbackState"] == "paused")
        #expect(try f.playerctl("status") == "Paused")
        try f.playerctl("play-pause")
        #expect(try f.playerctl("status") == "Playing")
        try f.playerctl("next")
        #expect(try f.playerctl("metadata title") == "Beta")
        try f.playerctl("previous")
        #expect(try f.playerctl("metadata title") == "Alpha")

        try f.playerctl("position 30")
        let at30 = Double(try f.playerctl("position")) ?? -1
        #expect(at30 >= 30 && at30 < 40, "position \(at30)")
        try f.playerctl("position 5+")
        let at35 = Double(try f.playerctl("position")) ?? -1
        #expect(at35 >= 35 && at35 < 45, "position \(at35)")

        try f.playerctl("loop Track")
        #expect(try f.playerctl("loop") == "Track")
        #expect(try c.call("player.get", ["session": "main"])["repeatMode"] == "one")
        try f.playerctl("shuffle On")
        #expect(try f.playerctl("shuffle") == "On")
        #expect(try c.call("player.get", ["session": "main"])["shuffleMode"] == "items")
    }

    @Test func handOffSwitchesMetadataStatusAndTrackIDAndBack() throws {
        let f = try MPRISFixture()
        defer { f.close() }
        #expect(try f.waitForName())
        let mainTrack = try f.playerctl("metadata mpris:trackid")
        try f.playerctl("pause")

        let app = try f.harness.client()
        try app.call("host.hello", ["name": "other"])
        try app.call("session.create", ["id": "other", "kind": "main"])
        try app.call("audio.configure", ["session": "other", "category": "playback"])
        try app.call("audio.activate", ["session": "other"])
        try app.call("player.load", ["session": "other", "items": [["title": "Elsewhere", "artist": "Eve", "duration": 60]]])
        try app.call("command.bindDefaults", ["session": "other"])
        try app.call("player.play", ["session": "other"])
        #expect(try app.call("nowPlaying.get")["session"] == "other")

        #expect(try f.playerctl("metadata --format '{{artist}} - {{title}}'") == "Eve - Elsewhere")
        #expect(try f.playerctl("status") == "Playing")
        let otherTrack = try f.playerctl("metadata mpris:trackid")
        #expect(otherTrack != mainTrack && otherTrack.contains("/org/playerhost/track/"), "trackid \(otherTrack)")

        app.close()  // its session goes with it: Now Playing falls back to main
        #expect(f.harness.runUntil(0) { true })
        var title = ""
        for _ in 0..<50 where title != "Alpha" { title = try f.playerctl("metadata title") }
        #expect(title == "Alpha")
        #expect(try f.playerctl("status") == "Paused")
        #expect(try f.playerctl("metadata mpris:trackid") == mainTrack)
    }

    @Test func disablingNextTrackSignalsCanGoNextAndNextDoesNothing() throws {
        let f = try MPRISFixture()
        defer { f.close() }
        #expect(try f.waitForName())
        #expect(try f.property("CanGoNext").contains("true"))
        let m = try f.monitor(["type='signal',path='/org/mpris/MediaPlayer2'"])
        defer { f.stop(m) }
        let c = try f.harness.client()
        defer { c.close() }
        try c.call("command.enable", ["session": "main", "command": "nextTrack", "enabled": false])
        #expect(f.wait(m) { $0.contains("CanGoNext") }, "PropertiesChanged with CanGoNext")
        #expect(m.output.contains("member=PropertiesChanged"))
        #expect(try f.property("CanGoNext").contains("false"))
        try f.playerctl("next")
        #expect(try f.playerctl("metadata title") == "Alpha")
    }

    /// Issue 24: PropertiesChanged carries what the export slot's gate published, never the live
    /// model. A rate change waits in a window longer than the test; a command change inside it
    /// is signalled at once, and its MaximumRate is computed from the published rate (1). Before,
    /// the signal's values were read back from the live model as it went out: MaximumRate 2, the
    /// held rate, on the bus (and, for a desktop that had 2 already, a change that changed nothing).
    @Test func aValueTheGateHoldsNeverReachesTheBus() throws {
        let f = try MPRISFixture(config: "coalesce_ms = 60000")
        defer { f.close() }
        #expect(try f.waitForName())
        let m = try f.monitor(["type='signal',path='/org/mpris/MediaPlayer2'"])
        defer { f.stop(m) }
        let c = try f.harness.client()
        defer { c.close() }
        #expect(try f.property("MaximumRate").contains("2"), "the default rates go up to 2")
        try c.call("command.send", ["session": "main", "command": "changePlaybackRate", "rate": 2])
        #expect(try c.call("player.get", ["session": "main"])["rate"]?.doubleValue == 2)
        #expect(try f.property("Rate").contains("2"), "a Get reads the live value")
        try c.call("command.configure", ["session": "main", "command": "changePlaybackRate", "supportedPlaybackRates": [0.5, 1]])
        // The command's signal: MaximumRate without Metadata (what start-up published, which may
        // still be arriving, carries Metadata).
        func commandSignal(_ output: String) -> String? {
            output.split(separator: "signal time=").map(String.init)
                .first { $0.contains("member=PropertiesChanged") && $0.contains("MaximumRate") && !$0.contains("Metadata") }
        }
        // dbus-monitor's output arrives in pieces: wait for the entry's value, not just its name.
        #expect(f.wait(m) { commandSignal($0)?.contains("double") ?? false }, "the command change, at once")
        let signal = try #require(commandSignal(m.output))
        #expect(signal.contains("double 1") && !signal.contains("double 2"), "the published rate's bounds only: \(signal)")
        #expect(!signal.contains("\"Rate\""), "the held rate stays held")
    }

    @Test func introspectionShowsBothInterfacesAsTheSpecTypesThem() throws {
        let f = try MPRISFixture()
        defer { f.close() }
        #expect(try f.waitForName())
        let xml = try f.sh("gdbus introspect --session --dest \(MPRISBridge.busName) --object-path /org/mpris/MediaPlayer2")
        let text = xml.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
        for expected in [
            "interface org.mpris.MediaPlayer2 {", "Raise();", "Quit();",
            "readonly b CanQuit", "readonly b CanRaise", "readonly b HasTrackList", "readonly s Identity",
            "readonly as SupportedUriSchemes", "readonly as SupportedMimeTypes",
            "interface org.mpris.MediaPlayer2.Player {", "Next();", "Previous();", "Pause();", "PlayPause();",
            "Stop();", "Play();", "Seek(in x Offset);", "SetPosition(in o TrackId, in x Position);", "OpenUri(in s Uri);",
            "Seeked(x Position);", "readonly s PlaybackStatus", "readwrite s LoopStatus", "readwrite d Rate",
            "readwrite b Shuffle", "readonly a{sv} Metadata", "readwrite d Volume", "readonly x Position",
            "readonly d MinimumRate", "readonly d MaximumRate", "readonly b CanGoNext", "readonly b CanGoPrevious",
            "readonly b CanPlay", "readonly b CanPause", "readonly b CanSeek", "readonly b CanControl",
        ] {
            #expect(text.contains(expected), "introspection lacks \(expected)")
        }
        // A wrong argument type is a D-Bus error, not a crash.
        let bad = try f.sh("gdbus call --session --dest \(MPRISBridge.busName) --object-path /org/mpris/MediaPlayer2 --method org.mpris.MediaPlayer2.Player.Seek '\"ten\"'")
        #expect(bad.contains("Error"))
        #expect(try f.harness.client().call("host.ping") == "pong")
    }

    @Test func steadyPlaybackIsSilentAndASeekIsOneSeeked() throws {
        let f = try MPRISFixture()
        defer { f.close() }
        #expect(try f.waitForName())
        let m = try f.monitor(["type='signal',path='/org/mpris/MediaPlayer2'"])
        defer { f.stop(m) }
        // A seek, seen on the bus: whatever start-up published (coalesced with it or before it)
        // is behind us once its Seeked arrives, which the gate never holds longer than a window.
        try f.playerctl("position 10")
        #expect(f.wait(m) { $0.contains("member=Seeked") })
        let mark = m.output.count
        // The window itself is the requirement: 2 s of steady playback.
        f.harness.runUntil(2) { false }
        let steady = String(m.output.dropFirst(mark))
        #expect(!steady.contains("member=PropertiesChanged") && !steady.contains("member=Seeked"), "signals during steady playback: \(steady)")
        // Playing: the item's end is the only timer (no gate window, no D-Bus timeout armed).
        #expect(try f.harness.client().call("host.stats")["timersArmed"] == 1)

        try f.playerctl("position 50")
        #expect(f.wait(m) { $0.contains("member=Seeked") })
        try f.playerctl("pause")
        #expect(f.wait(m) { String($0.dropFirst(mark)).ranges(of: "\"Paused\"").count == 1 })
        #expect(String(m.output.dropFirst(mark)).ranges(of: "member=Seeked").count == 1)
    }

    @Test func withoutABusTheDaemonServesAndSaysSo() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start([], environment: ["PATH": "/usr/bin:/bin", "HOME": d.directory,
                                              "XDG_CONFIG_HOME": d.directory, "XDG_RUNTIME_DIR": d.directory]))
        let c = try d.client()
        defer { c.close() }
        #expect(try c.call("host.ping") == "pong")
        #expect(try c.call("host.stats")["mpris"]?["status"] == "no session bus")
    }

    @Test func disabledByConfigAndTheNameComesBackAfterTheBusRestarts() throws {
        let off = try MPRISFixture(config: "[mpris]\nenabled = false")
        #expect(try off.harness.client().call("host.stats")["mpris"]?["status"] == "disabled")
        off.close()

        let f = try MPRISFixture()
        defer { f.close() }
        #expect(try f.waitForName())
        f.killBus()
        try f.startBus()
        #expect(try f.waitForName(timeout: 20), "the name comes back on a new bus at the same address")
        #expect(try f.playerctl("metadata title") == "Alpha")
        let stats = try f.harness.client().call("host.stats")["mpris"]
        #expect(stats?["status"] == "active")
        #expect((stats?["reconnects"]?.intValue ?? 0) >= 1)
    }

    /// Issue 22 item 5: one card per player. With one host session and one imported player
    /// (the python fake) playing, `playerctl -l` lists each once, and the export stays on the
    /// host's own session instead of mirroring the imported one (`playerctl -a metadata` showed
    /// the fake's track twice); npctl's `playerhost` is the same. `[mpris] export =
    /// "now-playing"`, applied by a reload, brings the mirror back.
    @Test func anImportedPlayerIsListedOnceAndTheExportKeepsTheHostsOwnSession() throws {
        let session = """
            [[session]]
            id = "main"
            kind = "main"
            category = "playback"
            activate = true
            bind_defaults = true
            autoplay = true
            [[session.item]]
            title = "Alpha"
            artist = "Ann"
            duration = 100
            """
        let f = try ImportFixture(config: session)
        defer { f.close() }
        #expect(try f.mpris.waitForName())
        #expect(try f.waitUntil(10) { try f.client.call("nowPlaying.get")["session"] == "main" })
        try f.startFake("fake")
        #expect(try f.waitUntil(10) { try f.sessionIDs() == ["main", "mpris-fake"] })
        _ = try f.mpris.sh("gdbus call --session --dest org.mpris.MediaPlayer2.fake --object-path /org/mpris/MediaPlayer2 --method org.playerhost.Test.Change PlaybackStatus \"<'Playing'>\"")
        #expect(try f.waitUntil(10) { try f.client.call("nowPlaying.get")["session"] == "mpris-fake" })

        let listed = try f.mpris.sh("playerctl -l").split(separator: "\n").map(String.init)
        print("playerctl -l with one imported player and one host session: \(listed.count) players \(listed)")
        #expect(listed.sorted() == ["fake", "playerhost"])
        let cards = "-a metadata --format '{{playerName}}: {{title}}'"
        let shown = try f.mpris.sh("playerctl " + cards).split(separator: "\n").map(String.init).sorted()
        #expect(shown == ["fake: Fake Song", "playerhost: Alpha"], "each track once")
        let npctlCards = try f.npctl(cards).output
        #expect(npctlCards.split(separator: "\n").map(String.init).sorted() == shown, "npctl: \(npctlCards)")
        #expect(try f.npctl("-l").output == "playerhost\nfake\n")
        #expect(try f.client.call("mpris.get")["session"] == "main")
        #expect(try f.client.call("host.stats")["mpris"]?["export"] == "own")
        // --follow on playerhost follows the export too, not the imported player in the slot.
        let script = """
            coproc F { exec timeout 20 "$N" metadata --follow --format "{{playerName}}: {{title}}"; }
            read -r -t 20 a <&"${F[0]}"; kill "$F_PID"; wait "$F_PID"; echo "$a"
            """
        let followed = try runShell("PLAYERHOST_SOCKET='\(f.harness.socketPath)' N='\(DaemonHarness.npctl)' bash -c '\(script)'")
        #expect(followed.output == "playerhost: Alpha\n")

        // The mirror, for those who want one proxy player: applied by a reload.
        _ = try runShell("printf '[mpris]\\nexport = \"now-playing\"\\n' > '\(f.harness.directory)/import.toml' && cat >> '\(f.harness.directory)/import.toml' <<'EOF'\n\(session)\nEOF")
        let reloaded = try f.client.call("host.reload")
        #expect(reloaded["settingsChanged"]?.arrayValue?.contains("mpris.export") == true, "\(reloaded)")
        #expect(try f.mpris.playerctl("metadata title") == "Fake Song")
        #expect(try f.npctl("metadata title").output == "Fake Song\n")
    }

    /// Issue 22 item 9: one set of values. For a track with an embedded cover and a path that
    /// needs percent-encoding, the export (playerctl), npctl's playerctl view, its `--json`
    /// (info keys) and its `--follow` (events) show the same `mpris:artUrl` (the cached file,
    /// where npctl printed the source `embedded`), `mpris:trackid` (npctl had its own) and
    /// `xesam:url` (a URI; it was the bare path).
    @Test func npctlTheExportAndEventsShowOneSetOfValues() throws {
        let media = try runShell("mktemp -d").output.trimmed
        defer { _ = try? runShell("rm -rf '\(media)'") }
        let song = media + "/my song #1.mp3"
        let made = try runShell("""
            cd '\(media)' && ffmpeg -loglevel error -f lavfi -i 'testsrc=s=200x200' -frames:v 1 cover.jpg && \\
            ffmpeg -loglevel error -f lavfi -i 'sine=frequency=440:duration=5' -i cover.jpg -map 0 -map 1 \\
              -c:a libmp3lame -c:v copy -disposition:v attached_pic 'my song #1.mp3' && echo ok
            """)
        try #require(made.output.contains("ok"), "ffmpeg made the test file")
        let f = try ImportFixture(config: """
            [[session]]
            id = "main"
            kind = "main"
            category = "playback"
            activate = true
            bind_defaults = true
            autoplay = true
            [[session.item]]
            title = "Alpha"
            duration = 100
            url = "\(song)"
            """)
        defer { f.close() }
        #expect(try f.mpris.waitForName())
        // The cover resolves from the file's embedded picture: its nowPlaying event wakes the wait.
        #expect(try f.waitUntil(20) { try f.client.call("nowPlaying.get")["info"]?["artwork"]?["image"]?["url"] != nil })

        let format = "{{mpris:artUrl}}|{{xesam:url}}|{{mpris:trackid}}"
        let exported = try f.mpris.playerctl("metadata --format '\(format)'")
        let parts = exported.split(separator: "|").map(String.init)
        try #require(parts.count == 3, "\(exported)")
        let cached = try #require(ArtworkSource.localPath(parts[0]), "a file:// URL: \(parts[0])")
        #expect(cached.hasPrefix(f.harness.directory + "/.cache/playerhost/artwork/") && access(cached, R_OK) == 0, "the cached file: \(cached)")
        #expect(parts[1] == "file://" + MPRISValues.percentEncodedPath(song) && parts[1].contains("my%20song%20%231.mp3"))
        // playerctl prints an object path quoted, as g_variant_print does.
        #expect(parts[2].hasPrefix("'/org/playerhost/track/s") && parts[2].hasSuffix("'"))
        let track = String(parts[2].dropFirst().dropLast())

        #expect(try f.npctl("metadata --format '\(format)'").output == exported + "\n", "npctl's playerctl view")
        for (i, key) in ["mpris:artUrl", "xesam:url"].enumerated() {
            #expect(try f.mpris.playerctl("metadata \(key)") == parts[i])
            #expect(try f.npctl("metadata \(key)").output == parts[i] + "\n", "npctl metadata \(key)")
        }
        #expect(try f.npctl("metadata mpris:trackid").output == (try f.mpris.playerctl("metadata mpris:trackid")) + "\n")
        // npctl's info keys (`--json`, what its own lines read) carry the same values.
        let json = try JSONParser.parse(try f.npctl("metadata --json mpris:artUrl xesam:url mpris:trackid").output)
        #expect(json["mpris:artUrl"]?.stringValue == parts[0])
        #expect(json["xesam:url"]?.stringValue == parts[1])
        #expect(json["mpris:trackid"]?.stringValue == track)
        // Events: --follow builds its line from the nowPlaying event.
        let script = """
            coproc F { exec timeout 20 "$N" metadata --follow --format "\(format)"; }
            read -r -t 20 a <&"${F[0]}"; kill "$F_PID"; wait "$F_PID"; echo "$a"
            """
        let followed = try runShell("PLAYERHOST_SOCKET='\(f.harness.socketPath)' N='\(DaemonHarness.npctl)' bash -c '\(script)'")
        #expect(followed.output == exported + "\n")
    }
}
