import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient
@testable import PlayerHostHost
@testable import PlayerHostLoop
@testable import PlayerHostRPC

/// The real daemon over its real socket.
@Suite(.serialized) struct DaemonEndToEndTests {
    @Test func pingVersionStatsDiscover() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start())
        let c = try d.client()
        #expect(try c.call("host.ping") == "pong")
        #expect(try c.call("host.version")["protocol"] == .int(Int64(HostVersion.protocolVersion)))
        let hello = try c.call("host.hello", ["name": "tests", "version": "1"])
        #expect(hello["app"] == "tests")
        let stats = try c.call("host.stats")
        #expect(stats["connections"] == 1)
        #expect(stats["requestsServed"] == 4)
        let doc = try c.call("rpc.discover")
        let names = Set(doc["methods"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? [])
        #expect(names.isSuperset(of: ["host.hello", "host.ping", "host.version", "host.stats", "host.shutdown", "rpc.discover"]))
        #expect(d.stop()?.status == 0)
    }

    @Test func socketIsPrivate() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start())
        var st = stat()
        #expect(lstat(d.socketPath, &st) == 0)
        #expect(st.st_mode & S_IFMT == S_IFSOCK)
        #expect(st.st_mode & 0o777 == 0o600)
        #expect(d.stop()?.status == 0)
    }

    @Test func sigtermRemovesSocketAndLockAndExitsZero() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start())
        let c = try d.client()
        _ = try c.call("host.ping")
        let exit = d.stop(signal: SIGTERM)
        #expect(exit == ChildProcess.Exit(status: 0, signal: 0))
        #expect(access(d.socketPath, F_OK) != 0, "socket removed")
        #expect(access(d.socketPath + ".lock", F_OK) != 0, "lock file removed")
        // The connected client was told, then closed.
        let note = try c.nextNotification(timeout: 5)
        #expect(note["params"]?["type"] == "shutdown")
        #expect(d.stderrText.contains("shutting down: SIGTERM"))
    }

    @Test func sigintAndShutdownMethodAlsoStopCleanly() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start())
        #expect(d.stop(signal: SIGINT)?.status == 0)
        #expect(try d.start())
        #expect(try d.client().call("host.shutdown") == true)
        #expect(d.waitForExit()?.status == 0)
        #expect(access(d.socketPath, F_OK) != 0)
    }

    @Test func staleSocketIsReplaced() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start())
        // SIGKILL: no cleanup, the socket file stays behind.
        #expect(d.stop(signal: SIGKILL)?.signal == SIGKILL)
        #expect(access(d.socketPath, F_OK) == 0, "a killed daemon leaves its socket")
        #expect(try d.start(), "a new daemon takes over the stale socket")
        #expect(try d.client().call("host.ping") == "pong")
        #expect(d.waitForStderr("replacing stale socket"), "\(d.stderrText)")
        #expect(d.stop()?.status == 0)
    }

    @Test func secondInstanceIsRefusedAndLeavesTheFirstAlone() throws {
        let first = try DaemonHarness()
        defer { first.close() }
        #expect(try first.start())
        let second = try DaemonHarness(directory: first.directory)
        defer { if second.process != nil { second.stop(signal: SIGKILL) } }
        #expect(try second.start() == false)
        let exit = second.waitForExit()
        #expect(exit?.status == 75)
        #expect(second.stderrText.contains("another playerhostd is already running"))
        #expect(try first.client().call("host.ping") == "pong", "the live socket still answers")
        #expect(first.stop()?.status == 0)
    }

    @Test func socketPathOverTheLimitIsRefusedClearly() throws {
        let d = try DaemonHarness(socketName: String(repeating: "s", count: 120))
        defer { d.close() }
        #expect(try d.start() == false)
        #expect(d.waitForExit()?.status == 64)
        #expect(d.stderrText.contains("over the 107-byte limit"))
    }

    @Test func clientThatNeverReadsIsCutOffOthersUnaffected() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start(["--max-output-bytes", "65536"]))
        let hog = try d.client(timeout: 20)
        let other = try d.client()
        // Pipeline pings and never read: replies pile up past the limit and the daemon hangs up.
        let burst = Array(String(repeating: #"{"jsonrpc":"2.0","method":"host.ping","id":1}"# + "\n", count: 2000).utf8)
        var cutOff = false
        for _ in 0..<200 {
            do { try hog.send(burst) } catch {
                cutOff = true
                break
            }
            #expect(try other.call("host.ping") == "pong")
        }
        #expect(cutOff, "the daemon closed the connection of the client that does not read")
        #expect(try other.call("host.ping") == "pong")
        #expect(try other.call("host.stats")["connections"] == 1)
        #expect(d.stop()?.status == 0)
        #expect(d.stderrText.contains("client is not reading"))
    }

    @Test func connectionCapRefusesWithAClearError() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start(["--max-connections", "2"]))
        let a = try d.client()
        let b = try d.client()
        _ = try a.call("host.ping")
        _ = try b.call("host.ping")
        let c = try d.client()
        let refusal = try c.readMessage()
        #expect(refusal["error"]?["code"]?.intValue == RPCErrorCode.limitExceeded.rawValue)
        #expect(throws: ClientError.self) { try c.readMessage() }
        #expect(try a.call("host.ping") == "pong")
        #expect(d.stop()?.status == 0)
    }

    @Test func peerOfAnotherUidIsRefused() throws {
        guard getuid() == 0 else { return }  // needs root to act as another uid
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start())
        // Open the directory and socket so uid 65534 may connect at all; the daemon must still refuse.
        chmod(d.directory, 0o755)
        chmod(d.socketPath, 0o666)
        let script = """
            import socket, os, sys
            os.setgid(65534); os.setuid(65534)
            s = socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect(sys.argv[1])
            try:
                s.sendall(b'{"jsonrpc":"2.0","method":"host.ping","id":1}\\n')
                print("reply:" + repr(s.recv(100)))
            except (ConnectionResetError, BrokenPipeError):
                print("reply:b''")
            """
        let r = try runShell("python3 -c '\(script.replacingQuote())' '\(d.socketPath)'")
        #expect(r.output.contains("reply:b''"), "the other uid got nothing but a hang-up: \(r.output)")
        #expect(try d.client().call("host.stats")["connectionsRefused"] == 1)
        #expect(d.stop()?.status == 0)
    }

    @Test func idleDaemonArmsNoTimers() throws {
        // In-process: the same HostDaemon the binary runs, inspected through its loop.
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("rm -rf '\(dir)'") }
        var options = HostOptions(socketPath: dir + "/c.sock", socketIsDefault: false)
        options.limits = RPCLimits()
        // Never the user's state or config: a saved session there (with artwork to resolve)
        // would start the artwork helper and its timer, and the shutdown would overwrite it.
        options.stateDirectory = dir + "/state"
        options.configPath = dir + "/none.toml"
        // Nor the user's cache (the artwork cache was made under ~/.cache), plugin directory
        // (its executables were started) or session bus: the daemon's places come from here.
        options.environment = ["HOME": dir, "XDG_CONFIG_HOME": dir + "/config", "XDG_CACHE_HOME": dir + "/cache",
                               "XDG_STATE_HOME": dir + "/state", "PATH": "/usr/bin:/bin"]
        let host = try HostDaemon(options: options, logger: .init(label: "test"))
        try host.start()
        #expect(access(dir + "/cache/playerhost/artwork", F_OK) == 0, "the artwork cache is the test's own")
        // Active handles when idle: the listening socket, the web remote's in-process connection
        // (both ends; attached while off, so `npctl remote enable` needs no restart), the lock
        // file's watcher (inotify) and three signal watchers, no timer.
        #expect(host.loop.activeHandleTypes == ["pipe", "pipe", "pipe", "poll", "signal", "signal", "signal"])
        host.shutdown(reason: "test")
        // The shutdown closes every handle the daemon opened; once the loop ran dry the one left
        // is the shutdown deadline — unreferenced, it cannot keep the loop alive, and `finish()`
        // closes it with the loop. Anything else left open is a leak.
        try runUntilIdle(host.loop, timeout: 10_000)
        #expect(leftoverHandles(host.loop) == ["timer"], "handles left open after shutdown")
        host.finish()
    }
}

extension String {
    /// Escapes single quotes for a POSIX shell single-quoted string.
    func replacingQuote() -> String {
        var out = ""
        for ch in self { out += ch == "'" ? "'\\''" : String(ch) }
        return out
    }
}
