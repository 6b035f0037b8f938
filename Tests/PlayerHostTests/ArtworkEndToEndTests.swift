import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient
@testable import PlayerHostHost
@testable import PlayerHostLoop
@testable import PlayerHostModel
@testable import Plugins

/// The real daemon resolving artwork from real files made here: a 1000×1000 JPEG cover (ffmpeg),
/// an mp3 carrying it, and a local HTTP server (a Python script written here) that can be slow,
/// answer garbage, too much, 404, or never.
final class ArtworkFixture {
    static let toolsAvailable: Bool = {
        let path = getenv("PATH").map { String(cString: $0) }
        return MPVOptions.locate("ffmpeg", path: path) != nil && MPVOptions.locate("python3", path: path) != nil
    }()
    static let mpvAvailable: Bool = MPVOptions.locate("mpv", path: getenv("PATH").map { String(cString: $0) }) != nil

    let daemon: DaemonHarness
    var client: ControlClient
    let cover: String
    let song: String
    private var server: ChildProcess?
    private var serverOutput = ""
    private(set) var port = 0

    static let serverScript = """
        import http.server, os, sys, time
        root = sys.argv[1]
        class H(http.server.BaseHTTPRequestHandler):
            def log_message(self, *a): pass
            def do_GET(self):
                p = self.path
                print('got', p, flush=True)
                try:
                    if p.startswith('/slow/'):
                        time.sleep(2); p = p[5:]
                    if p == '/hang':
                        time.sleep(60); return
                    if p == '/404':
                        self.send_error(404); return
                    body = b'\\xff' * (1 << 20) if p == '/big' else open(os.path.join(root, p.lstrip('/')), 'rb').read()
                    self.send_response(200)
                    self.send_header('Content-Type', 'image/jpeg')
                    self.send_header('Content-Length', str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except Exception:
                    pass
                finally:
                    print('done', self.path, flush=True)
        s = http.server.ThreadingHTTPServer(('127.0.0.1', 0), H)
        s.daemon_threads = True
        print('port', s.server_address[1], flush=True)
        s.serve_forever()
        """

    struct Failed: Error, CustomStringConvertible {
        let description: String
        init(_ d: String) { description = d }
    }

    init() throws {
        daemon = try DaemonHarness()
        let d = daemon.directory
        cover = d + "/cover.jpg"
        song = d + "/song.mp3"
        let made = try runShell("""
            cd '\(d)' && ffmpeg -loglevel error -f lavfi -i 'testsrc=s=1000x1000' -frames:v 1 cover.jpg && \
            ffmpeg -loglevel error -f lavfi -i 'sine=frequency=440:duration=20' -i cover.jpg -map 0 -map 1 \
              -c:a libmp3lame -c:v copy -disposition:v attached_pic -metadata title='Covered' song.mp3 && \
            head -c 4000 /dev/urandom > garbage.jpg && \
            printf 'artwork_timeout_ms = 1500\\nartwork_max_kb = 256\\n' > config.toml && echo ok
            """)
        guard made.output.contains("ok") else {
            daemon.close()
            throw Failed("ffmpeg could not make the test files")
        }
        do { try Self.start(daemon) } catch { daemon.close(); throw error }
        client = try daemon.client()
    }

    /// The daemon with its cache in the test's directory.
    static func start(_ daemon: DaemonHarness) throws {
        var env = SocketLocation.currentEnvironment()
        env["XDG_CACHE_HOME"] = daemon.directory + "/cache"
        guard try daemon.start(["--config", daemon.directory + "/config.toml"], environment: env) else {
            throw Failed("playerhostd did not start: \(daemon.stderrText)")
        }
    }

    func restartDaemon() throws {
        client.close()
        _ = daemon.stop()
        try Self.start(daemon)
        client = try daemon.client()
    }

    /// Starts the HTTP server and waits for its port.
    func startServer() throws {
        let script = daemon.directory + "/server.py"
        #expect(ArtworkCache.write(script, Array(Self.serverScript.utf8)))
        let p = try ChildProcess(loop: daemon.loop, executable: "python3", arguments: [script, daemon.directory],
                                 stdio: [.ignore, .pipe, .inherit], onExit: { _ in })
        server = p
        try p.pipes[1]!.startReading(onRead: { [unowned self] b in self.serverOutput += String(decoding: b, as: UTF8.self) }, onEnd: { _ in })
        daemon.runUntil(10) { self.serverOutput.contains("\n") }
        guard let line = serverOutput.split(separator: "\n").first, line.hasPrefix("port "), let n = Int(line.dropFirst(5)) else {
            throw Failed("the HTTP server did not start: \(serverOutput)")
        }
        port = n
    }

    func stopServer() {
        if let s = server, s.exit == nil { try? s.kill(SIGKILL) }
        daemon.runUntil(10) { self.server?.exit != nil }
        server?.close()
        server = nil
    }

    /// Waits until the server has finished answering `path` (an event, not a sleep).
    func waitServerDone(_ path: String, deadline: Double) -> Bool {
        daemon.runUntil(deadline) { self.serverOutput.contains("done \(path)\n") }
    }

    /// Waits until the server has received a request for `path`.
    func waitServerGot(_ path: String, deadline: Double) -> Bool {
        daemon.runUntil(deadline) { self.serverOutput.contains("got \(path)\n") }
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Waits for the `artwork` event of `session` whose id is `id`.
    func settled(_ session: String, id: String, deadline: Double = 20) throws -> JSON {
        let end = ControlClient.now() + deadline
        while true {
            let left = end - ControlClient.now()
            guard left > 0 else { throw Failed("no artwork event for \(session)/\(id) within \(deadline) s") }
            let e = try client.nextNotification(timeout: left)
            if let p = e["params"], p["topic"] == "artwork", p["session"] == .string(session), p["id"] == .string(id) { return p }
        }
    }

    /// A manual session showing `artwork`.
    func show(_ session: String, title: String, id: String, sources: [String]) throws {
        _ = try client.call("info.update", ["session": .string(session), "info": [
            "title": .string(title), "artwork": ["id": .string(id), "sources": .array(sources.map(JSON.string))]]])
    }

    func image(_ session: String) throws -> JSON? {
        try client.call("info.get", ["session": .string(session)])["info"]?["artwork"]?["image"]
    }

    func close() {
        client.close()
        stopServer()
        _ = daemon.stop()
        daemon.close()
    }
}

@Suite(.serialized, .enabled(if: ArtworkFixture.toolsAvailable, "needs ffmpeg and python3"))
struct ArtworkEndToEndTests {
    @Test(.enabled(if: ArtworkFixture.mpvAvailable, "needs mpv"))
    func anMPVSessionShowsTheCoverInsideItsFile() throws {
        let f = try ArtworkFixture()
        defer { f.close() }
        _ = try f.client.call("events.subscribe", ["topics": ["artwork"]])
        let opened = try f.client.call("mpv.open", ["urls": [.string(f.song)], "ao": "null"])
        let session = try #require(opened["id"]?.stringValue)
        let event = try f.settled(session, id: "embedded:" + f.song)
        #expect(event["image"]?["from"] == "embedded")
        let image = try #require(try f.image(session))
        #expect(image["from"] == "embedded" && image["width"] == 1000 && image["height"] == 1000 && image["type"] == "image/jpeg")
        let path = try #require(image["url"]?.stringValue.flatMap(ArtworkSource.localPath))
        #expect(path.hasPrefix(f.daemon.directory + "/cache/playerhost/artwork/"))
        #expect(ArtworkCache.read(path, limit: 1 << 22) == ArtworkCache.read(f.cover, limit: 1 << 22), "the cover itself, unchanged")
        let shown = try f.client.call("nowPlaying.get")["info"]?["artwork"]?["image"]
        #expect(shown == image)
    }

    @Test func remoteArtworkIsCachedAndServedFromTheCacheAfterARestart() throws {
        let f = try ArtworkFixture()
        defer { f.close() }
        try f.startServer()
        _ = try f.client.call("session.create", ["id": "r", "kind": "main", "automaticallyPublishes": false])
        _ = try f.client.call("events.subscribe", ["topics": ["artwork"]])
        try f.show("r", title: "One", id: "remote-one", sources: [f.url("/cover.jpg")])
        #expect(try f.settled("r", id: "remote-one")["image"]?["from"] == "remote")
        #expect(try f.image("r")?["width"] == 1000)

        // Renditions: smaller ones scaled down and cached, never larger than the original.
        let small = try f.client.call("artwork.get", ["session": "r", "width": 64, "height": 64])
        #expect(small["width"] == 64 && small["height"] == 64 && small["original"] == false)
        let mid = try f.client.call("artwork.get", ["session": "r", "width": 300, "height": 300])
        #expect(mid["width"] == 300 && mid["height"] == 300)
        #expect(try f.client.call("artwork.get", ["session": "r", "width": 64, "height": 64])["path"] == small["path"], "cached")
        let large = try f.client.call("artwork.get", ["session": "r", "width": 4000, "height": 4000])
        #expect(large["width"] == 1000 && large["original"] == true, "never upscaled")
        let cli = try NpctlEndToEndTests.npctl("artwork --session r --size 300x300", socket: f.daemon.socketPath)
        #expect(cli.output == (mid["path"]?.stringValue ?? "?") + "\n")

        f.stopServer()
        try f.restartDaemon()
        // "r" itself comes back from the state file; a new session asking for the same artwork
        // id shows that the image now comes from the cache, with the server gone.
        _ = try f.client.call("session.create", ["id": "r2", "kind": "main", "automaticallyPublishes": false])
        _ = try f.client.call("events.subscribe", ["topics": ["artwork"]])
        try f.show("r2", title: "One", id: "remote-one", sources: [f.url("/cover.jpg")])
        #expect(try f.settled("r2", id: "remote-one")["image"]?["from"] == "cache")
    }

    @Test func aSlowTrackOnesArtworkIsNeverPublishedAfterTrackTwo() throws {
        let f = try ArtworkFixture()
        defer { f.close() }
        try f.startServer()
        _ = try f.client.call("session.create", ["id": "g", "kind": "main", "automaticallyPublishes": false])
        _ = try f.client.call("events.subscribe", ["topics": ["artwork", "info"]])
        try f.show("g", title: "Track 1", id: "slow", sources: [f.url("/slow/cover.jpg")])
        #expect(f.waitServerGot("/slow/cover.jpg", deadline: 10), "track 1's fetch is under way")
        try f.show("g", title: "Track 2", id: "fast", sources: [f.url("/cover.jpg")])
        #expect(f.waitServerDone("/slow/cover.jpg", deadline: 10), "track 1's fetch ran its course on the server")
        // Everything the daemon said meanwhile, up to a quiet half second.
        var events: [JSON] = []
        while let e = try? f.client.nextNotification(timeout: 0.5) { events.append(e["params"] ?? .null) }
        let images = events.filter { $0["topic"] == "info" && $0["info"]?["artwork"]?["image"] != nil }
        #expect(images.count == 1, "track 2's image is published once: \(images)")
        #expect(images.first?["info"]?["title"] == "Track 2")
        #expect(!events.contains { $0["topic"] == "artwork" && $0["id"] == "slow" }, "track 1 never settles")
        #expect(try f.image("g")?["url"] != nil)
    }

    @Test func badSourcesAreFaultsAndPublishNothing() throws {
        let f = try ArtworkFixture()
        defer { f.close() }
        try f.startServer()
        _ = try f.client.call("events.subscribe", ["topics": ["artwork"]])
        let cases: [(String, String)] = [("/garbage.jpg", "not an image"), ("/big", "limit"), ("/404", "HTTP 404"), ("/hang", "within 1500 ms")]
        for (i, (path, reason)) in cases.enumerated() {
            let s = "bad\(i)"
            _ = try f.client.call("session.create", ["id": .string(s), "kind": "main", "automaticallyPublishes": false])
            try f.show(s, title: "Bad", id: s, sources: [f.url(path)])
            let event = try f.settled(s, id: s)
            #expect(event["error"]?.stringValue?.contains(reason) == true, "\(path): \(event)")
            #expect(try f.image(s) == nil, "\(path): nothing published")
            let doctor = try f.client.call("arbiter.doctor", ["session": .string(s)])
            let faults = doctor.arrayValue?.first?["faults"]?.arrayValue ?? []
            #expect(faults.contains { $0["code"] == "artworkFailed" && $0["message"]?.stringValue?.contains(reason) == true }, "\(path): \(faults)")
            #expect(try f.client.call("host.ping") == "pong")
        }
    }

    @Test func aKilledHelperIsRestartedAndTheNextResolutionWorks() throws {
        let f = try ArtworkFixture()
        defer { f.close() }
        _ = try f.client.call("events.subscribe", ["topics": ["artwork"]])
        _ = try f.client.call("session.create", ["id": "k", "kind": "main", "automaticallyPublishes": false])
        try f.show("k", title: "One", id: "file-one", sources: ["file://" + f.cover])
        #expect(try f.settled("k", id: "file-one")["image"] != nil)
        let pid = try #require(try f.client.call("artwork.status")["helper"]?["pid"]?.intValue)
        #expect(kill(Int32(pid), SIGKILL) == 0)
        try f.show("k", title: "Two", id: "file-two", sources: [f.cover])
        let event = try f.settled("k", id: "file-two")
        // The request may have gone to the dying helper: then it fails with the reason, and a
        // third track resolves with the restarted one.
        if event["image"] == nil {
            #expect(event["error"]?.stringValue?.contains("helper") == true, "\(event)")
            try f.show("k", title: "Three", id: "file-three", sources: [f.cover])
            #expect(try f.settled("k", id: "file-three")["image"] != nil)
        }
        let status = try f.client.call("artwork.status")
        #expect(status["helper"]?["restarts"]?.intValue ?? 0 >= 1)
        #expect(status["helper"]?["pid"]?.intValue != pid)
    }
}
