import Glibc
import Testing
@testable import PlayerHost

/// The web remote against the real daemon (issue 25): the hostile protocol checks of
/// scripts/remote-probe.py (no token, traversal, pairing and its brute force, hashed tokens,
/// Origin, oversized frames, revocation within 1 s, slowloris, the connection cap), and a real
/// headless Chromium that pairs, sees the title, presses pause and sees the host pause, and is live
/// again within 1 s when its socket drops and the server comes back.
enum RemoteTools {
    static let python = access("/usr/bin/python3", X_OK) == 0
        && (try? runShell("/usr/bin/python3 -c 'import websockets'", deadline: 20).status) == 0
    static let chromium = access("/usr/bin/chromium", X_OK) == 0 && access("/usr/bin/chromedriver", X_OK) == 0
        && (try? runShell("/usr/bin/python3 -c 'import selenium'", deadline: 20).status) == 0
}

@Suite(.serialized, .enabled(if: RemoteTools.python, "needs /usr/bin/python3 with websockets"))
struct RemoteEndToEndTests {
    static var scripts: String {
        #filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(3).joined(separator: "/") + "/scripts"
    }

    /// A loopback port nobody listens on now, released at once. Picked below the kernel's
    /// ephemeral range (32768-60999 here), so no other test's outgoing connection can take it
    /// between this release and the daemon's bind.
    static func freePort() -> Int? {
        guard let (fd, port) = boundLoopbackSocket() else { return nil }
        close(fd)
        return port
    }

    /// A TCP socket bound on 127.0.0.1 to a port below the ephemeral range, and that port.
    static func boundLoopbackSocket() -> (Int32, Int)? {
        for _ in 0..<200 {
            let port = Int.random(in: 20_000..<32_000)
            // Close-on-exec: the tests run in parallel in one process, and a daemon or npctl
            // another test spawns meanwhile would otherwise inherit this socket and hold the port
            // for its whole life ("Address already in use" after the test closed it).
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { return nil }
            var a = sockaddr_in()
            a.sin_family = sa_family_t(AF_INET)
            a.sin_port = UInt16(port).bigEndian
            a.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
            let bound = withUnsafePointer(to: &a) { p in
                p.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            if bound { return (fd, port) }
            close(fd)
        }
        return nil
    }

    /// A daemon with one playing session (and `extra` config text, e.g. another session) and the
    /// remote on a free loopback port, small limits.
    func startDaemon(listen: String = "127.0.0.1:0", extra: String = "") throws -> DaemonHarness {
        let h = try DaemonHarness()
        try writeConfig(h, listen: listen, extra: extra)
        #expect(try h.start(["--config", h.directory + "/playerhost.toml"]))
        #expect(h.waitForStderr("remote: listening on"))
        return h
    }

    func writeConfig(_ h: DaemonHarness, listen: String, maxConnections: Int = 8, extra: String = "") throws {
        let config = h.directory + "/playerhost.toml"
        let text = """
            [[session]]
            id = "main"
            kind = "main"
            category = "playback"
            activate = true
            bind_defaults = true
            autoplay = true
            [[session.item]]
            title = "Magnificent"
            artist = "U2"
            duration = 324

            [remote]
            listen = "\(listen)"
            max_connections = \(maxConnections)
            max_message_kb = 1
            header_timeout_s = 2
            slow_reader_s = 2

            \(extra)
            """
        _ = try runShell("cat > '\(config)' <<'EOF'\n\(text)EOF")
    }

    @Test(.timeLimit(.minutes(5))) func hostileProtocolChecks() throws {
        let h = try startDaemon(extra: "max_connections_per_address = 4\n")
        defer { h.close() }
        let r = try runShell("/usr/bin/python3 '\(Self.scripts)/remote-probe.py' '\(h.socketPath)' '\(h.directory)/state' 2>&1", deadline: 150)
        #expect(r.status == 0, "\(r.output)")
        #expect(r.output.contains("all ok"))
        #expect(h.stop()?.status == 0)
    }

    @Test(.timeLimit(.minutes(4)), .enabled(if: RemoteTools.chromium, "needs chromium, chromedriver and python3-selenium"))
    func aBrowserPairsSeesTheTitleAndPauses() throws {
        // A fixed port, so the page can come back to it after the reload that restarts the remote.
        let port = try #require(Self.freePort())
        // A second session of the host's, paused and not active: the page offers no Promote for
        // it until it can become active.
        let pip = """
            [[session]]
            id = "pip"
            kind = "pip"
            category = "playback"
            activate = true
            bind_defaults = true
            [[session.item]]
            title = "Second"
            duration = 100

            """
        let h = try startDaemon(listen: "127.0.0.1:\(port)", extra: pip)
        defer { h.close() }
        let r = try runShell("/usr/bin/python3 '\(Self.scripts)/remote-browser.py' '\(h.socketPath)' '' '\(h.directory)/playerhost.toml' 2>&1",
                             deadline: 90)
        #expect(r.status == 0, "\(r.output)")
        #expect(r.output.contains("host paused"))
        #expect(r.output.contains("rate 1.5 reached the host") && r.output.contains("volume 0.4 reached the host"))
        #expect(r.output.contains("the host's volume reached the page"))
        #expect(r.output.contains("no Promote for a session that cannot become active"))
        #expect(r.output.contains("promoted from the page: the host's Now Playing is main again"))
        #expect(r.output.contains("lock screen shows the title and the silent loop plays") && r.output.contains("lock screen off again"))
        #expect(r.output.contains("a change arrives after the reconnect"))
        #expect(h.stop()?.status == 0)
    }

    /// Off loopback the remote is always TLS: with no certificate given, a self-signed one made
    /// once in the state dir (0600), whose fingerprint pairing shows; ALPN is http/1.1 even when a
    /// client offers h2; plain HTTP gets nothing.
    @Test(.timeLimit(.minutes(1))) func offLoopbackItIsTLSWithASelfSignedCertificate() throws {
        let h = try startDaemon(listen: "0.0.0.0:0")
        defer { h.close() }
        let c = try h.client()
        let pair = try c.call("remote.pair", ["name": "phone"])
        let fingerprint = try #require(pair["fingerprint"]?.stringValue)
        let url = try #require(pair["url"]?.stringValue)
        #expect(url.hasPrefix("https://"))
        let pairAt = try #require(url.firstRange(of: "/pair/"))
        let base = String(url[..<pairAt.lowerBound])
        let hostPort = String(base.dropFirst(8))
        let cert = h.directory + "/state/remote-cert.pem"
        let openssl = try runShell("openssl x509 -in '\(cert)' -noout -fingerprint -sha256; stat -c %a '\(cert)' '\(h.directory)/state/remote-key.pem'", deadline: 20)
        #expect(openssl.output.contains("Fingerprint=" + fingerprint), "\(openssl.output) vs \(fingerprint)")
        #expect(openssl.output.contains("600\n600"))
        let alpn = try runShell("echo | openssl s_client -connect '\(hostPort)' -alpn h2,http/1.1 2>/dev/null | grep 'ALPN protocol'", deadline: 20)
        #expect(alpn.output.contains("http/1.1"), "\(alpn.output)")
        let https = try runShell("curl -sk -o /dev/null -w '%{http_code}' '\(base)/'", deadline: 20)
        #expect(https.output == "401")
        let paired = try runShell("curl -sk -D - -o /dev/null '\(url)' | grep -i set-cookie", deadline: 20)
        #expect(paired.output.contains("; Secure"), "\(paired.output)")
        let plain = try runShell("curl -s -m 5 -o /dev/null -w '%{http_code}' 'http://\(hostPort)/'", deadline: 20)
        #expect(plain.output != "401" && plain.output != "200", "plain HTTP answered \(plain.output)")
        c.close()
        #expect(h.stop()?.status == 0)
    }

    /// A reload with a changed `[remote]` restarts the server with it; paired devices stay paired;
    /// a reload without `listen` stops it.
    @Test(.timeLimit(.minutes(1))) func aReloadAppliesTheRemoteTable() throws {
        let h = try startDaemon()
        defer { h.close() }
        let c = try h.client()
        let url = try #require(try c.call("remote.pair", ["name": "phone"])["url"]?.stringValue)
        let jar = h.directory + "/jar"
        _ = try runShell("curl -s -c '\(jar)' -o /dev/null '\(url)'", deadline: 20)
        try writeConfig(h, listen: "127.0.0.1:0", maxConnections: 9)
        _ = try c.call("host.reload")
        var status: JSON = .null
        #expect(h.runUntil(10) {
            status = (try? c.call("remote.status")) ?? .null
            return status["maxConnections"] == 9 && status["listening"] == true
        }, "\(status)")
        let base = try #require(status["url"]?.stringValue)
        let page = try runShell("curl -s -b '\(jar)' -o /dev/null -w '%{http_code}' '\(base)/'", deadline: 20)
        #expect(page.output == "200", "the paired device after the reload: \(page.output)")
        _ = try runShell("printf '[[session]]\\nid = \"main\"\\nkind = \"main\"\\n' > '\(h.directory)/playerhost.toml'")
        _ = try c.call("host.reload")
        #expect(h.runUntil(10) { (try? c.call("remote.status"))?["listening"] == false })
        let gone = try runShell("curl -s -m 3 -o /dev/null -w '%{http_code}' '\(base)/'", deadline: 20)
        #expect(gone.output == "000", "still answering after [remote] went: \(gone.output)")
        c.close()
        #expect(h.stop()?.status == 0)
    }
}
