import Glibc
import Testing
@testable import PlayerHost

/// libwebsockets, libssl and libcrypto are loaded when the web remote is first used, not linked:
/// a daemon without `[remote]` never maps them (≈ 1.9 MiB of its resident memory at start,
/// docs/PERFORMANCE.md "Footprint"), and `npctl remote enable` loads them and serves.
@Suite(.serialized) struct RemoteLibraryLoadTests {
    /// The shared libraries `pid` maps whose file name starts with one of `prefixes`.
    static func mapped(_ pid: Int32, _ prefixes: [String]) throws -> [String] {
        let maps = try runShell("cat /proc/\(pid)/maps").output
        var found: [String] = []
        for line in maps.split(separator: "\n") {
            guard let slash = line.lastIndex(of: "/") else { continue }
            let name = String(line[line.index(after: slash)...])
            if prefixes.contains(where: { name.hasPrefix($0) }), !found.contains(name) { found.append(name) }
        }
        return found
    }

    static let libraries = ["libwebsockets", "libssl", "libcrypto"]

    @Test(.timeLimit(.minutes(2))) func loadedOnlyWhenTheRemoteIsEnabled() throws {
        let h = try DaemonHarness()
        defer { h.close() }
        // A config file of its own: `remote enable` writes remote.toml beside it.
        _ = try runShell("printf '[[session]]\\nid = \"main\"\\nkind = \"main\"\\n' > '\(h.directory)/playerhost.toml'")
        #expect(try h.start(["--config", h.directory + "/playerhost.toml"]))
        let pid = try #require(h.process?.pid)
        #expect(try Self.mapped(pid, Self.libraries) == [])

        let on = try NpctlEndToEndTests.npctl("remote enable --port \(RemoteEndToEndTests.freePort() ?? 0)", socket: h.socketPath)
        #expect(on.status == 0 && on.output.contains("listening on http://127.0.0.1:"), "\(on.output)")
        let port = try #require(RemoteEnableEndToEndTests.port(on.output))
        let loaded = try Self.mapped(pid, Self.libraries)
        #expect(Self.libraries.allSatisfy { lib in loaded.contains { $0.hasPrefix(lib) } }, "\(loaded)")
        // It serves: the page answers (401 without a paired device's cookie).
        let code = try runShell("curl -s -m 10 -o /dev/null -w '%{http_code}' 'http://127.0.0.1:\(port)/'", deadline: 30).output
        #expect(code == "401", "\(code)")
        #expect(h.stop()?.status == 0)
    }
}
