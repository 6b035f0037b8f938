import Foundation
import Glibc
import Testing
@testable import PlayerHost

/// Out-of-process plugins under the real daemon: the examples in `examples/` (Python and Swift)
/// started from a plugin directory, `kill -9` and restart, the start limit, bad paths, garbage
/// and hanging plugins, the in-process built-in, music nobody pauses until a plugin plays
/// (issue 22 item 7), and `PluginRunner` reconnecting across a daemon restart. No sleeps: waits
/// are on events (`events.subscribe`) or bounded polls on the harness's loop, each with a
/// deadline. One at a time: several time the plugins' exits and the command timeout.
@Suite(.serialized) struct PluginProcessEndToEndTests {
    typealias Rig = PluginRig
    typealias Failed = PluginRig.Failed
    static let examples = PluginRig.examples

    // MARK: - issue item 1: the examples, started by the daemon from the plugin directory

    @Test func pythonAndSwiftExamplesCreateSessionsAndHandleCommands() throws {
        let swiftPlugin = try PluginRig.swiftPlugin.get()
        let rig = try Rig(config: "command_timeout_ms = 5000") { dir in
            #expect(symlink(Self.examples + "/python-plugin/radio.py", dir + "/radio.py") == 0)
            #expect(symlink(swiftPlugin, dir + "/swift-clock-plugin") == 0)
            return ""
        }
        defer { rig.close() }
        let client = try rig.daemon.client()
        try client.call("events.subscribe", ["topics": ["sessions"]])
        try rig.waitForSessions(["py-radio", "swift-clock"], client)
        try rig.waitUntilTargeted("py-radio", ["play", "pause", "togglePlayPause"], client)
        try rig.waitUntilTargeted("swift-clock", ["play", "pause", "togglePlayPause", "nextTrack"], client)

        // Each session belongs to the plugin's app (its host.hello name).
        let sessions = try client.call("session.list").arrayValue ?? []
        #expect(sessions.first { $0["id"] == "py-radio" }?["app"] == "py-radio")
        #expect(sessions.first { $0["id"] == "py-radio" }?["kind"] == "radio")
        #expect(sessions.first { $0["id"] == "swift-clock" }?["app"] == "swift-clock")

        // Before any command: paused (or interrupted, when the other plugin activated later).
        let radioBefore = try rig.npctl("now --session py-radio").output
        #expect(radioBefore.hasSuffix(": PlayerHost examples — Py Radio  0:00 (live)  [py-radio]\n"), "\(radioBefore)")
        let clockBefore = try rig.npctl("now --session swift-clock").output
        #expect(clockBefore.hasSuffix(": Swift Clock — Tick  0:00/1:00  [swift-clock]\n"), "\(clockBefore)")

        // Python: manual info and its own playing state; each command reaches its handler,
        // which answers success and republishes.
        #expect(try rig.npctl("play --session py-radio") == (0, ""))
        let radio = try rig.json("now --json --session py-radio")
        #expect(radio["playbackState"] == "playing")
        #expect(radio["info"]?["extra"] == ["handled": 1, "last": "play"])
        let radioStatus = try rig.npctl("now --session py-radio").output
        #expect(radioStatus.hasPrefix("Playing: PlayerHost examples — Py Radio  "), "\(radioStatus)")
        #expect(radioStatus.hasSuffix(" (live)  [py-radio]\n"), "\(radioStatus)")
        #expect(try rig.npctl("play-pause --session py-radio") == (0, ""))
        let toggled = try rig.json("now --json --session py-radio")
        #expect(toggled["playbackState"] == "paused")
        #expect(toggled["info"]?["extra"] == ["handled": 2, "last": "togglePlayPause"])
        #expect(try rig.npctl("metadata --session py-radio albumTitle").output == "Live from Python\n")
        #expect(try rig.npctl("play --session py-radio") == (0, ""))
        #expect(try rig.json("now --json --session py-radio")["playbackState"] == "playing")

        // Swift: a clock player published automatically; the handlers drive it. Playing
        // activates its audio, which interrupts py-radio.
        #expect(try rig.npctl("play --session swift-clock") == (0, ""))
        #expect(try rig.json("now --json --session swift-clock")["playbackState"] == "playing")
        #expect(try rig.npctl("next --session swift-clock") == (0, ""))
        let clock = try rig.json("now --json --session swift-clock")
        #expect(clock["info"]?["title"] == "Tock")
        #expect(clock["info"]?["albumTitle"] == "PlayerHost examples", "from the items' info")
        #expect(try rig.npctl("play-pause --session swift-clock") == (0, ""))
        let paused = try rig.npctl("now --session swift-clock").output
        #expect(paused.hasPrefix("Paused: Swift Clock — Tock  0:0") && paused.hasSuffix("/1:30  [swift-clock]\n"), "\(paused)")
        #expect(try rig.npctl("stop --session swift-clock").status == 1, "stop has no target: refused, not hung")

        // The radio got the interruption as an event (it owns the session) and paused itself.
        var interrupted: JSON = .null
        #expect(try rig.poll(10) {
            interrupted = try client.call("info.get", ["session": "py-radio"])
            return interrupted["info"]?["extra"]?["last"] == "interruption"
        }, "\(interrupted)")
        #expect(interrupted["playbackState"] == "interrupted")
        #expect(try rig.npctl("now --session py-radio").output.hasPrefix("Interrupted: PlayerHost examples — Py Radio"))

        // Both are listed as supervised processes.
        let table = try rig.npctl("plugins")
        #expect(table.status == 0)
        let rows = table.output.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
        #expect(rows.first == ["NAME", "KIND", "STATE", "PID", "RESTARTS", "LAST"])
        for name in ["radio.py", "swift-clock-plugin"] {
            let row = rows.first { $0.first == name }
            #expect(row.map { Array($0[1...2]) } == ["process", "running"], "\(table.output)")
            #expect(row.flatMap { Int($0[3]) } != nil, "a pid: \(table.output)")
            #expect(row.map { Array($0[4...]) } == ["0", "-"], "\(table.output)")
        }
        // Built-ins (mpv, when installed) are listed too; these are the supervised processes.
        let listed = (try rig.json("plugins --json").arrayValue ?? []).filter { $0["kind"] == "process" }
        #expect(Set(listed.compactMap { $0["name"]?.stringValue }) == ["radio.py", "swift-clock-plugin"])

        // SIGTERM to the daemon stops both plugins gracefully: well within the 3 s grace after
        // which the supervisor would SIGKILL them, and nothing is left running.
        let pids = try rig.pids(client)
        #expect(pids.count == 2)
        let took = rig.close()
        #expect(took < 2.5, "the plugins ended on SIGTERM: \(took) s")
        for (name, pid) in pids { #expect(!isRunning(pid), "\(name) (pid \(pid)) outlived the daemon") }
    }

    // MARK: - issue item 2: crashes, restarts, the start limit, bad paths

    @Test func killNineTakesTheSessionAwayAndTheRestartBringsItBack() throws {
        let rig = try Rig { dir in
            #expect(symlink(Self.examples + "/python-plugin/radio.py", dir + "/radio.py") == 0)
            return ""
        }
        defer { rig.close() }
        let client = try rig.daemon.client()
        try client.call("events.subscribe", ["topics": ["sessions"]])
        try rig.waitForSessions(["py-radio"], client)
        let before = try #require(try rig.plugin("radio.py", client))
        let pid = try #require(before["pid"]?.intValue)
        #expect(before["restarts"] == 0)

        #expect(kill(Int32(pid), SIGKILL) == 0)
        try rig.waitForEvent("sessionClosed", session: "py-radio", client)
        #expect(try client.call("host.ping") == "pong", "the daemon answers while the plugin is down")
        // (The restart is at least 250 ms away: one round trip on this connection is not.)
        #expect(try client.call("session.list").arrayValue?.contains { $0["id"] == "py-radio" } == false,
                "the session went with the plugin")
        try rig.waitForEvent("sessionCreated", session: "py-radio", client)

        let after = try #require(try rig.plugin("radio.py", client))
        #expect(after["state"] == "running")
        #expect((after["restarts"]?.intValue ?? 0) >= 1)
        #expect(after["pid"] != nil && after["pid"]?.intValue != pid, "a new process")
        #expect(after["lastExit"]?["signal"] == .int(Int64(SIGKILL)))
        let row = try rig.npctl("plugins").output.split(separator: "\n").first { $0.hasPrefix("radio.py") }
        #expect(row?.hasSuffix("killed by signal 9") == true, "\(row ?? "")")

        // The new instance works like the first.
        try rig.waitUntilTargeted("py-radio", ["play", "pause", "togglePlayPause"], client)
        #expect(try rig.npctl("play --session py-radio") == (0, ""))
        #expect(try rig.json("now --json --session py-radio")["playbackState"] == "playing")

        // kill -9 of the daemon itself: the plugin it started does not linger reconnecting (a
        // restarted daemon starts its own copy); it sees it was orphaned and exits.
        let orphan = try #require(try rig.pids(client)["radio.py"])
        rig.daemon.stop(signal: SIGKILL)
        #expect(try rig.poll(20) { !isRunning(orphan) }, "radio.py (pid \(orphan)) outlived a killed daemon")
    }

    @Test func aPluginThatExitsAtOnceIsStoppedAtTheStartLimitAndBadPathsAreReported() throws {
        let rig = try Rig { dir in
            try writeFile(dir + "/crash.sh", "#!/bin/sh\necho 'Traceback (most recent call last):' >&2\necho 'ValueError: no station' >&2\nexit 1\n", mode: 0o755)
            try writeFile(dir + "/README", "not executable: not a plugin\n", mode: 0o644)
            try writeFile(dir + "/../notexec.sh", "#!/bin/sh\nexit 0\n", mode: 0o644)
            return """
                [[plugin]]
                name = "missing"
                path = "/nonexistent/playerhost-plugin"

                [[plugin]]
                name = "not-executable"
                path = "\(dir)/../notexec.sh"
                """
        }
        defer { rig.close() }
        let client = try rig.daemon.client()
        var pings = 0
        let settled = try rig.poll(60) {
            #expect(try client.call("host.ping") == "pong")
            pings += 1
            let list = (try client.call("plugin.list").arrayValue ?? []).filter { $0["kind"] == "process" }
            return list.count == 3 && list.allSatisfy { $0["state"] == "failed" }
        }
        let list = (try client.call("plugin.list").arrayValue ?? []).filter { $0["kind"] == "process" }
        #expect(settled, "\(list) \(rig.daemon.stderrText)")
        #expect(pings > 1)
        #expect(list.compactMap { $0["name"]?.stringValue } == ["crash.sh", "missing", "not-executable"], "README is skipped")

        let crash = try #require(list.first { $0["name"] == "crash.sh" })
        #expect(crash["restarts"] == 4, "5 quick exits in a row: the first start and 4 restarts")
        #expect(crash["lastExit"]?["status"] == 1)
        #expect(crash["pid"] == nil)
        for name in ["missing", "not-executable"] {
            let p = try #require(list.first { $0["name"] == .string(name) })
            #expect(p["error"]?.stringValue?.isEmpty == false, "\(p)")
            #expect(p["pid"] == nil)
        }
        // The log line is written when the state changes, but reaches stderrText only as the
        // harness's loop reads the pipe: wait for it.
        #expect(rig.daemon.waitForStderr("plugin crash.sh failed"), "\(rig.daemon.stderrText)")

        let table = try rig.npctl("plugins")
        #expect(table.status == 0)
        let crashRow = table.output.split(separator: "\n").first { $0.hasPrefix("crash.sh") }.map(String.init) ?? ""
        #expect(crashRow.split(separator: " ").map(String.init) == ["crash.sh", "process", "failed", "-", "4", "exited", "1"], "\(table.output)")
        #expect(table.output.contains("missing") && table.output.contains("error: "), "\(table.output)")
        #expect(rig.daemon.exit == nil, "the host stays up")
        #expect(try rig.npctl("ping").status == 0)

        // Issue 22 item 8: the last lines of its stderr are kept (and still reach the log);
        // doctor shows them with the failure and fixes to paste.
        #expect(crash["stderrTail"] == ["Traceback (most recent call last):", "ValueError: no station"], "\(crash)")
        #expect(rig.daemon.waitForStderr("ValueError: no station"), "forwarded to the daemon's stderr")
        let faults = try client.call("host.doctor").arrayValue ?? []
        let failed = try #require(faults.first { $0["plugin"] == "crash.sh" }, "\(faults)")
        #expect(failed["code"] == "pluginFailed" && failed["severity"] == "error")
        #expect(failed["message"] == "plugin crash.sh failed: it exited at once 5 times in a row (last: exited with status 1); it is not restarted")
        #expect(failed["stderr"] == ["Traceback (most recent call last):", "ValueError: no station"])
        #expect(faults.contains { $0["plugin"] == "missing" && $0["message"]?.stringValue?.hasPrefix("plugin missing failed: ") == true })
        let doctor = try rig.npctl("doctor")
        #expect(doctor.status == 0)
        #expect(doctor.output.contains("""
            host faults:
              ✗ error: plugin crash.sh failed: it exited at once 5 times in a row (last: exited with status 1); it is not restarted
                  last lines of its stderr:
                  | Traceback (most recent call last):
                  | ValueError: no station
                  fix: run it by hand to see why: \(rig.pluginDir)/crash.sh --socket \(rig.daemon.socketPath); once fixed: npctl daemon reload (starts it again)
            """), "\(doctor.output)")
        #expect(!doctor.output.contains("host: ✓ no faults"))
        // The fix it names works: a reload starts a failed plugin again.
        let reload = try client.call("host.reload")
        #expect(reload["pluginsStarted"]?.arrayValue?.contains("crash.sh") == true, "\(reload)")
    }

    // MARK: - issue item 5: garbage and hanging plugins cannot block other clients

    @Test func garbageAndHangingPluginsCannotBlockOtherClients() throws {
        let result = "/garbage.json"
        let rig = try Rig(config: "command_timeout_ms = 1000") { dir in
            try writeFile(dir + "/garbage.py", Self.garbageScript(result: dir + result), mode: 0o755)
            try writeFile(dir + "/hang.py", Self.hangScript, mode: 0o755)
            return ""
        }
        defer { rig.close() }
        let client = try rig.daemon.client()
        try client.call("events.subscribe", ["topics": ["sessions"]])
        try rig.waitForSessions(["hang"], client)
        try rig.waitUntilTargeted("hang", ["play"], client)

        // Garbage: a parse error per line, the connection still serves the next request, a
        // half line is held without blocking anyone, an over-long line is refused with one error.
        var report: JSON = .null
        #expect(try rig.poll(30) {
            guard let text = readPluginFile(rig.pluginDir + result) else { return false }
            report = try JSONParser.parse(text)
            return true
        }, "the garbage plugin never reported: \(rig.daemon.stderrText)")
        #expect(report["parseErrors"] == 100, "\(report)")
        #expect(report["pongAfterGarbage"] == true)
        #expect(report["oversizeRefused"] == true, "\(report)")
        #expect(try client.call("host.ping") == "pong")

        // Hanging: the sender gets commandFailed after the command timeout; meanwhile others
        // are answered at once.
        let sender = try rig.daemon.client()
        let start = EventLoop.hrtime()
        var line: [UInt8] = []
        RPCEncoder.request(method: "command.send", params: ["command": "play", "session": "hang"], id: 7, into: &line)
        try sender.send(line)
        let other = try rig.daemon.client()
        #expect(try other.call("host.ping") == "pong")
        #expect(try rig.npctl("sessions").status == 0)
        #expect(try other.call("info.get", ["session": "hang"])["session"] == "hang")
        let othersServed = Double(EventLoop.hrtime() - start) / 1e9
        let reply = try sender.readMessage()
        let waited = Double(EventLoop.hrtime() - start) / 1e9
        #expect(reply["result"]?["status"] == "commandFailed", "\(reply)")
        #expect(waited >= 0.95, "the timeout is 1 s: \(waited)")
        #expect(othersServed < waited, "others were served before the timeout: \(othersServed) vs \(waited)")
        // The stuck plugin is still there (hung, not dead); the host still answers.
        #expect(try rig.plugin("hang.py", client)?["state"] == "running")
        #expect(try rig.npctl("ping").status == 0)
    }

    // MARK: - the in-process path

    @Test func builtinClockSessionsPluginIsListed() throws {
        let daemon = try DaemonHarness()
        defer { daemon.close() }
        var env = SocketLocation.currentEnvironment()
        env["XDG_CONFIG_HOME"] = daemon.directory + "/xdg"
        #expect(try daemon.start(["--config", Self.examples + "/demo.toml"], environment: env))
        let list = try daemon.client().call("plugin.list").arrayValue ?? []
        let clock = list.first { $0["name"] == "clock-sessions" }
        #expect(clock?["kind"] == "builtin")
        #expect(clock?["state"] == "running")
        #expect(list.allSatisfy { $0["kind"] == "builtin" }, "no executables in an empty plugin dir")
        let table = try NpctlEndToEndTests.npctl("plugins", socket: daemon.socketPath).output.split(separator: "\n")
        let row = table.first { $0.hasPrefix("clock-sessions") }
        #expect(row?.split(separator: " ").map(String.init) == ["clock-sessions", "builtin", "running", "-", "-", "-"])
    }

    // MARK: - issue 22 item 7: nobody's music is paused by a plugin or a reload

    /// Another app plays; the radio plugin and an idle `activate = true` config session arrive
    /// by reload: the music plays on. The radio's own play interrupts it; the radio dies
    /// (kill -9): the interruption ends and the music resumes. (Before: the radio activated at
    /// attach and the config session at reload, each pausing the music, which stayed paused.)
    @Test func neitherAPluginNorAReloadPausesMusicUntilItsOwnPlaybackStarts() throws {
        let rig = try Rig()
        defer { rig.close() }
        let music = try rig.daemon.client()
        try music.call("host.hello", ["name": "music"])
        for (method, params) in [("session.create", ["id": "music", "kind": "main"] as JSON),
                                 ("audio.configure", ["session": "music", "category": "playback"]),
                                 ("audio.activate", ["session": "music"]),
                                 ("command.bindDefaults", ["session": "music"]),
                                 ("player.load", ["session": "music", "items": [["title": "Song", "duration": 600]]]),
                                 ("player.play", ["session": "music"])] {
            try music.call(method, params.objectValue ?? [:])
        }
        func musicState() throws -> JSON? { try music.call("info.get", ["session": "music"])["playbackState"] }
        #expect(try musicState() == "playing")

        let watcher = try rig.daemon.client()
        try watcher.call("events.subscribe", ["topics": ["sessions"]])
        #expect(symlink(Self.examples + "/python-plugin/radio.py", rig.pluginDir + "/radio.py") == 0)
        try writeFile(rig.daemon.directory + "/playerhost.toml", """
            plugin_dir = "\(rig.pluginDir)"
            [[session]]
            id = "idle"
            kind = "pip"
            activate = true
            [[session.item]]
            title = "Idle"
            duration = 60
            """)
        #expect(try rig.npctl("daemon reload").status == 0)
        try rig.waitForSessions(["py-radio", "idle"], watcher)
        try rig.waitUntilTargeted("py-radio", ["play", "pause", "togglePlayPause"], watcher)
        try rig.waitUntilTargeted("idle", ["play"], watcher)
        #expect(try musicState() == "playing", "an idle plugin and an idle config session interrupt nobody")
        #expect(try watcher.call("nowPlaying.get")["session"] == "music")
        #expect(try watcher.call("session.get", ["session": "idle"])["audio"]?["active"] == false)
        #expect(try watcher.call("session.get", ["session": "py-radio"])["audio"]?["active"] == false)

        // The radio's own playback starts: now it interrupts the music.
        #expect(try rig.npctl("play --session py-radio") == (0, ""))
        #expect(try rig.poll(10) { try musicState() == "interrupted" })

        // The radio dies: its session closes, the interruption ends, the music plays again (and
        // the restarted radio, idle, pauses nothing).
        let pid = try #require(try rig.pids(watcher)["radio.py"])
        #expect(kill(pid, SIGKILL) == 0)
        try rig.waitForEvent("sessionClosed", session: "py-radio", watcher)
        #expect(try musicState() == "playing", "a player that was playing when interrupted resumes")
        try rig.waitForEvent("sessionCreated", session: "py-radio", watcher)
        try rig.waitUntilTargeted("py-radio", ["play"], watcher)
        #expect(try musicState() == "playing")
    }

    // MARK: - PluginRunner across a daemon restart

    final class SessionMaker: SessionPlugin {
        let name = "runner-test"
        func attach(_ context: PluginContext) {
            context.send("session.create", ["id": "runner-test", "kind": "main"])
        }
    }

    /// State shared with the runner's thread.
    final class Shared: @unchecked Sendable {
        private let lock = NSLock()
        private var _stop: PluginRunner.StopHandle?
        let finished = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        var stop: PluginRunner.StopHandle? {
            get { lock.withLock { _stop } }
            set { lock.withLock { _stop = newValue } }
        }
    }

    /// Waits (on events, with a deadline) until `session` exists.
    func waitForSession(_ d: DaemonHarness, _ session: String) throws -> Bool {
        let c = try d.client()
        try c.call("events.subscribe", ["topics": ["sessions"]])
        _ = try c.nextNotification(timeout: 5)  // the current list, sent at once
        if try c.call("session.list").arrayValue?.contains(where: { $0["id"] == .string(session) }) == true { return true }
        while true {
            let n = try c.nextNotification(timeout: 20)
            if n["params"]?["type"] == "sessionCreated" && n["params"]?["session"] == .string(session) { return true }
        }
    }

    @Test func reattachesAfterTheDaemonRestarts() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start())
        let shared = Shared()
        let path = d.socketPath
        let thread = Thread {
            let runner = PluginRunner(plugin: SessionMaker(), socketPath: path)
            shared.stop = runner.stopHandle
            shared.started.signal()
            runner.run()
            shared.finished.signal()
        }
        thread.start()
        #expect(shared.started.wait(timeout: .now() + 10) == .success)
        #expect(try waitForSession(d, "runner-test"))
        // The daemon goes away and comes back on the same socket.
        #expect(d.stop()?.status == 0)
        #expect(try d.start())
        #expect(try waitForSession(d, "runner-test"), "the runner reconnected and the plugin re-created its session")
        let owner = try d.client().call("session.get", ["session": "runner-test"])["app"]
        #expect(owner != "host", "the plugin said host.hello again: the session is its app's")
        shared.stop?.stop()
        #expect(shared.finished.wait(timeout: .now() + 10) == .success, "stop() from another thread ends run()")
        #expect(d.stop()?.status == 0)
    }
}
