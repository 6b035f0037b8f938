import Glibc
import Testing
@testable import PlayerHost

/// A private `dbus-daemon --session` at a fixed address in a temporary directory, and the real
/// daemon on it with one playing session "main" (A, B, C); `playerctl`, `gdbus` and
/// `dbus-monitor` run against that bus only, each under `timeout`.
final class MPRISFixture {
    let harness: DaemonHarness
    var bus: ChildProcess?
    private(set) var busExited = false
    var address: String { "unix:path=\(harness.directory)/bus" }

    init(startDaemon: Bool = true, config: String = "") throws {
        harness = try DaemonHarness()
        try startBus()
        guard startDaemon else { return }
        let path = harness.directory + "/test.toml"
        let toml = """
            \(config)
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
            album = "First"
            duration = 100
            [[session.item]]
            title = "Beta"
            artist = "Bob"
            duration = 200
            [[session.item]]
            title = "Gamma"
            artist = "Cy"
            duration = 300
            """
        _ = try runShell("cat > '\(path)' <<'EOF'\n\(toml)\nEOF")
        #expect(try harness.start(["--config", path], environment: environment))
    }

    /// The daemon's environment: only the private bus, nothing of the caller's desktop.
    var environment: [String: String] {
        ["PATH": "/usr/bin:/bin", "HOME": harness.directory, "XDG_CONFIG_HOME": harness.directory,
         "XDG_RUNTIME_DIR": harness.directory, "DBUS_SESSION_BUS_ADDRESS": address]
    }

    /// Starts dbus-daemon and waits (deadline 10 s) until it printed its address.
    func startBus() throws {
        _ = try runShell("rm -f '\(harness.directory)/bus'")
        var printed = ""
        busExited = false
        let p = try ChildProcess(
            loop: harness.loop, executable: "/usr/bin/dbus-daemon",
            arguments: ["--session", "--nofork", "--nopidfile", "--address=\(address)", "--print-address=1"],
            // Its stderr only says it may not raise its fd limit as non-root.
            stdio: [.ignore, .pipe, .ignore], onExit: { [unowned self] _ in self.busExited = true })
        try p.pipes[1]!.startReading(onRead: { printed += String(decoding: $0, as: UTF8.self) }, onEnd: { _ in })
        bus = p
        #expect(harness.runUntil(10) { printed.contains("\n") || self.busExited }, "dbus-daemon started")
    }

    func killBus() {
        guard let p = bus else { return }
        try? p.kill(SIGKILL)
        harness.runUntil(10) { self.busExited }
        Self.closeHandles(p)
        bus = nil
    }

    /// A child's process handle and pipes, closed (the harness checks the loop for leftovers).
    static func closeHandles(_ p: ChildProcess) {
        for pipe in p.pipes { pipe?.close() }
        p.close()
    }

    /// Runs `command` with the private bus in its environment, bounded by `timeout`.
    @discardableResult
    func sh(_ command: String, timeout: Int = 10) throws -> String {
        try runShell("DBUS_SESSION_BUS_ADDRESS='\(address)' timeout \(timeout) sh -c '\(command.replacingOccurrences(of: "'", with: "'\\''"))' 2>&1").output.trimmed
    }

    @discardableResult
    func playerctl(_ args: String) throws -> String { try sh("playerctl -p playerhost \(args)") }

    /// Waits (event, not polling) until the MPRIS name is on the bus.
    func waitForName(timeout: Int = 15) throws -> Bool {
        let r = try runShell("DBUS_SESSION_BUS_ADDRESS='\(address)' gdbus wait --session --timeout \(timeout) \(MPRISBridge.busName) 2>&1")
        return r.status == 0
    }

    /// A property of the Player interface, as gdbus prints it.
    func property(_ name: String) throws -> String {
        try sh("gdbus call --session --dest \(MPRISBridge.busName) --object-path /org/mpris/MediaPlayer2 --method org.freedesktop.DBus.Properties.Get org.mpris.MediaPlayer2.Player \(name)")
    }

    /// Stops the daemon, then the bus, then closes the loop (asserting no handle is left).
    /// Starts `dbus-monitor` on the private bus for `rules` and waits until it is watching
    /// (it prints the NameLost of becoming a monitor).
    func monitor(_ rules: [String]) throws -> BusMonitor {
        let m = BusMonitor()
        let p = try ChildProcess(
            loop: harness.loop, executable: "/usr/bin/dbus-monitor",
            arguments: ["--address", address] + rules + ["type='signal',member='NameLost'"],
            stdio: [.ignore, .pipe, .inherit], onExit: { _ in m.exited = true })
        try p.pipes[1]!.startReading(onRead: { m.output += String(decoding: $0, as: UTF8.self) }, onEnd: { _ in })
        m.process = p
        #expect(harness.runUntil(10) { m.output.contains("NameLost") || m.exited }, "dbus-monitor ready")
        return m
    }

    /// Runs the loop until the monitor's output satisfies `done`, or the deadline.
    @discardableResult
    func wait(_ m: BusMonitor, _ seconds: Double = 10, until done: @escaping (String) -> Bool) -> Bool {
        harness.runUntil(seconds) { done(m.output) }
    }

    func stop(_ m: BusMonitor) {
        guard let p = m.process else { return }
        try? p.kill(SIGTERM)
        harness.runUntil(10) { m.exited }
        Self.closeHandles(p)
        m.process = nil
    }

    func close() {
        if harness.process != nil { harness.stop() }
        killBus()
        harness.close()
    }
}

/// A running dbus-monitor and what it printed so far.
final class BusMonitor {
    var process: ChildProcess?
    var output = ""
    var exited = false

    /// How often `member=NAME` appears.
    func count(_ member: String) -> Int {
        output.ranges(of: "member=\(member)").count
    }
}

extension String {
    /// Without leading and trailing blanks and newlines.
    var trimmed: String {
        var s = Substring(self)
        while let f = s.first, " \n\t\r".contains(f) { s = s.dropFirst() }
        while let l = s.last, " \n\t\r".contains(l) { s = s.dropLast() }
        return String(s)
    }
}
