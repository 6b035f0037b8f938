// `MPVEndToEndTests.Isolation`: mpv children kept apart (the suite is declared in MPVEndToEndTests.swift).
import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient
@testable import PlayerHostRPC

/// Small helpers of the isolation tests below: a refusal, a raw request, whether a reply is
/// waiting, a `/proc` file.
extension MPVEndToEndTests.Isolation {
    /// Whether the client's socket has bytes to read now (no waiting).
    func readable(_ c: ControlClient) -> Bool {
        var pfd = pollfd(fd: c.fileDescriptor, events: Int16(POLLIN), revents: 0)
        return poll(&pfd, 1, 0) > 0
    }

    func request(_ method: String, _ params: JSON, id: Int64) -> [UInt8] {
        var line: [UInt8] = []
        RPCEncoder.request(method: method, params: params, id: id, into: &line)
        return line
    }

    func readFile(_ path: String) -> [UInt8]? {
        guard let fp = fopen(path, "r") else { return nil }
        defer { fclose(fp) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&chunk, 1, chunk.count, fp)
            if n <= 0 { break }
            out += chunk[0..<n]
        }
        return out
    }
}

// MARK: - Isolation: mpv children kept apart

extension MPVEndToEndTests.Isolation {
    @Test func requestsThatWouldWriteFilesAreRefusedAndChangeNothing() throws {
        let f = try MPVFixture()
        defer { f.close() }
        var cwd = [CChar](repeating: 0, count: 4096)
        let daemonDirectory = getcwd(&cwd, cwd.count).map { String(cString: $0) } ?? "."
        let leak = f.daemon.directory + "/leak.txt"
        let refused: [(params: [String: JSON], says: String)] = [
            (["urls": [.string(f.one)], "ao": "pcm"], "ao 'pcm' is not allowed"),
            (["urls": [.string(f.one)], "vo": "image"], "vo 'image' is not allowed"),
            (["urls": [.string("av://lavfi:sine=d=1,ametadata=mode=print:file=\(leak)")]], "URL scheme 'av' is not allowed"),
            (["urls": [.string(f.one), "lavfi://sine"]], "urls[1]: URL scheme 'lavfi' is not allowed"),
            (["urls": [.string("edl://\(f.one)")]], "URL scheme 'edl' is not allowed"),
            (["urls": ["one.ogg"]], "neither an absolute file path nor a URL"),
        ]
        for r in refused {
            let e = try #require(try RestartSupport.refusal(f.client, "mpv.open", r.params), "accepted: \(r.params)")
            #expect(e.code == RPCErrorCode.invalidParams.rawValue)
            #expect(e.message.contains(r.says), "\(e.message)")
        }
        // Nothing was created or started, and no file was written.
        #expect(try f.client.call("session.list").arrayValue?.isEmpty == true)
        #expect(throws: ClientError.self) { try f.client.call("mpv.status") }
        #expect(access(leak, F_OK) != 0)
        #expect(access(daemonDirectory + "/audiodump.wav", F_OK) != 0)
        // What is allowed still plays.
        #expect(try f.npctl("open '\(f.one)'").status == 0)
    }

    @Test func mpvGetsACleanEnvironmentAndADirectoryOfItsOwn() throws {
        var env = SocketLocation.currentEnvironment()
        env["PLAYERHOST_TEST_SECRET"] = "hunter2"
        env["NOTIFY_SOCKET"] = "/nonexistent/notify.sock"
        env["LC_TIME"] = "C"
        let f = try MPVFixture(environment: env)
        defer { f.close() }
        #expect(try f.npctl("open '\(f.one)'").status == 0)
        let status = try f.client.call("mpv.status")
        let pid = try #require(status["pid"]?.intValue)
        let socket = try #require(status["socket"]?.stringValue)
        let environ = try #require(readFile("/proc/\(pid)/environ")).split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        #expect(!environ.contains { $0.hasPrefix("PLAYERHOST_TEST_SECRET=") || $0.hasPrefix("NOTIFY_SOCKET=") }, "\(environ)")
        #expect(environ.contains("LC_TIME=C") && environ.contains { $0.hasPrefix("PATH=") })
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/\(pid)/cwd", &buf, buf.count - 1)
        let cwd = String(cBuffer: buf[0..<max(n, 0)])
        #expect(cwd == SocketLocation.directory(of: socket))
        var st = stat()
        #expect(stat(cwd, &st) == 0 && st.st_mode & 0o777 == 0o700)
    }

    /// One mpv stopped with SIGSTOP: another mpv session's commands succeed; a command to the
    /// stopped one fails within mpv's answer timeout (not the host's), and that mpv is killed and
    /// restarted with its queue.
    @Test func aStoppedMpvHoldsNoOtherSessionAndIsRestarted() throws {
        let f = try MPVFixture()
        defer { f.close() }
        #expect(try f.npctl("open --session a '\(f.one)'").status == 0)
        #expect(try f.npctl("open --session b '\(f.two)'").status == 0)
        let stopped = Int32(try #require(try f.client.call("mpv.status", ["session": "a"])["pid"]?.intValue))
        let watcher = try f.daemon.client()
        _ = try watcher.call("events.subscribe", ["topics": ["players"]])
        try f.drain(watcher)
        #expect(kill(stopped, SIGSTOP) == 0)
        defer { kill(stopped, SIGCONT) }

        #expect(try f.client.call("command.send", ["session": "b", "command": "pause"])["status"] == "success")
        var start = ControlClient.now()
        #expect(try f.client.call("command.send", ["session": "b", "command": "play"])["status"] == "success")
        let alone = ControlClient.now() - start
        #expect(try f.probe(session: "b").get("pause") == false)

        // A command to the stopped mpv, and right behind it one to the other session: the
        // plugin answers the second while the first still waits on the stopped mpv (its replies
        // to the host are not kept in request order).
        #expect(try f.client.call("command.send", ["session": "b", "command": "pause"])["status"] == "success")
        let other = try f.daemon.client()
        start = ControlClient.now()
        try f.client.send(request("command.send", ["session": "a", "command": "play"], id: 1))
        // A barrier: once the daemon answered this, it has read the command to "a" (sent first).
        #expect(try other.call("host.ping") == "pong")
        let otherSent = ControlClient.now()
        try other.send(request("command.send", ["session": "b", "command": "play"], id: 2))
        let toOther = try other.readMessage()
        let otherTook = ControlClient.now() - otherSent
        #expect(toOther["result"]?["status"] == "success", "\(toOther)")
        #expect(!f.client.hasBufferedInput && !readable(f.client), "the command to the stopped mpv is still pending")
        // (Read through `other`: `f.client` still waits for its answer.)
        let bSocket = try #require(try other.call("mpv.status", ["session": "b"])["socket"]?.stringValue)
        #expect(try MPVProbe(path: bSocket).get("pause") == false)
        let toStopped = try f.client.readMessage()
        let stoppedTook = ControlClient.now() - start
        #expect(toStopped["result"]?["status"] == "commandFailed", "\(toStopped)")
        // Under the host's command timeout (2 s): the plugin answered, mpv's watchdog fired.
        #expect(stoppedTook < 2.0, "\(stoppedTook)")
        print("mpv isolation: play on b with a stopped: \(Int(alone * 1000)) ms; play on b while a command to a (stopped) waits: \(Int(otherTook * 1000)) ms; the one to a failed after \(Int(stoppedTook * 1000)) ms")

        // The hung mpv was killed: reported failed, restarted, its queue restored.
        _ = try f.waitForPlayer(watcher, session: "a", deadline: 5) { $0["status"] == "failed" }
        _ = try f.waitForPlayer(watcher, session: "a", deadline: 15) { $0["status"] == "ready" }
        let after = try f.client.call("mpv.status", ["session": "a"])
        #expect(after["restarts"] == 1 && after["phase"] == "running", "\(after)")
        #expect(after["pid"] != nil && after["pid"] != .int(Int64(stopped)))
        #expect(try f.probe(session: "a").get("playlist-count") == 1)
        // The log says why (the harness's loop reads the daemon's stderr while it runs).
        #expect(f.daemon.waitForStderr("did not answer within 1000 ms; killing it"), "\(f.daemon.stderrText)")
    }
}
