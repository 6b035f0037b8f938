import Glibc
import Testing
@testable import PlayerHost

/// Issue 11 end to end: desktop MPRIS players on a private dbus-daemon — real `mpv` with the
/// `mpv-mpris` script, and a small python3-dbus fake player — imported by the real daemon.
/// Every wait is on the daemon's events with a deadline; mpv's state is read back over its IPC.
@Suite(.serialized) struct MPRISImportTests {
    /// The mpv-mpris script, where Debian puts it (nil: the suite has nothing to test with).
    static let mprisScript: String? = ["/usr/lib/mpv-mpris/mpris.so", "/etc/mpv/scripts/mpris.so",
                                       "/usr/lib/x86_64-linux-gnu/mpv/mpris.so"].first { access($0, R_OK) == 0 }

    @Test func mpvAppearsPausesSeeksFollowsTheExportAndGoes() throws {
        guard let script = Self.mprisScript else { return }
        let f = try ImportFixture()
        defer { f.close() }
        let mpv = try f.startMPV("one", script: script)
        // Within 1 s of mpv's name on the bus in the issue; 10 s here for a loaded machine.
        #expect(try f.waitUntil(10) { try f.session("mpris-mpv")?["playbackState"] == "playing" })
        // mpv-mpris names the file first and its tags once loaded: the next key moment brings them.
        func item() throws -> JSON? {
            try f.client.call("session.get", ["session": "mpris-mpv"])["players"]?.arrayValue?.first?["currentItem"]
        }
        #expect(try f.waitUntil(10) { try item()?["title"] == "Sine One" })
        #expect(abs((try item()?["duration"]?.doubleValue ?? 0) - 60) < 0.5)
        #expect(try f.client.call("session.get", ["session": "mpris-mpv"])["kind"] == "mpris")

        #expect(try f.npctl("pause --session mpris-mpv").status == 0)
        #expect(try f.waitUntil(10) { try f.session("mpris-mpv")?["playbackState"] == "paused" })
        #expect(try mpv.get("pause") == true)

        #expect(try f.npctl("position 10 --session mpris-mpv").status == 0)
        let at = try mpv.number("time-pos")
        #expect(at >= 9.5 && at < 12, "mpv at \(at)")
        // mpv-mpris says MinimumRate 0.01, MaximumRate 100: 1.5 is one of the session's rates.
        let rate = try f.npctl("rate 1.5 --session mpris-mpv")
        #expect(rate.status == 0, "\(rate.output)")
        #expect(try mpv.number("speed") == 1.5)

        // Paused, it stays Now Playing; the export does not mirror it (it has its own card:
        // issue 22, one card per player), and it is never imported back.
        #expect(try f.waitUntil(10) { try f.client.call("nowPlaying.get")["session"] == "mpris-mpv" })
        #expect(try f.mpris.sh("playerctl -p mpv metadata title") == "Sine One")
        #expect(try f.mpris.playerctl("status") == "Stopped")
        #expect(try f.sessionIDs() == ["mpris-mpv"])

        try mpv.quit()
        #expect(try f.waitUntil(10) { try f.sessionIDs().isEmpty })
    }

    @Test func aSecondPlayerInterruptsTheFirstThroughMPRIS() throws {
        guard let script = Self.mprisScript else { return }
        let f = try ImportFixture()
        defer { f.close() }
        let one = try f.startMPV("one", script: script)
        #expect(try f.waitUntil(10) { try f.session("mpris-mpv")?["playbackState"] == "playing" })
        let two = try f.startMPV("two", script: script)
        // The second one's name carries its instance suffix.
        let second = "mpris-mpv.instance\(two.pid)"
        // The first is paused by its own player (the model only marks it interrupted).
        #expect(try f.waitUntil(10) {
            try f.session(second)?["playbackState"] == "playing" && one.get("pause") == true
                && f.session("mpris-mpv")?["playbackState"] != "playing"
        })
        #expect(try two.get("pause") == false)
        #expect(try f.waitUntil(10) { try f.client.call("nowPlaying.get")["session"] == .string(second) })

        // A host session taking the audio interrupts the second; notifyOthers resumes it.
        let app = try f.harness.client()
        defer { app.close() }
        try app.call("host.hello", ["name": "host-app"])
        try app.call("session.create", ["id": "host", "kind": "main"])
        try app.call("audio.configure", ["session": "host", "category": "playback"])
        try app.call("audio.activate", ["session": "host"])
        #expect(try f.waitUntil(10) { try two.get("pause") == true })
        try app.call("audio.deactivate", ["session": "host", "notifyOthers": true])
        #expect(try f.waitUntil(10) { try f.session(second)?["playbackState"] == "playing" && two.get("pause") == false })
        // The first was interrupted by the second, which never let go: it stays paused.
        #expect(try one.get("pause") == true)
    }

    @Test func interruptImportedOffLeavesBothPlaying() throws {
        guard let script = Self.mprisScript else { return }
        let f = try ImportFixture(config: "[mpris]\ninterrupt_imported = false\n")
        defer { f.close() }
        let one = try f.startMPV("one", script: script)
        #expect(try f.waitUntil(10) { try f.session("mpris-mpv")?["playbackState"] == "playing" })
        let two = try f.startMPV("two", script: script)
        let second = "mpris-mpv.instance\(two.pid)"
        #expect(try f.waitUntil(10) { try f.client.call("nowPlaying.get")["session"] == .string(second) })
        // The model did interrupt the first (its audio session says so); mpv was left alone.
        #expect(try f.client.call("session.get", ["session": "mpris-mpv"])["audio"]?["interrupted"] == true)
        #expect(try one.get("pause") == false)
        #expect(try two.get("pause") == false)
    }

    @Test func canGoNextEnablesNextTrackAndIgnoredNamesStayOut() throws {
        let f = try ImportFixture(config: "[mpris]\nignore = [\"hidden\"]\n")
        defer { f.close() }
        try f.startFake("fake")
        try f.startFake("hidden")
        #expect(try f.waitUntil(10) { try f.session("mpris-fake") != nil })
        func nextEnabled() throws -> Bool? {
            let cmds = try f.client.call("session.get", ["session": "mpris-fake"])["commands"]?.arrayValue ?? []
            return cmds.first { $0["command"] == "nextTrack" }?["isEnabled"]?.boolValue
        }
        #expect(try f.waitUntil(10) { try nextEnabled() == false })
        let app = try f.client.call("session.get", ["session": "mpris-fake"])["app"]
        // The app is named after Identity ("Fake Player", as the model spells app names).
        #expect(app == "fake-player", "\(String(describing: app))")
        let title = try f.client.call("session.get", ["session": "mpris-fake"])["players"]?.arrayValue?.first?["currentItem"]
        #expect(title?["artist"] == "Ann, Bob")
        try f.mpris.sh("gdbus call --session --dest org.mpris.MediaPlayer2.fake --object-path /org/mpris/MediaPlayer2 --method org.playerhost.Test.Change CanGoNext '<true>'")
        #expect(try f.waitUntil(10) { try nextEnabled() == true })
        // A call the player refuses is commandFailed.
        let r = try f.client.call("command.send", ["session": "mpris-fake", "command": "stop"])
        #expect(r["status"] == "commandFailed", "\(r)")
        #expect(try f.sessionIDs() == ["mpris-fake"])
    }
}
