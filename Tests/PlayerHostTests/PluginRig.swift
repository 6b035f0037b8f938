import Glibc
import Testing
@testable import PlayerHost

/// A daemon with a private plugin directory and config, for `PluginProcessEndToEndTests`; the
/// Swift example plugin built once per run; small file helpers.
final class PluginRig {
    let daemon: DaemonHarness
    let pluginDir: String
    private var closed = false

    /// `setUp` fills the plugin directory (given its path) and returns extra config lines.
    init(config: String = "", setUp: (String) throws -> String = { _ in "" }) throws {
        daemon = try DaemonHarness()
        pluginDir = daemon.directory + "/plugins"
        #expect(mkdir(pluginDir, 0o700) == 0)
        let extra = try setUp(pluginDir)
        let configPath = daemon.directory + "/playerhost.toml"
        try writeFile(configPath, "plugin_dir = \"\(pluginDir)\"\n" + config + "\n" + extra)
        var env = SocketLocation.currentEnvironment()
        env["XDG_CONFIG_HOME"] = daemon.directory + "/xdg"  // never the user's real plugins
        guard try daemon.start(["--config", configPath], environment: env) else {
            let text = daemon.stderrText
            daemon.close()
            throw Failed("playerhostd did not start: \(text)")
        }
    }

    /// Stops the daemon the way a user would (SIGTERM: it stops its plugins first), then
    /// cleans up. Returns the seconds the stop took.
    @discardableResult
    func close() -> Double {
        guard !closed else { return 0 }
        closed = true
        let start = EventLoop.hrtime()
        daemon.stop(signal: SIGTERM)
        let took = Double(EventLoop.hrtime() - start) / 1e9
        daemon.close()
        return took
    }

    /// The pids of the supervised plugins now.
    func pids(_ client: ControlClient) throws -> [String: Int32] {
        var out: [String: Int32] = [:]
        for p in try client.call("plugin.list").arrayValue ?? [] {
            if let name = p["name"]?.stringValue, let pid = p["pid"]?.intValue { out[name] = Int32(pid) }
        }
        return out
    }

    func npctl(_ args: String) throws -> (status: Int64, output: String) {
        try NpctlEndToEndTests.npctl(args, socket: daemon.socketPath)
    }

    func json(_ args: String) throws -> JSON {
        let r = try npctl(args)
        #expect(r.status == 0, "npctl \(args): \(r.output)")
        return try JSONParser.parse(r.output)
    }

    /// `plugin.list`'s entry for `name`.
    func plugin(_ name: String, _ client: ControlClient) throws -> JSON? {
        try client.call("plugin.list").arrayValue?.first { $0["name"]?.stringValue == name }
    }

    /// Polls `check` every `interval` ms on the harness's loop (so the daemon's stderr keeps
    /// draining) until it is true or `seconds` pass. Returns the last result.
    @discardableResult
    func poll(_ seconds: Double, every interval: UInt64 = 50, _ check: () throws -> Bool) throws -> Bool {
        if try check() { return true }
        let tick = try Timer(loop: daemon.loop)
        var due = false
        tick.start(after: interval, repeat: interval) { due = true }
        defer { tick.close() }
        let deadline = Double(EventLoop.hrtime()) / 1e9 + seconds
        while Double(EventLoop.hrtime()) / 1e9 < deadline {
            daemon.loop.run(.once)
            if due {
                due = false
                if try check() { return true }
            }
        }
        return false
    }

    /// Waits (on `sessions` events) until every id in `ids` was created. `client` must be
    /// subscribed to `sessions`.
    func waitForSessions(_ ids: Set<String>, _ client: ControlClient, deadline: Double = 60) throws {
        var missing = ids
        let end = Double(EventLoop.hrtime()) / 1e9 + deadline
        while !missing.isEmpty {
            let left = end - Double(EventLoop.hrtime()) / 1e9
            guard left > 0 else { throw Failed("sessions \(missing.sorted()) never appeared: \(daemon.stderrText)") }
            let e = try client.nextNotification(timeout: left)
            if e["params"]?["type"] == "sessions" {
                for s in e["params"]?["sessions"]?.arrayValue ?? [] { if let id = s["id"]?.stringValue { missing.remove(id) } }
            } else if e["params"]?["type"] == "sessionCreated", let id = e["params"]?["session"]?.stringValue {
                missing.remove(id)
            }
        }
    }

    /// Waits for one `sessions` event of `type` about `session`.
    func waitForEvent(_ type: String, session: String, _ client: ControlClient, deadline: Double = 30) throws {
        let end = Double(EventLoop.hrtime()) / 1e9 + deadline
        while true {
            let left = end - Double(EventLoop.hrtime()) / 1e9
            guard left > 0 else { throw Failed("no \(type) for \(session): \(daemon.stderrText)") }
            let e = try client.nextNotification(timeout: left)
            if e["params"]?["type"] == .string(type), e["params"]?["session"] == .string(session) { return }
        }
    }

    /// Polls until `commands` are enabled and targeted on `session` (a plugin's set-up
    /// continues after its session.create).
    func waitUntilTargeted(_ session: String, _ commands: [String], _ client: ControlClient) throws {
        let ok = try poll(30) {
            guard let s = try? client.call("session.get", ["session": .string(session)]) else { return false }
            let list = s["commands"]?.arrayValue ?? []
            return commands.allSatisfy { c in
                list.contains { $0["command"] == .string(c) && $0["isEnabled"] == true && !($0["targets"]?.arrayValue ?? []).isEmpty }
            }
            // (Not audio active: the examples activate right before they play, issue 22.)
        }
        #expect(ok, "\(session): \(commands) never became enabled and targeted")
    }

    static let examples = DaemonHarness.packageRoot + "/examples"

    struct Failed: Error, CustomStringConvertible { let description: String; init(_ d: String) { description = d } }

    /// Builds `examples/swift-plugin` once per test run (its own .build is reused across runs)
    /// and returns the executable's path.
    static let swiftPlugin: Result<String, Failed> = {
        let pkg = "'\(examples)/swift-plugin'"
        guard var build = try? runShell("timeout 1500 swift build --package-path \(pkg) 2>&1", deadline: 1510) else {
            return .failure(Failed("cannot run swift build"))
        }
        if build.status != 0,
           let again = try? runShell("timeout 1500 swift build --package-path \(pkg) --disable-build-manifest-caching 2>&1", deadline: 1510) {
            // The reused .build, after source files were added to the package it depends on,
            // fails with "cannot find type …": SwiftPM's cached build manifest still lists the
            // old files (a plain second run failed too). Without the cache it is planned afresh.
            build = again
        }
        guard build.status == 0 else {
            return .failure(Failed("swift build of examples/swift-plugin failed: \(build.output.suffix(3000))"))
        }
        guard let bin = try? runShell("swift build --package-path \(pkg) --show-bin-path").output
            .split(separator: "\n").last.map(String.init) else {
            return .failure(Failed("swift build --show-bin-path printed nothing"))
        }
        return .success(bin + "/swift-clock-plugin")
    }()
}

/// Writes `text` to `path` with `mode`.
func writeFile(_ path: String, _ text: String, mode: mode_t = 0o644) throws {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode)
    guard fd >= 0 else { throw PluginRig.Failed("open \(path): \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    let bytes = Array(text.utf8)
    var off = 0
    while off < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + off, bytes.count - off) }
        guard n > 0 else { throw PluginRig.Failed("write \(path)") }
        off += n
    }
    fchmod(fd, mode)
}

/// Whether `pid` is a live process (a zombie waiting to be reaped counts as gone).
func isRunning(_ pid: Int32) -> Bool {
    guard let stat = readPluginFile("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return false }
    return !stat[close...].hasPrefix(") Z")
}

/// The whole file, or nil if it does not exist.
func readPluginFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var out: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, 65536) }
        if n <= 0 { break }
        out += buf[0..<n]
    }
    return String(decoding: out, as: UTF8.self)
}
