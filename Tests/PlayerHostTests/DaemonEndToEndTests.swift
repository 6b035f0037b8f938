import Glibc
import Testing
@testable import PlayerHost
@testable import PlayerHostBase
@testable import PlayerHostClient
@testable import PlayerHostHost
@testable import PlayerHostLoop
@testable import PlayerHostRPC

/// The real `playerhostd` as a process: its socket file (mode, stale, foreign, too long), the
/// instance lock (a second instance, the runtime directory removed, links planted), signals and
/// shutdown (SIGTERM, SIGINT, `host.shutdown`, a client that never reads, playing sessions), its
/// handles when idle, and its command line (`--check-config`, `npctl doctor` of an install
/// without its helper, `--log-level` and `log_level` reloaded as SIGHUP does).
///
/// What the host does with a request is tested on an embedded host (`*OverSocketTests`), what
/// the transport does in `SocketTransportEndToEndTests` and `SocketTransportLimitsEndToEndTests`.
/// Not serialized: each test has its own daemon and directory.
@Suite struct DaemonEndToEndTests {
    // MARK: - The socket file and the instance lock

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

    @Test func aLiveForeignSocketIsNeitherUnlinkedNorTaken() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        let foreign = listenOnUnixSocket(at: d.socketPath)
        defer { Glibc.close(foreign) }
        let before = inodeNumber(d.socketPath)
        #expect(try d.start() == false, "the daemon refuses the path")
        #expect(d.waitForExit()?.status != 0)
        #expect(d.stderrText.contains("another program is listening"))
        #expect(inodeNumber(d.socketPath) == before, "the foreign socket is untouched")
    }

    @Test func aStaleSocketIsReplaced() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        let stale = listenOnUnixSocket(at: d.socketPath)
        Glibc.close(stale)  // nothing listens any more: stale
        #expect(try d.start())
        #expect(try d.client().call("host.ping") == "pong")
        #expect(d.stop()?.status == 0)
        #expect(inodeNumber(d.socketPath) == nil, "our own socket is removed at exit")
    }

    @Test func aSocketAnotherProgramBoundAtOurPathSurvivesOurShutdown() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        #expect(try d.start())
        // Our socket file goes (the runtime directory cleaned under us) and another listener
        // takes the path while we still run.
        #expect(unlink(d.socketPath) == 0)
        let other = listenOnUnixSocket(at: d.socketPath)
        defer { Glibc.close(other) }
        let theirs = inodeNumber(d.socketPath)
        #expect(d.stop()?.status == 0)
        #expect(d.stderrText.contains("not removing"))
        // Neither our inode check nor libuv (which unlinks a path it bound when the handle
        // closes: we bind the socket ourselves) removed it.
        #expect(theirs != nil && inodeNumber(d.socketPath) == theirs, "the other listener's socket is still there")
        guard case .success(let fd) = UnixSocketConnector.connect(path: d.socketPath) else {
            Issue.record("the other listener no longer accepts")
            return
        }
        Glibc.close(fd)
    }

    /// Issue 21: a daemon whose runtime directory is removed stops (in order, state written)
    /// rather than run on unreachable while a second daemon takes the same socket path.
    @Test func aDaemonWhoseRuntimeDirectoryIsRemovedStopsAndASecondOneStarts() throws {
        let first = try DaemonHarness(socketName: "run/control.sock")
        defer { first.close() }
        #expect(try first.start())
        try first.client().call("session.create", ["id": "kept", "kind": "main"])
        _ = try runShell("rm -rf '\(first.directory)/run'")
        let exit = first.waitForExit(deadline: 10)
        #expect(exit?.status == 71, "the first daemon did not stop: \(String(describing: exit))")
        #expect(first.stderrText.contains("control.sock.lock: it was removed while the daemon ran"), "\(first.stderrText)")
        // The second starts on the same path, with what the first kept.
        let second = try DaemonHarness(directory: first.directory, socketName: "run/control.sock")
        defer { second.close() }
        #expect(try second.start())
        #expect(try second.client().call("session.list").arrayValue?.compactMap { $0["id"]?.stringValue } == ["kept"])
    }

    /// `--daemon` does not append its log through a link planted at `playerhostd.log`.
    @Test func aLinkAtTheDaemonLogIsRefused() throws {
        let dir = DaemonHarness.makeTempDirectory()
        defer { _ = try? runShell("'\(DaemonHarness.npctl)' daemon stop --socket '\(dir)/c.sock' >/dev/null 2>&1; rm -rf '\(dir)'") }
        _ = try runShell("printf 'precious\\n' > '\(dir)/victim'")
        #expect(symlink(dir + "/victim", dir + "/playerhostd.log") == 0)
        let r = try runShell("env -u DBUS_SESSION_BUS_ADDRESS XDG_CONFIG_HOME='\(dir)/config' '\(DaemonHarness.playerhostd)' --daemon --socket '\(dir)/c.sock' --state-dir '\(dir)/state' 2>&1; echo \"exit=$?\"", deadline: 30)
        #expect(r.output.hasSuffix("exit=71\n"), "\(r.output)")
        #expect(try runShell("cat '\(dir)/victim'").output == "precious\n")
    }

    // MARK: - Signals and shutdown

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
        // The daemon's own methods are listed with the core's (the core's, and how a client is
        // served, on an embedded host: `HostInfoOverSocketTests.pingVersionStatsDiscover`).
        let c = try d.client()
        let names = Set(try c.call("rpc.discover")["methods"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? [])
        #expect(names.isSuperset(of: ["host.hello", "host.ping", "host.version", "host.stats", "host.shutdown", "rpc.discover"]))
        #expect(try c.call("host.shutdown") == true)
        #expect(d.waitForExit()?.status == 0)
        #expect(access(d.socketPath, F_OK) != 0)
    }

    @Test func sigtermDoesNotWaitForeverOnAClientThatNeverReads() throws {
        let d = try DaemonHarness.started()
        defer { d.close() }
        let hog = try d.client()
        let burst = Array(String(repeating: #"{"jsonrpc":"2.0","method":"rpc.discover","id":1}"# + "\n", count: 200).utf8)
        for _ in 0..<10 { try hog.send(burst) }
        // The time budget per turn spreads the hog's burst over loop turns: wait (each check is a
        // round trip, under a deadline) until the daemon holds replies the hog's socket did not
        // take, so SIGTERM meets a client that cannot take its last replies.
        let probe = try d.client()
        #expect(try probe.call("host.ping") == "pong")
        let deadline = ContinuousClock.now + .seconds(10)
        var held = 0
        while held == 0 && ContinuousClock.now < deadline {
            held = Int(try probe.call("host.stats")["server"]?["queuedOutputBytes"]?.intValue ?? 0)
        }
        #expect(held > 0, "the daemon holds output the hog does not read")
        // Exits within the 2 s shutdown grace (the deadline here is generous, not a measurement).
        #expect(d.stop(signal: SIGTERM, deadline: 15)?.status == 0)
        #expect(d.stderrText.contains("shutdown deadline") || d.stderrText.contains("client is not reading"))
    }

    @Test func sigtermWithPlayingSessionsOfAClientAndOfTheHost() throws {
        let d = try DaemonHarness.started(config: """
            [[session]]
            id = "main"
            kind = "main"
            autoplay = true
            repeat = "all"
              [[session.item]]
              title = "a"
              duration = 1

            """)
        defer { d.close() }
        let app = try d.client()
        try app.call("host.hello", ["name": "app"])
        try app.call("session.create", ["id": "mine", "kind": "main"])
        try app.call("player.load", ["session": "mine", "items": [["title": "b", "duration": 3]]])
        try app.call("player.play", ["session": "mine"])
        // The app's connection closes during shutdown, which changes the deadline: no new timer.
        #expect(d.stop(signal: SIGTERM, deadline: 15)?.status == 0)
        #expect(access(d.socketPath, F_OK) != 0)
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
        // Active handles when idle: the listening socket, the lock file's watcher (inotify) and
        // three signal watchers, no timer. The built-in plugins' connections (the web remote's
        // among them, attached while off so `npctl remote enable` needs no restart) are the
        // core's memory: no descriptor, no handle.
        #expect(host.loop.activeHandleTypes == ["pipe", "poll", "signal", "signal", "signal"])
        host.shutdown(reason: "test")
        // The shutdown closes every handle the daemon opened; once the loop ran dry two are
        // left, both closed by `finish()` with the loop: the shutdown deadline (unreferenced, it
        // cannot keep the loop alive) and the loop's next-turn queue (an idle handle, stopped
        // while empty, so it wakes nothing), which the plugins' connections used. Anything else
        // left open is a leak.
        try runUntilIdle(host.loop, timeout: 10_000)
        #expect(leftoverHandles(host.loop) == ["idle", "timer"], "handles left open after shutdown")
        host.finish()
    }

    // MARK: - The command line: --check-config, doctor, the log level

    /// The real binary: `--check-config` says what is wrong (exit 1) or ok (exit 0) without
    /// starting, and a daemon given the bad file refuses to start with the same message.
    @Test func checkConfigAndStartRefuseATypo() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        let bad = d.directory + "/bad.toml", good = d.directory + "/good.toml"
        _ = try runShell("printf '[[session]]\\nid = \"main\"\\nkind = \"main\"\\ncategroy = \"playback\"\\n' > '\(bad)'")
        _ = try runShell("printf 'coalesce_ms = 100\\n' > '\(good)'")
        let checked = try runShell("'\(DaemonHarness.playerhostd)' --check-config '\(bad)' 2>&1; echo \"exit $?\"")
        #expect(checked.output.contains("bad.toml:4: session[0].categroy: unknown key"), "\(checked.output)")
        #expect(checked.output.hasSuffix("exit 1\n"), "\(checked.output)")
        let ok = try runShell("'\(DaemonHarness.playerhostd)' --check-config '\(good)' 2>&1; echo \"exit $?\"")
        #expect(ok.output == "\(good): ok\nexit 0\n")

        #expect(try d.start(["--config", bad]) == false)
        #expect(d.waitForExit()?.status == 78)
        #expect(d.stderrText.contains("session[0].categroy: unknown key"), "\(d.stderrText)")
        #expect(access(d.socketPath, F_OK) != 0)
    }

    /// End to end: a daemon installed without its helper (a copy of playerhostd alone) and
    /// MPRIS turned off. `npctl doctor` said `host: ✓ no faults`; now it names both, with fixes.
    @Test func doctorNamesAMissingArtworkHelperAndMPRISOff() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        let bin = d.directory + "/bin"
        let config = d.directory + "/c.toml"
        #expect(try runShell("mkdir '\(bin)' && cp '\(DaemonHarness.playerhostd)' '\(bin)/' && printf '[mpris]\\nenabled = false\\n' > '\(config)'").status == 0)
        #expect(try d.start(["--config", config], executable: bin + "/playerhostd"), "\(d.stderrText)")
        let codes = try d.client().call("host.doctor").arrayValue?.compactMap { $0["code"]?.stringValue }
        #expect(codes == ["artworkHelperMissing", "mprisDisabled"])
        let doctor = try runShell("PLAYERHOST_SOCKET='\(d.socketPath)' timeout 30 '\(DaemonHarness.npctl)' doctor 2>&1")
        #expect(doctor.status == 0)
        #expect(!doctor.output.contains("no faults"))
        #expect(doctor.output.contains("""
            host faults:
              ✗ error: the artwork helper cannot start: \(bin)/playerhost-artwork is missing or not executable, so no cover is shown
            """), "\(doctor.output)")
        #expect(doctor.output.contains("! warning: MPRIS is off: [mpris] enabled = false in the config"), "\(doctor.output)")
        #expect(doctor.output.contains("fix: remove `enabled = false` from [mpris] in \(config), then: npctl daemon stop && npctl daemon start -- --config \(config)"), "\(doctor.output)")
    }

    func writeConfig(_ path: String, level: String?) throws {
        let text = level.map { "log_level = \"\($0)\"\n" } ?? "command_timeout_ms = 500\n"
        try runShell("cat > '\(path)' <<'EOF'\n\(text)EOF")
    }

    /// Connects, pings and disconnects a client, and waits (with a deadline) until the daemon
    /// has seen it go: its debug line "client N … disconnected" is written, or not, by then.
    func connectAndLeave(_ d: DaemonHarness, watcher: ControlClient) throws {
        let before = try watcher.call("host.stats")["connectionsAccepted"]?.intValue ?? 0
        do {
            let c = try d.client()
            #expect(try c.call("host.ping") == "pong")
        }
        var gone = false
        for _ in 0..<200 where !gone {
            let st = try watcher.call("host.stats")
            gone = (st["connectionsAccepted"]?.intValue ?? 0) > before && st["connections"]?.intValue == 1
            if !gone { _ = d.runUntil(0.05) { false } }
        }
        #expect(gone)
    }

    /// What the daemon wrote to stderr after `mark`, up to a marker line it is made to write now
    /// (a reload refused, at error level): everything logged before it is in the text.
    func stderrUpToMarker(_ d: DaemonHarness, _ c: ControlClient, config: String, from mark: Int) throws -> String {
        try runShell("printf 'log_level = \\n' > '\(config)'")
        #expect(throws: ClientError.self) { try c.call("host.reload") }
        #expect(d.waitForStderr("not reloading"))
        return String(d.stderrText.dropFirst(mark))
    }

    @Test func aReloadedLogLevelAppliesAtOnce() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        let config = d.directory + "/c.toml"
        try writeConfig(config, level: "warning")
        #expect(try d.start(["--config", config]))
        let c = try d.client()
        try connectAndLeave(d, watcher: c)
        #expect(!(try stderrUpToMarker(d, c, config: config, from: 0)).contains("disconnected"))

        try writeConfig(config, level: "debug")
        let r = try c.call("host.reload")
        #expect(r["settingsChanged"]?.arrayValue?.contains("log_level") == true)
        try connectAndLeave(d, watcher: c)
        #expect(d.waitForStderr("disconnected"), "\(d.stderrText)")

        // Back to warning: the client leaving now writes nothing, so the one line is still the
        // one from the debug period.
        try writeConfig(config, level: "warning")
        try c.call("host.reload")
        try connectAndLeave(d, watcher: c)
        let all = try stderrUpToMarker(d, c, config: config, from: 0)
        #expect(all.ranges(of: "disconnected").count == 1, "\(all)")
        #expect(d.exit == nil)
    }

    @Test func theCommandLineWinsOverTheConfig() throws {
        let d = try DaemonHarness()
        defer { d.close() }
        let config = d.directory + "/c.toml"
        try writeConfig(config, level: "debug")
        #expect(try d.start(["--config", config, "--log-level", "warning"]))
        let c = try d.client()
        try connectAndLeave(d, watcher: c)
        try writeConfig(config, level: "trace")
        try c.call("host.reload")
        try connectAndLeave(d, watcher: c)
        let all = try stderrUpToMarker(d, c, config: config, from: 0)
        #expect(!all.contains("disconnected"), "\(all)")
    }
}
