import Glibc
import Testing
@testable import PlayerHost

/// What the end-to-end suites of the daemon share (`DaemonEndToEndTests`,
/// `SocketTransportEndToEndTests`, `SocketTransportLimitsEndToEndTests`): a daemon started on a
/// config file of its own, a listening socket made by "another program", files and shell quoting.
extension DaemonHarness {
    /// A started daemon reading `config` (written to `<directory>/c.toml`); `arguments` go on its
    /// command line after `--config`.
    static func started(config: String = "command_timeout_ms = 200\n", _ arguments: [String] = [],
                        sourceLocation: SourceLocation = #_sourceLocation) throws -> DaemonHarness {
        let d = try DaemonHarness()
        try writeText(config, to: d.configPath)
        #expect(try d.start(["--config", d.configPath] + arguments), sourceLocation: sourceLocation)
        return d
    }

    /// Where `started(config:)` wrote the config (a test rewrites it before `host.reload`).
    var configPath: String { directory + "/c.toml" }

    /// `host.stats`'s `server` part: the control server's counters.
    static func serverStats(_ c: ControlClient) throws -> JSON { try c.call("host.stats")["server"] ?? .null }
}

/// Writes `text` to `path` (created or truncated).
func writeText(_ text: String, to path: String) throws {
    guard let f = fopen(path, "w") else { throw RawPeer.Failure(description: "cannot write \(path)") }
    fputs(text, f)
    fclose(f)
}

/// A listening Unix socket at `path` made by "another program" (this test process); the caller closes it.
func listenOnUnixSocket(at path: String) -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    var addr = sockaddr_un()
    addr.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &addr.sun_path) { dst in
        for (i, b) in path.utf8.enumerated() { dst[i] = b }
    }
    let rc = withUnsafePointer(to: &addr) { p in
        p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    #expect(rc == 0)
    #expect(Glibc.listen(fd, 4) == 0)
    return fd
}

/// The inode at `path` (not following a link), nil when nothing is there.
func inodeNumber(_ path: String) -> UInt64? {
    var st = stat()
    return lstat(path, &st) == 0 ? UInt64(st.st_ino) : nil
}

extension String {
    /// Escapes single quotes for a POSIX shell single-quoted string.
    func replacingQuote() -> String {
        var out = ""
        for ch in self { out += ch == "'" ? "'\\''" : String(ch) }
        return out
    }
}
