import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostHost
@testable import PlayerHostLoop
@testable import PlayerHostModel

/// Where an artwork fetch may go (issue 21): a URL given directly may point anywhere, a redirect
/// never further inward than where the fetch started.
@Suite struct ArtworkRedirectPolicyTests {
    typealias P = ArtworkRedirectPolicy

    @Test func addressesAreClassified() {
        #expect(P.reach([127, 0, 0, 1]) == .loopback && P.reach([0, 0, 0, 0]) == .loopback)
        #expect(P.reach([10, 1, 2, 3]) == .privateAddress && P.reach([172, 16, 0, 1]) == .privateAddress)
        #expect(P.reach([172, 32, 0, 1]) == .publicAddress && P.reach([192, 168, 1, 1]) == .privateAddress)
        #expect(P.reach([169, 254, 169, 254]) == .privateAddress && P.reach([100, 64, 0, 1]) == .privateAddress)
        #expect(P.reach([198, 18, 0, 1]) == .publicAddress && P.reach([93, 184, 216, 34]) == .publicAddress)
        let v6loop: [UInt8] = Array(repeating: 0, count: 15) + [1]
        #expect(P.reach(v6loop) == .loopback)
        #expect(P.reach([0xFD] + Array(repeating: 0, count: 15)) == .privateAddress)
        #expect(P.reach([0xFE, 0x80] + Array(repeating: 0, count: 14)) == .privateAddress)
        #expect(P.reach([0x20, 0x01, 0x0d, 0xb8] + Array(repeating: 0, count: 12)) == .publicAddress)
        let mapped: [UInt8] = Array(repeating: 0, count: 10) + [0xFF, 0xFF, 10, 0, 0, 1]
        #expect(P.reach(mapped) == .privateAddress, "an IPv4-mapped address is its IPv4 one")
        #expect(P.reach([1, 2, 3]) == nil)
    }

    @Test func aRedirectNeverLeadsFurtherInward() {
        let pub: [UInt8] = [198, 18, 0, 1], lan: [UInt8] = [10, 0, 0, 1], loop: [UInt8] = [127, 0, 0, 1]
        #expect(P.allows(first: lan, next: lan), "a LAN URL itself (Jellyfin)")
        #expect(!P.allows(first: pub, next: lan) && !P.allows(first: pub, next: loop))
        #expect(!P.allows(first: lan, next: loop))
        #expect(P.allows(first: lan, next: pub) && P.allows(first: loop, next: lan) && P.allows(first: pub, next: pub))
        #expect(!P.allows(first: pub, next: [1, 2]), "an unreadable address is refused")
    }
}

/// The helper's fetch in a network namespace this test makes (root and `ip netns` needed): its
/// loopback interface carries 198.18.0.1 (benchmark range, "public") and 10.0.0.1 ("private"), a
/// Python server listens on both, and the helper runs inside the namespace too — no packet
/// leaves it.
@Suite(.serialized, .enabled(if: ArtworkFixture.toolsAvailable && ArtworkNetns.available, "needs root, ip netns, ffmpeg and python3"))
struct ArtworkFetchNetnsTests {
    @Test func aRedirectFromPublicToPrivateIsRefusedAndDirectLANURLsWork() throws {
        let loop = try makeLoop()
        let dir = DaemonHarness.makeTempDirectory()
        let ns = ArtworkNetns(name: "phart\(getpid())")
        defer {
            ns.close()
            _ = try? runShell("rm -rf '\(dir)'")
        }
        try ns.create()
        try ArtworkHelperLimitsTests.makeImages(in: dir)
        let server = dir + "/server.py"
        let source = """
            import http.server, os, sys
            root = sys.argv[1]
            class H(http.server.BaseHTTPRequestHandler):
                def log_message(self, *a): pass
                def do_GET(self):
                    port = self.server.server_address[1]
                    targets = {'/to-private': '10.0.0.1', '/to-loopback': '127.0.0.1', '/to-public': '198.18.0.1'}
                    if self.path in targets:
                        self.send_response(302)
                        self.send_header('Location', 'http://%s:%d/small.png' % (targets[self.path], port))
                        self.send_header('Content-Length', '0')
                        self.end_headers(); return
                    body = open(os.path.join(root, 'small.png'), 'rb').read()
                    self.send_response(200)
                    self.send_header('Content-Type', 'image/png')
                    self.send_header('Content-Length', str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
            s = http.server.ThreadingHTTPServer(('0.0.0.0', 0), H)
            s.daemon_threads = True
            print('port', s.server_address[1], flush=True)
            s.serve_forever()
            """
        #expect(ArtworkCache.write(server, Array(source.utf8)))
        var output = ""
        // nsenter execs in place (`ip netns exec` forks and waits): the pid killed below is the
        // server's, so nothing outlives the test holding its output pipe.
        let p = try ChildProcess(loop: loop, executable: "/usr/bin/nsenter", arguments: ["--net=/run/netns/" + ns.name, "python3", server, dir],
                                 stdio: [.ignore, .pipe, .inherit], onExit: { _ in })
        defer { if p.exit == nil { try? p.kill(SIGKILL) } }
        try p.pipes[1]!.startReading(onRead: { output += String(decoding: $0, as: UTF8.self) }, onEnd: { _ in })
        try runLoop(loop) { output.contains("\n") }
        let port = try #require(output.split(separator: "\n").first.flatMap { $0.hasPrefix("port ") ? Int($0.dropFirst(5)) : nil })

        // The helper itself runs inside the namespace.
        let wrapper = dir + "/helper-in-netns"
        #expect(ArtworkCache.write(wrapper, Array("#!/bin/sh\nexec /usr/bin/nsenter --net=/run/netns/\(ns.name) \(ArtworkHelperLimitsTests.helperPath)\n".utf8)))
        #expect(chmod(wrapper, 0o755) == 0)
        let helper = ArtworkHelper(loop: loop, executable: wrapper, logger: .init(label: "test"))
        func fetch(_ url: String) throws -> String {
            let r = try ArtworkHelperLimitsTests.ask(helper, loop, ["op": "fetch", "url": .string(url), "out": .string(dir + "/out"),
                                                                   "timeoutMs": 5000])
            if case .success(.file(let info))? = r { return "\(info.width)x\(info.height)" }
            return ArtworkHelperLimitsTests.error(r)
        }
        #expect(try fetch("http://198.18.0.1:\(port)/small.png") == "4x4", "a public URL")
        #expect(try fetch("http://10.0.0.1:\(port)/small.png") == "4x4", "a LAN URL given directly keeps working")
        #expect(try fetch("http://10.0.0.1:\(port)/to-public") == "4x4", "a redirect outward")
        #expect(try fetch("http://198.18.0.1:\(port)/to-private").contains("a redirect from a public address to a private one (10.0.0.1) is refused"))
        #expect(try fetch("http://198.18.0.1:\(port)/to-loopback").contains("from a public address to a loopback one"))
        #expect(try fetch("http://10.0.0.1:\(port)/to-loopback").contains("from a private address to a loopback one"))
        try p.kill(SIGKILL)
        try runLoop(loop) { p.exit != nil }
        p.close()
        helper.close()
        closeLoop(loop)
    }
}

/// A network namespace whose own loopback interface also holds a "public" and a "private" address.
struct ArtworkNetns {
    let name: String
    static let ipPath: String? = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first { access($0, X_OK) == 0 }
    var ip: String { Self.ipPath ?? "ip" }

    /// Root, an `ip` binary, and a namespace can actually be made here.
    static let available: Bool = {
        guard geteuid() == 0, let ip = ipPath, access("/usr/bin/nsenter", X_OK) == 0 else { return false }
        let probe = "phartprobe\(getpid())"
        let r = try? runShell("\(ip) netns add \(probe) && \(ip) netns del \(probe) && echo ok")
        return r?.output.contains("ok") == true
    }()

    func create() throws {
        let r = try runShell("""
            \(ip) netns add \(name) && \(ip) -n \(name) link set lo up && \
            \(ip) -n \(name) addr add 198.18.0.1/32 dev lo && \(ip) -n \(name) addr add 10.0.0.1/32 dev lo && echo ok
            """)
        guard r.output.contains("ok") else { throw ArtworkFixture.Failed("cannot make the network namespace: \(r.output)") }
    }

    func close() { _ = try? runShell("\(ip) netns del \(name) 2>/dev/null") }
}
