import Glibc
import Testing
@testable import PlayerHost

/// Issue 12, item 6's log level against the real binary: a reload (`host.reload`, as SIGHUP and
/// `npctl daemon reload` do) with another `log_level` changes what the daemon writes to stderr
/// at once; `--log-level` on the command line wins over the config, at start and on reload.
@Suite(.serialized) struct LogLevelReloadTests {
    func writeConfig(_ path: String, level: String?) throws {
        let text = level.map { "log_level = \"\($0)\"\n" } ?? "command_timeout_ms = 500\n"
        try runShell("cat > '\(path)' <<'EOF'\n\(text)EOF")
    }

    /// Connects, pings and disconnects a client, and waits (with a deadline) until the daemon
    /// has seen it go: its debug line "client N … disconnected" is written, or not, by then.
    func connectAndLeave(_ d: DaemonHarness, watcher: ControlClient) throws {
        let before = try watcher.call("host.stats")["connectionsAccepted"]?.intValue ?? 0
        do {
            let c = try d.client()
            #expect(try c.call("host.ping") == "pong")
        }
        var gone = false
        for _ in 0..<200 where !gone {
            let st = try watcher.call("host.stats")
            gone = (st["connectionsAccepted"]?.intValue ?? 0) > before && st["connections"]?.intValue == 1
            if !gone { _ = d.runUntil(0.05) { false } }
        }
        #expect(gone)
    }

    /// What the daemon wrote to stderr after `mark`, up to a marker line it is made to write now
    /// (a reload refused, at error level): everything logged before it is in the text.
    func stderrUpToMarker(_ d: DaemonHarness, _ c: ControlClient, config: String, from mark: Int) throws -> String {
        try runShell("printf 'log_level = \\n' > '\(config)'")
        #expect(throws: ClientError.self) { try c.call("host.reload") }
        #expect(d.waitForStderr("not reloading"))
        return String(d.stderrText.dropFirst(mark))
    }

    @Test func aReloadedLogLevelAppliesAtOnce() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        let config = d.directory + "/c.toml"
        try writeConfig(config, level: "warning")
        #expect(try d.start(["--config", config]))
        let c = try d.client()
        try connectAndLeave(d, watcher: c)
        #expect(!(try stderrUpToMarker(d, c, config: config, from: 0)).contains("disconnected"))

        try writeConfig(config, level: "debug")
        let r = try c.call("host.reload")
        #expect(r["settingsChanged"]?.arrayValue?.contains("log_level") == true)
        try connectAndLeave(d, watcher: c)
        #expect(d.waitForStderr("disconnected"), "\(d.stderrText)")

        // Back to warning: the client leaving now writes nothing, so the one line is still the
        // one from the debug period.
        try writeConfig(config, level: "warning")
        try c.call("host.reload")
        try connectAndLeave(d, watcher: c)
        let all = try stderrUpToMarker(d, c, config: config, from: 0)
        #expect(all.ranges(of: "disconnected").count == 1, "\(all)")
        #expect(d.exit == nil)
    }

    @Test func theCommandLineWinsOverTheConfig() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        let config = d.directory + "/c.toml"
        try writeConfig(config, level: "debug")
        #expect(try d.start(["--config", config, "--log-level", "warning"]))
        let c = try d.client()
        try connectAndLeave(d, watcher: c)
        try writeConfig(config, level: "trace")
        try c.call("host.reload")
        try connectAndLeave(d, watcher: c)
        let all = try stderrUpToMarker(d, c, config: config, from: 0)
        #expect(!all.contains("disconnected"), "\(all)")
    }

    @Test func anUnknownLevelIsAConfigErrorWithItsName() throws {
        #expect(throws: ConfigError.self) { try HostConfig.parse("log_level = \"loud\"\n") }
        #expect(try HostConfig.parse("log_level = \"debug\"\n").effectiveLogLevel == .debug)
        #expect(try HostConfig.parse("").effectiveLogLevel == .info)
    }
}
