import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient
@testable import PlayerHostHost
@testable import PlayerHostRPC

/// Issue 12 against the real binary, when things go wrong: a bad state file is set aside and the
/// daemon serves, `kill -9` in the middle of a burst of changes leaves a file that parses, an
/// unwritable state directory is a fault and not a stop, and SIGHUP or `npctl daemon reload`
/// applies the config file's sessions while a bad file changes nothing. (What the file keeps
/// across a restart: `RestartEndToEndTests`.) Each test has its own daemon and directory.
@Suite struct RestartRecoveryEndToEndTests {
    @Test(arguments: ["half", "garbage", "future"])
    func aBadStateFileIsSetAsideAndTheDaemonServes(_ kind: String) throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start())
        try RestartSupport.makeKeep(try d.client())
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
        try RestartSupport.makeKeep(c)
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

    // MARK: Reload

    /// Waits (with a deadline) until the session list is `ids`.
    func waitForSessions(_ d: DaemonHarness, _ ids: [String]) throws -> Bool {
        let c = try d.client()
        for _ in 0..<100 {
            if try RestartSupport.sessionIDs(c) == ids { return true }
            _ = d.runUntil(0.05) { false }
        }
        return false
    }

    @Test func sighupCreatesAddedSessionsClosesRemovedOnesAndKeepsABadConfigOut() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        let config = d.directory + "/c.toml"
        try RestartSupport.writeConfig(config, sessions: ["a"])
        #expect(try d.start(["--config", config]))
        let c = try d.client()
        try c.call("session.create", ["id": "mine", "kind": "main"])
        #expect(try RestartSupport.sessionIDs(c) == ["a", "mine"])

        try RestartSupport.writeConfig(config, sessions: ["a", "b"])
        try d.process?.kill(SIGHUP)
        #expect(try waitForSessions(d, ["a", "mine", "b"]))

        try RestartSupport.writeConfig(config, sessions: ["b"])
        try d.process?.kill(SIGHUP)
        #expect(try waitForSessions(d, ["mine", "b"]))

        // A syntax error on line 3: nothing changes, npctl says where.
        try runShell("printf 'command_timeout_ms = 500\\n[[session]]\\nid = \\n' > '\(config)'")
        let r = try runShell("'\(DaemonHarness.npctl)' daemon reload --socket '\(d.socketPath)' 2>&1; echo \"exit=$?\"")
        #expect(r.output.contains("exit=1"), "\(r.output)")
        #expect(r.output.contains("\(config):3:"), "\(r.output)")
        #expect(try RestartSupport.sessionIDs(c) == ["mine", "b"])
        #expect(d.exit == nil)

        // Fixed again: npctl reports what changed.
        try RestartSupport.writeConfig(config, sessions: ["b", "c"])
        let ok = try runShell("'\(DaemonHarness.npctl)' daemon reload --socket '\(d.socketPath)' 2>&1")
        #expect(ok.status == 0 && ok.output.contains("sessions added: c"), "\(ok.output)")
        #expect(try waitForSessions(d, ["mine", "b", "c"]))
    }
}
