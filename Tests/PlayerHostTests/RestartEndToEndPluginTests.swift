import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient
@testable import PlayerHostHost
@testable import PlayerHostRPC
@testable import Plugins

/// Issue 12 item 4 against the real binary: what a plugin asks the host to keep survives a
/// restart, and the mpv plugin's sessions come back — each in a new mpv, on its item at its
/// position, paused.
@Suite(.serialized) struct RestartEndToEndPluginTests {
    @Test func aPluginsStateIsKeptAcrossARestart() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start())
        let anonymous = try d.client()
        #expect(try refusal(anonymous, "plugin.saveState", ["state": ["x": 1]])?.code == RPCErrorCode.invalidState.rawValue,
                "a connection without an app name has no state to keep")
        let p = try d.client()
        try p.call("host.hello", ["name": "keeper"])
        #expect(try p.call("plugin.savedState") == ["state": .null, "savedAt": .null])
        let kept: JSON = ["version": 1, "items": ["a", "b"], "at": 20.5]
        #expect(try p.call("plugin.saveState", ["state": kept]) == true)
        let big = JSON.string(String(repeating: "x", count: HostMethods.maxPluginStateBytes))
        let refused = try refusal(p, "plugin.saveState", ["state": big])
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

    /// The error `method` answers with, nil if it succeeds.
    private func refusal(_ c: ControlClient, _ method: String, _ params: [String: JSON]) throws -> RPCError? {
        do throws(ClientError) {
            _ = try c.call(method, params)
            return nil
        } catch {
            guard case .rpc(let e) = error else { throw error }
            return e
        }
    }
}
