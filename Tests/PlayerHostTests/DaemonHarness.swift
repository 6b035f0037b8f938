import Glibc
import Testing
@testable import PlayerHost

/// Runs the real `playerhostd` binary (built beside the test bundle) as a child process on a
/// private socket, and waits on events with deadlines: its ready pipe, its exit.
final class DaemonHarness {
    let loop: EventLoop
    let directory: String
    let socketPath: String
    private(set) var process: ChildProcess?
    private(set) var exit: ChildProcess.Exit?
    /// What the daemon wrote to stderr so far: it grows only while this harness's loop runs
    /// (`runUntil`, `waitForExit`), so wait for a line with `waitForStderr`, not by reading it.
    private(set) var stderrText = ""
    private var stderrEnded = false
    private var ready = false

    /// The directory holding the package's built executables.
    static var binDirectory: String {
        var buf = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buf, 4095)
        let me = String(cBuffer: buf[0..<max(n, 0)])
        return SocketLocation.directory(of: me)
    }

    static var playerhostd: String { binDirectory + "/playerhostd" }
    static var npctl: String { binDirectory + "/npctl" }

    /// A fresh temporary directory (short, to stay under the socket path limit).
    static func makeTempDirectory() -> String {
        var template = Array("/tmp/phtest-XXXXXX".utf8CString)
        let p = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(p != nil, "mkdtemp failed")
        return String(cString: p!)
    }

    init(directory: String? = nil, socketName: String = "control.sock") throws {
        loop = try EventLoop()
        self.directory = directory ?? Self.makeTempDirectory()
        socketPath = self.directory + "/" + socketName
    }

    /// Starts the daemon with `arguments` and waits until its socket accepts (or it exits).
    /// Returns true when ready. Its state file lives in `<directory>/state` unless `arguments`
    /// name a `--state-dir` (never the user's own), so a restart in the same harness restores.
    /// `executable` runs another daemon binary than the build's (an installed one).
    @discardableResult
    func start(_ arguments: [String] = [], environment: [String: String]? = nil, deadline: Double = 30,
               executable: String = DaemonHarness.playerhostd) throws -> Bool {
        closeProcess()
        ready = false
        exit = nil
        stderrText = ""
        stderrEnded = false
        let p = try ChildProcess(
            loop: loop, executable: executable,
            arguments: ["--socket", socketPath, "--ready-fd", "3"] + arguments
                + (arguments.contains("--state-dir") ? [] : ["--state-dir", directory + "/state"]),
            environment: environment ?? isolatedEnvironment,
            stdio: [.ignore, .inherit, .pipe, .pipe],
            onExit: { [unowned self] e in self.exit = e })
        process = p
        try p.pipes[2]!.startReading(onRead: { [unowned self] b in
            self.stderrText += String(decoding: b, as: UTF8.self)
        }, onEnd: { [unowned self] _ in self.stderrEnded = true })
        try p.pipes[3]!.startReading(onRead: { [unowned self] b in
            if b.contains(UInt8(ascii: "R")) { self.ready = true }
        }, onEnd: { _ in })
        _ = runUntil(deadline) { self.ready || self.exit != nil }
        return ready
    }

    /// The test's own environment, less what would reach the user's desktop: the daemon reads its
    /// config (and keeps its artwork cache) (and `host.reload` re-reads it) from the harness's directory, and joins no session
    /// bus unless a test passes one (the MPRIS tests start their own dbus-daemon).
    var isolatedEnvironment: [String: String] {
        var env = SocketLocation.currentEnvironment()
        env["XDG_CONFIG_HOME"] = directory + "/config"
        env["XDG_CACHE_HOME"] = directory + "/cache"  // the artwork cache: never the user's own
        env["DBUS_SESSION_BUS_ADDRESS"] = nil
        return env
    }

    /// Runs the loop until `done` or the deadline; returns `done()`.
    @discardableResult
    func runUntil(_ seconds: Double, _ done: () -> Bool) -> Bool {
        if done() { return true }
        var expired = false
        let watchdog = try! Timer(loop: loop)
        watchdog.start(after: UInt64(seconds * 1000)) { expired = true }
        while !done() && !expired { loop.run(.once) }
        watchdog.close()
        return done()
    }

    /// Sends `signal` and waits for the exit.
    @discardableResult
    func stop(signal: Int32 = SIGTERM, deadline: Double = 20) -> ChildProcess.Exit? {
        if exit == nil { try? process?.kill(signal) }
        return waitForExit(deadline: deadline)
    }

    func waitForExit(deadline: Double = 20) -> ChildProcess.Exit? {
        runUntil(deadline) { self.exit != nil }
        // Read stderr to its end, so what the daemon wrote last is in `stderrText`. Bounded: a
        // child of the daemon that inherited stderr and outlives it would hold the pipe open.
        if exit != nil { runUntil(5) { self.stderrEnded } }
        return exit
    }

    /// Closes the handles of the last daemon started (its process and pipes): they are this
    /// harness's to close, before a restart or at the end.
    private func closeProcess() {
        guard let p = process else { return }
        for pipe in p.pipes { pipe?.close() }
        p.close()
        process = nil
    }

    /// Runs the loop (reading the daemon's stderr) until it has written `text`, or the deadline.
    @discardableResult
    func waitForStderr(_ text: String, deadline: Double = 10) -> Bool {
        runUntil(deadline) { self.stderrText.contains(text) || self.stderrEnded }
        return stderrText.contains(text)
    }

    func client(timeout: Double = 10) throws -> ControlClient {
        try ControlClient(path: socketPath, timeout: timeout)
    }

    /// Kills anything still running, closes the daemon's process handle and pipes, checks that
    /// nothing else was left open on the loop, closes it and removes the directory.
    func close(sourceLocation: SourceLocation = #_sourceLocation) {
        if exit == nil, process != nil { stop(signal: SIGKILL) }
        closeProcess()
        closeLoopExpectingNoLeaks(loop, sourceLocation: sourceLocation)
        _ = try? runShell("rm -rf '\(directory)'")
    }
}

/// Runs a shell command to completion and returns (status, stdout). Past `deadline` seconds the
/// command is killed and the test fails (status -1).
@discardableResult
func runShell(_ command: String, deadline: Double = 300, sourceLocation: SourceLocation = #_sourceLocation) throws -> (status: Int64, output: String) {
    let loop = try EventLoop()
    var out = ""
    var status: Int64 = -1
    var exited = false, ended = false
    let p = try ChildProcess(loop: loop, executable: "/bin/sh", arguments: ["-c", command],
                             stdio: [.ignore, .pipe, .inherit], onExit: { status = $0.status; exited = true })
    let pipe = p.pipes[1]!
    try pipe.startReading(onRead: { out += String(decoding: $0, as: UTF8.self) }, onEnd: { _ in ended = true })
    // The command's exit and the end of its output, or the deadline.
    if !(try runLoop(loop, timeout: UInt64(deadline * 1000), sourceLocation: sourceLocation) { exited && ended }) {
        try? p.kill(SIGKILL)
        status = -1
    }
    pipe.close()
    p.close()
    closeLoopExpectingNoLeaks(loop, sourceLocation: sourceLocation)
    return (status, out)
}

extension DaemonHarness {
    /// The package's root directory (where Package.swift is), found from this source file.
    static var packageRoot: String {
        var dir = SocketLocation.directory(of: #filePath)
        while dir != "/" && access(dir + "/Package.swift", F_OK) != 0 { dir = SocketLocation.directory(of: dir) }
        return dir
    }
}
