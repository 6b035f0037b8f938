import Glibc
import Testing
@testable import PlayerHost

/// `npctl remote enable [--lan] [--port N]` and `npctl remote disable` against the real daemon
/// started without `[remote]`: no restart, the pairing URL works, repeats and races are
/// harmless, and the user's config file is never touched.
@Suite(.serialized) struct RemoteEnableEndToEndTests {
    static let userConfig = "# my own comments\n[[session]]\nid = \"main\"\nkind = \"main\"\n"

    func start() throws -> DaemonHarness {
        let h = try DaemonHarness()
        _ = try runShell("printf '%s' '\(Self.userConfig)' > '\(h.directory)/playerhost.toml'")
        #expect(try h.start(["--config", h.directory + "/playerhost.toml"]))
        return h
    }

    func npctl(_ h: DaemonHarness, _ args: String) throws -> (status: Int64, output: String) {
        try NpctlEndToEndTests.npctl(args, socket: h.socketPath)
    }

    /// The port in `listening on http://127.0.0.1:PORT`.
    static func port(_ output: String) -> Int? {
        guard let r = output.range(of: "://") else { return nil }
        let rest = output[r.upperBound...]
        guard let colon = rest.firstIndex(of: ":") else { return nil }
        return Int(rest[rest.index(after: colon)...].prefix { $0.isNumber })
    }

    @Test(.timeLimit(.minutes(2))) func enableThenPairWorksWithoutARestart() throws {
        let h = try start()
        defer { h.close() }
        let off = try npctl(h, "remote")
        #expect(off.status == 0 && off.output.contains("off"), "\(off.output)")
        #expect(try npctl(h, "remote pair").output.contains("npctl remote enable"))
        // Disabling what is off is fine, and says it is off.
        let d0 = try npctl(h, "remote disable")
        #expect(d0.status == 0 && d0.output.hasPrefix("off"), "\(d0.output)")

        let clock = ContinuousClock(), started = clock.now
        let on = try npctl(h, "remote enable --port \(RemoteEndToEndTests.freePort() ?? 0)")
        #expect(on.status == 0, "\(on.output)")
        #expect(on.output.contains("listening on http://127.0.0.1:"), "\(on.output)")
        #expect(on.output.contains("remote.toml"), "\(on.output)")
        let port = try #require(Self.port(on.output))
        print("enable → listening (npctl's whole run): \(clock.now - started)")
        // Enabling again changes nothing and says the same.
        let again = try npctl(h, "remote enable --port \(port)")
        #expect(again.status == 0 && Self.port(again.output) == port, "\(again.output)")

        // Pair: the URL the daemon prints gives a token cookie and leads to the page.
        let pair = try npctl(h, "--json remote pair --name phone")
        let url = try #require(JSONParser.parse(Array(pair.output.utf8))["url"]?.stringValue)
        #expect(url.hasPrefix("http://127.0.0.1:\(port)/pair/"))
        let r = try runShell("curl -s -m 10 -o /dev/null -D - -c '\(h.directory)/jar' '\(url)' && curl -s -m 10 -b '\(h.directory)/jar' -o /dev/null -w '%{http_code}' 'http://127.0.0.1:\(port)/'", deadline: 30)
        #expect(r.output.contains("303") && r.output.lowercased().contains("set-cookie: ph_remote=") && r.output.hasSuffix("200"), "\(r.output)")
        #expect(try npctl(h, "remote devices").output.contains("phone"))

        // Off again: the port is closed, the status says where that came from.
        let d = try npctl(h, "remote disable")
        #expect(d.status == 0 && d.output.hasPrefix("off (from \(h.directory)/remote.toml)"), "\(d.output)")
        #expect(try runShell("curl -s -m 5 -o /dev/null -w '%{http_code}' 'http://127.0.0.1:\(port)/'").output == "000")
        #expect(try runShell("cat '\(h.directory)/remote.toml'").output.contains("enabled = false"))
        // The user's file and its comments are untouched.
        #expect(try runShell("cat '\(h.directory)/playerhost.toml'").output == Self.userConfig)
        #expect(h.stop()?.status == 0)
    }

    /// Four enables at once, each with its own port: one at a time in the daemon, each answered
    /// with its own outcome, and the last one written is the one listening.
    @Test(.timeLimit(.minutes(2))) func concurrentEnablesAreServedInTurn() throws {
        let h = try start()
        defer { h.close() }
        let ports = (0..<4).compactMap { _ in RemoteEndToEndTests.freePort() }
        let commands = ports.map { "PLAYERHOST_SOCKET='\(h.socketPath)' timeout 30 '\(DaemonHarness.npctl)' remote enable --port \($0) > '\(h.directory)/out.\($0)' 2>&1 &" }
        #expect(try runShell(commands.joined(separator: "\n") + "\nwait", deadline: 60).status == 0)
        for p in ports {
            let out = try runShell("cat '\(h.directory)/out.\(p)'").output
            #expect(out.contains("listening on http://127.0.0.1:\(p)"), "\(out)")
        }
        let file = try runShell("cat '\(h.directory)/remote.toml'").output
        let status = try npctl(h, "remote")
        let listening = try #require(Self.port(status.output))
        #expect(file.contains("127.0.0.1:\(listening)"), "\(file) vs \(status.output)")
        #expect(try runShell("curl -s -m 5 -o /dev/null -w '%{http_code}' 'http://127.0.0.1:\(listening)/'").output == "401")
        #expect(h.stop()?.status == 0)
    }

    /// `--lan`: every address, with TLS and a self-signed certificate whose fingerprint is shown
    /// (reached here on loopback only).
    @Test(.timeLimit(.minutes(2))) func lanIsTLSWithAFingerprint() throws {
        let h = try start()
        defer { h.close() }
        let on = try npctl(h, "remote enable --lan --port \(RemoteEndToEndTests.freePort() ?? 0)")
        #expect(on.status == 0 && on.output.contains("listening on https://"), "\(on.output)")
        #expect(on.output.contains("certificate SHA-256"), "\(on.output)")
        #expect(try runShell("cat '\(h.directory)/remote.toml'").output.contains("listen = \"0.0.0.0:"))
        let port = try #require(Self.port(on.output))
        let r = try runShell("curl -sk -m 10 -o /dev/null -w '%{http_code}' 'https://127.0.0.1:\(port)/'", deadline: 20)
        #expect(r.output == "401", "\(r.output)")
        #expect(h.stop()?.status == 0)
    }

    /// A folder the daemon must not write in: enable fails with the reason and the remote stays off.
    @Test(.timeLimit(.minutes(1))) func anUnsafeConfigFolderFailsWithTheReason() throws {
        let h = try start()
        defer { h.close() }
        #expect(chmod(h.directory, 0o777) == 0)
        let r = try npctl(h, "remote enable")
        #expect(r.status != 0 && r.output.contains("others can write"), "\(r.output)")
        #expect(try npctl(h, "remote").output.hasPrefix("off"))
        #expect(h.stop()?.status == 0)
    }

    /// A port someone else holds: enable says so and exits non-zero, `npctl remote` and
    /// `npctl doctor` show the error and where the setting came from.
    @Test(.timeLimit(.minutes(1))) func aTakenPortIsReportedWithTheSource() throws {
        let h = try start()
        defer { h.close() }
        // Below the ephemeral range: once freed, no other test's connection can take it.
        let (fd, port) = try #require(RemoteEndToEndTests.boundLoopbackSocket())
        #expect(listen(fd, 1) == 0)
        let r = try npctl(h, "remote enable --port \(port)")
        #expect(r.status != 0 && r.output.contains("does not listen") && r.output.contains("\(port)"), "\(r.output)")
        let doctor = try npctl(h, "doctor").output
        #expect(doctor.contains("remote: ") && doctor.contains("from \(h.directory)/remote.toml") && doctor.contains("last error"), "\(doctor)")
        // Freed: the same enable tries again (the setting did not change, the port did).
        close(fd)
        let again = try npctl(h, "remote enable --port \(port)")
        #expect(again.status == 0 && again.output.contains("listening on http://127.0.0.1:\(port)"), "\(again.output)")
        #expect(h.stop()?.status == 0)
    }
}
