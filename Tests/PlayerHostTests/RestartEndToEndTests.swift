import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient
@testable import PlayerHostHost
@testable import PlayerHostRPC

/// Issue 12 against the real binary: sessions survive an orderly stop and `kill -9`, bad state
/// never stops the daemon, SIGHUP and `npctl daemon reload` apply the config.
@Suite(.serialized) struct RestartEndToEndTests {
    /// The issue's session: two items, on item 2 at 42 s, repeat one, item info (it publishes
    /// automatically, so its info travels in the item), skip intervals [5, 30], nextTrack
    /// disabled, eligible (and so Now Playing).
    func makeKeep(_ c: ControlClient) throws {
        try c.call("session.create", ["id": "keep", "kind": "main"])
        try c.call("audio.configure", ["session": "keep", "category": "playback"])
        try c.call("audio.activate", ["session": "keep"])
        try c.call("player.load", ["session": "keep", "items": [
            ["title": "A", "duration": 100], ["title": "B", "duration": 200, "info": ["albumTitle": "Kept"]],
        ]])
        try c.call("command.bindDefaults", ["session": "keep"])
        try c.call("player.next", ["session": "keep"])
        try c.call("player.seek", ["session": "keep", "position": 42])
        try c.call("player.setRepeat", ["session": "keep", "mode": "one"])
        try c.call("command.configure", ["session": "keep", "command": "skipForward", "preferredIntervals": [5, 30]])
        try c.call("command.enable", ["session": "keep", "command": "nextTrack", "enabled": false])
    }

    func command(_ s: JSON, _ name: String) -> JSON? {
        s["commands"]?.arrayValue?.first { $0["command"]?.stringValue == name }
    }

    /// Everything `makeKeep` set, and paused at `position` within `tolerance`.
    func expectKeep(_ s: JSON, position: Double, tolerance: Double) {
        let p = s["players"]?.arrayValue?.first
        // Replies carry the current item and the count; the queue itself is read with player.queue.
        #expect(p?["queueCount"]?.intValue == 2)
        #expect(p?["currentItem"]?["title"] == "B")
        #expect(p?["itemIndex"]?.intValue == 1)
        let elapsed = p?["elapsed"]?.doubleValue ?? -1
        #expect(abs(elapsed - position) <= tolerance, "elapsed \(elapsed), expected \(position)")
        #expect(p?["playbackState"] == "paused")
        #expect(p?["repeatMode"] == "one")
        #expect(s["info"]?["albumTitle"] == "Kept")
        #expect(command(s, "skipForward")?["preferredIntervals"] == [5.0, 30.0])
        #expect(command(s, "nextTrack")?["isEnabled"] == false)
        #expect(command(s, "play")?["isAvailable"] == true)
        #expect(s["audio"]?["category"] == "playback" && s["audio"]?["active"] == true)
        #expect(s["isNowPlaying"] == true)
    }

    /// Waits (with a deadline) until the state file holds what was changed: no write pending.
    func waitForWrite(_ d: DaemonHarness, atLeast writes: Int = 1) throws -> Bool {
        let c = try d.client()
        for _ in 0..<200 {
            let st = try c.call("host.stats")["state"]
            if (st?["writes"]?.intValue ?? 0) >= writes, st?["pending"] == false { return true }
            _ = d.runUntil(0.05) { false }
        }
        return false
    }

    @Test func anOrderlyStopKeepsEverythingPausedWhereItWas() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start())
        try makeKeep(try d.client())
        #expect(d.stop()?.status == 0)
        #expect(try d.start())
        let s = try d.client().call("session.get", ["session": "keep"])
        expectKeep(s, position: 42, tolerance: 0.05)
        // (host.doctor also says MPRIS is off: the harness gives the daemon no session bus.)
        #expect(try d.client().call("host.doctor").arrayValue?.filter { $0["code"]?.stringValue?.hasPrefix("state") == true }.isEmpty == true)
    }

    @Test func aPlayingSessionComesBackPausedAtTheStopPosition() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start())
        let c = try d.client()
        try makeKeep(c)
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
        try makeKeep(try d.client())
        #expect(try waitForWrite(d))
        d.stop(signal: SIGKILL)
        #expect(try d.start())
        expectKeep(try d.client().call("session.get", ["session": "keep"]), position: 42, tolerance: 1)
    }

    @Test(arguments: ["half", "garbage", "future"])
    func aBadStateFileIsSetAsideAndTheDaemonServes(_ kind: String) throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start())
        try makeKeep(try d.client())
        #expect(d.stop()?.status == 0)
        let path = d.directory + "/state/state.json"
        switch kind {
        case "half": try runShell("head -c $(( $(stat -c %s '\(path)') / 2 )) '\(path)' > '\(path).x' && mv '\(path).x' '\(path)'")
        case "garbage": try runShell("head -c 3000 /dev/urandom > '\(path)'")
        default: try runShell("printf '{\"version\":99,\"sessions\":[]}' > '\(path)'")
        }
        #expect(try d.start())
        let c = try d.client()
        #expect(try c.call("host.ping") == "pong")
        #expect(try c.call("session.list").arrayValue?.isEmpty == true)
        #expect(try runShell("ls '\(d.directory)/state' | grep -c '^state.json.corrupt-'").output == "1\n")
        #expect(d.stderrText.contains("starting without saved sessions, moved it to"))
        #expect(try c.call("host.stats")["state"]?["loaded"]?.stringValue?.hasPrefix("set aside") == true)
        // host.doctor names where the file went.
        let fault = try c.call("host.doctor").arrayValue?.first { $0["code"]?.stringValue?.hasPrefix("state") == true }
        #expect(fault?["code"] == "stateSetAside")
        #expect(fault?["path"]?.stringValue?.hasPrefix(path + ".corrupt-") == true, "\(String(describing: fault))")
    }

    @Test func killNineDuringABurstLeavesAFileThatParses() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start())
        let c = try d.client()
        let stats = try d.client()
        try makeKeep(c)
        // Pipelined chunks of seeks (each a change); killed mid-burst once writes have happened
        // while it runs — at 10 000 changes, or later if the machine is fast.
        var sent = 0
        while sent < 200_000 {
            let writes = try stats.call("host.stats")["state"]?["writes"]?.intValue ?? 0
            if sent >= 10_000 && writes >= 2 { break }
            var out: [UInt8] = []
            for i in 0..<500 {
                RPCEncoder.request(method: "player.seek", params: ["session": "keep", "position": .double(Double((sent + i) % 200))],
                                   id: Int64(sent + i), into: &out)
            }
            try c.send(out)
            for _ in 0..<500 { _ = try c.readMessage() }
            sent += 500
        }
        // The last chunk is still being served when the kill lands.
        var last: [UInt8] = []
        for i in 0..<500 { RPCEncoder.request(method: "player.seek", params: ["session": "keep", "position": .double(Double(i % 200))], id: Int64(i), into: &last) }
        try c.send(last)
        d.stop(signal: SIGKILL)
        let bytes = try runShell("cat '\(d.directory)/state/state.json'").output
        let snap = try StateFile.parse(Array(bytes.utf8))
        #expect(snap.sessions.map(\.id) == ["keep"])
    }

    @Test func anUnwritableStateDirectoryIsAFaultNotAStop() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        try runShell("touch '\(d.directory)/file'")
        #expect(try d.start(["--state-dir", d.directory + "/file/state"]))
        let c = try d.client()
        try c.call("session.create", ["id": "x", "kind": "main"])
        var fault: String?
        for _ in 0..<100 where fault == nil {
            fault = try c.call("host.stats")["state"]?["fault"]?.stringValue
            if fault == nil { _ = d.runUntil(0.05) { false } }
        }
        #expect(fault?.contains("Not a directory") == true, "\(fault ?? "no fault")")
        #expect(try c.call("host.ping") == "pong")
        // npctl doctor lists it as a host fault with the file's path and the reason.
        let state = d.directory + "/file/state/state.json"
        let doctor = try runShell("'\(DaemonHarness.npctl)' doctor --socket '\(d.socketPath)' 2>&1; echo \"exit=$?\"")
        #expect(doctor.output.contains("host faults:"), "\(doctor.output)")
        #expect(doctor.output.contains("✗ error: the state file \(state) cannot be written: mkdir"), "\(doctor.output)")
        #expect(doctor.output.contains("Not a directory") && doctor.output.contains("exit=0"), "\(doctor.output)")
        let faults = (try c.call("host.doctor").arrayValue ?? []).filter { $0["code"]?.stringValue?.hasPrefix("state") == true }
        #expect(faults.compactMap { $0["code"]?.stringValue } == ["stateNotWritten"], "\(faults)")
        #expect(faults.first?["path"]?.stringValue == state)
        // The next change tries again.
        try c.call("session.create", ["id": "y", "kind": "main"])
        #expect(try c.call("session.list").arrayValue?.count == 2)
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
        #expect(try waitForWrite(d))
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
        #expect(try waitForWrite(d))
        d.stop(signal: signal)
        #expect(try d.start())
        let c = try d.client()
        #expect(try sessionIDs(c) == ["bg"])
        let s = try c.call("session.get", ["session": "bg"])
        #expect(s["app"] == "host", "\(s)")
        #expect(s["backgroundAudio"] == true || s["audio"]?["backgroundAudio"] == true, "\(s)")
        let p = s["players"]?.arrayValue?.first
        #expect(p?["currentItem"]?["title"] == "Radio")
        #expect(abs((p?["elapsed"]?.doubleValue ?? -1) - 12) < 0.5)
    }

    // MARK: Reload

    func writeConfig(_ path: String, sessions: [String], extra: String = "") throws {
        var text = "command_timeout_ms = 500\n" + extra
        for s in sessions { text += "[[session]]\nid = \"\(s)\"\nkind = \"main\"\n[[session.item]]\ntitle = \"\(s) song\"\nduration = 60\n" }
        try runShell("cat > '\(path)' <<'EOF'\n\(text)EOF")
    }

    func sessionIDs(_ c: ControlClient) throws -> [String] {
        (try c.call("session.list").arrayValue ?? []).compactMap { $0["id"]?.stringValue }
    }

    /// Waits (with a deadline) until the session list is `ids`.
    func waitForSessions(_ d: DaemonHarness, _ ids: [String]) throws -> Bool {
        let c = try d.client()
        for _ in 0..<100 {
            if try sessionIDs(c) == ids { return true }
            _ = d.runUntil(0.05) { false }
        }
        return false
    }

    @Test func sighupCreatesAddedSessionsClosesRemovedOnesAndKeepsABadConfigOut() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        let config = d.directory + "/c.toml"
        try writeConfig(config, sessions: ["a"])
        #expect(try d.start(["--config", config]))
        let c = try d.client()
        try c.call("session.create", ["id": "mine", "kind": "main"])
        #expect(try sessionIDs(c) == ["a", "mine"])

        try writeConfig(config, sessions: ["a", "b"])
        try d.process?.kill(SIGHUP)
        #expect(try waitForSessions(d, ["a", "mine", "b"]))

        try writeConfig(config, sessions: ["b"])
        try d.process?.kill(SIGHUP)
        #expect(try waitForSessions(d, ["mine", "b"]))

        // A syntax error on line 3: nothing changes, npctl says where.
        try runShell("printf 'command_timeout_ms = 500\\n[[session]]\\nid = \\n' > '\(config)'")
        let r = try runShell("'\(DaemonHarness.npctl)' daemon reload --socket '\(d.socketPath)' 2>&1; echo \"exit=$?\"")
        #expect(r.output.contains("exit=1"), "\(r.output)")
        #expect(r.output.contains("\(config):3:"), "\(r.output)")
        #expect(try sessionIDs(c) == ["mine", "b"])
        #expect(d.exit == nil)

        // Fixed again: npctl reports what changed.
        try writeConfig(config, sessions: ["b", "c"])
        let ok = try runShell("'\(DaemonHarness.npctl)' daemon reload --socket '\(d.socketPath)' 2>&1")
        #expect(ok.status == 0 && ok.output.contains("sessions added: c"), "\(ok.output)")
        #expect(try waitForSessions(d, ["mine", "b", "c"]))
    }

    @Test func aRestartDropsAConfigSessionTheConfigNoLongerLists() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        let config = d.directory + "/c.toml"
        try writeConfig(config, sessions: ["a", "b"])
        #expect(try d.start(["--config", config]))
        let c = try d.client()
        try c.call("player.seek", ["session": "a", "position": 30])
        try c.call("session.create", ["id": "mine", "kind": "main"])
        #expect(d.stop()?.status == 0)
        try writeConfig(config, sessions: ["a"])
        #expect(try d.start(["--config", config]))
        let c2 = try d.client()
        #expect(try sessionIDs(c2) == ["a", "mine"])
        // The kept config session has its saved state, not the config's fresh one.
        #expect(try c2.call("session.get", ["session": "a"])["players"]?.arrayValue?.first?["elapsed"]?.doubleValue == 30)
    }
}
