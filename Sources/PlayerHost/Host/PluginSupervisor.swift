import Glibc
import Logging
import PlayerHostBase
import PlayerHostClient
import PlayerHostLoop
import PlayerHostModel

/// Starts plugin executables, passes them the socket, restarts one that dies under the
/// `RestartPolicy` (doubling backoff; the start limit gives up on one that keeps exiting at once)
/// — reporting it failed while the host stays up. A plugin's sessions go away with its connection and come back
/// when it reconnects.
public final class PluginSupervisor {
    /// One plugin executable.
    public struct Spec: Sendable, Equatable {
        public var name: String
        public var path: String
        public var arguments: [String]
        public init(name: String, path: String, arguments: [String] = []) {
            self.name = name
            self.path = path
            self.arguments = arguments
        }
    }

    public enum State: String, Sendable { case starting, running, backoff, failed, stopped }

    final class Entry {
        let spec: Spec
        var process: ChildProcess?
        var state: State = .starting
        var restarts = 0
        var restartPolicy: RestartPolicy
        var startedAt: UInt64 = 0
        var lastExit: ChildProcess.Exit?
        var lastError: String?
        var timer: HostTimer?
        /// The last lines of the current (or last) run's stderr, for `plugin.list` and `doctor`.
        var stderrTail = OutputTail()
        /// A process that exited while its stderr pipe still held output: kept open until the
        /// pipe ends (or the next launch), so the traceback written just before the exit is read.
        var draining: ChildProcess?
        /// Dropped by a reload: never restarted.
        var removed = false
        init(spec: Spec, restartPolicy: RestartPolicy) {
            self.spec = spec
            self.restartPolicy = restartPolicy
        }
    }

    let loop: EventLoop
    let socketPath: String
    let logger: Logger
    /// When a plugin that died is started again, and when it is given up on (marked failed).
    public var restartPolicy = RestartPolicy.standard
    private(set) var entries: [Entry] = []
    private var stopping = false

    public init(loop: EventLoop, socketPath: String, logger: Logger) {
        self.loop = loop
        self.socketPath = socketPath
        self.logger = logger
    }

    /// Executables in `directory` (sorted by name; files with an execute bit, not hidden).
    public static func discover(directory: String) -> [Spec] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var specs: [Spec] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard !name.hasPrefix(".") else { continue }
            let path = directory + "/" + name
            var st = stat()
            guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, access(path, X_OK) == 0 else { continue }
            specs.append(Spec(name: name, path: path))
        }
        return specs.sorted { $0.name < $1.name }
    }

    public func start(_ spec: Spec) {
        let e = Entry(spec: spec, restartPolicy: restartPolicy)
        entries.append(e)
        launch(e)
    }

    /// Why running `path` would be unsafe (sshd's StrictModes), or nil: the file and every
    /// directory above it must be owned by us or root and writable by no one else, or another
    /// user could make the daemon run their code as us.
    public static func unsafeReason(path: String) -> String? {
        var current = path
        while true {
            var st = stat()
            guard stat(current, &st) == 0 else { return "cannot stat \(current): \(String(cString: strerror(errno)))" }
            if st.st_uid != getuid() && st.st_uid != 0 {
                return "\(current) is owned by uid \(st.st_uid), not by us (uid \(getuid())) or root"
            }
            let isDir = (st.st_mode & S_IFMT) == S_IFDIR
            // A sticky world-writable directory (/tmp) still lets no one replace our files.
            let sticky = isDir && (st.st_mode & S_ISVTX) != 0
            if st.st_mode & 0o022 != 0 && !sticky {
                return "\(current) is writable by \((st.st_mode & 0o002) != 0 ? "others" : "its group")"
            }
            if current == "/" || !current.hasPrefix("/") { return nil }
            current = SocketLocation.directory(of: current)
        }
    }

    private func launch(_ e: Entry) {
        guard !stopping else { return }
        if let reason = Self.unsafeReason(path: e.spec.path) {
            e.state = .failed
            e.lastError = "refused: \(reason)"
            logger.error("plugin \(e.spec.name) refused: \(reason)")
            return
        }
        e.state = .starting
        e.draining?.close()
        e.draining = nil
        e.stderrTail = OutputTail()
        var env = SocketLocation.currentEnvironment()
        env["PLAYERHOST_SOCKET"] = socketPath
        // Lets the plugin tell that the daemon which started it is gone (it was re-parented):
        // it then exits instead of reconnecting, since a restarted daemon starts its own copy.
        env["PLAYERHOST_SUPERVISOR_PID"] = String(getpid())
        do {
            let p = try ChildProcess(
                loop: loop, executable: e.spec.path, arguments: e.spec.arguments + ["--socket", socketPath],
                environment: env, stdio: [.ignore, .inherit, .pipe],
                onExit: { [weak self, weak e] exit in if let self, let e { self.exited(e, exit) } })
            e.process = p
            watchStderr(e, p)
            e.startedAt = loop.nowMilliseconds
            e.state = .running
            e.lastError = nil
            logger.info("plugin \(e.spec.name) started (pid \(p.pid))")
        } catch {
            e.process = nil
            e.lastError = error.message
            logger.error("plugin \(e.spec.name) cannot start: \(error.message)")
            // A missing or non-executable file will not fix itself: fail now, not after retries.
            if error.code == Int32(-ENOENT) || error.code == Int32(-EACCES) || error.code == Int32(-ENOEXEC) {
                e.state = .failed
                return
            }
            scheduleRestart(e, ranForMS: 0)
        }
    }

    /// The plugin's stderr goes on to the daemon's (the log, as when it was inherited) and its
    /// last lines are kept in `stderrTail`.
    private func watchStderr(_ e: Entry, _ p: ChildProcess) {
        guard p.pipes.count > 2, let pipe = p.pipes[2] else { return }
        try? pipe.startReading(onRead: { [weak e] bytes in
            e?.stderrTail.append(bytes)
            Self.forwardToStderr(bytes)
        }, onEnd: { [weak e, weak p] _ in
            guard let e, let p, e.draining === p else { return }
            e.draining = nil
            p.close()
        })
    }

    /// Writes `bytes` to the daemon's own stderr; a failing write drops the rest (the tail
    /// has them).
    static func forwardToStderr(_ bytes: UnsafeRawBufferPointer) {
        guard var base = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = write(2, base, left)
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return }
            base += n
            left -= n
        }
    }

    private func exited(_ e: Entry, _ exit: ChildProcess.Exit) {
        if let p = e.process, !e.removed, !stopping, p.pipes.count > 2, p.pipes[2]?.isReading == true {
            e.draining = p
        } else {
            e.process?.close()
        }
        e.process = nil
        e.lastExit = exit
        if e.removed {
            entries.removeAll { $0 === e }
            return
        }
        if stopping {
            e.state = .stopped
            return
        }
        let ran = loop.nowMilliseconds - e.startedAt
        let how = exit.signal != 0 ? "killed by signal \(exit.signal)" : "exited with status \(exit.status)"
        logger.warning("plugin \(e.spec.name) \(how) after \(ran) ms")
        scheduleRestart(e, ranForMS: ran)
    }

    private func scheduleRestart(_ e: Entry, ranForMS: UInt64) {
        guard case .restart(let delay) = e.restartPolicy.died(ranForMS: ranForMS) else {
            e.state = .failed
            logger.error("plugin \(e.spec.name) failed: it exited at once \(e.restartPolicy.quickDeaths) times in a row; not restarting")
            return
        }
        e.state = .backoff
        if e.timer == nil { e.timer = loop.makeTimer() }
        e.timer?.start(after: delay) { [weak self, weak e] in
            guard let self, let e else { return }
            e.restarts += 1
            self.launch(e)
        }
    }

    /// SIGTERM to every plugin (SIGKILL after `grace` ms); timers closed. The loop runs until
    /// their exits are reaped.
    public func stopAll(grace: UInt64 = 3000) {
        stopping = true
        var running: [ChildProcess] = []
        for e in entries {
            e.timer?.close()
            e.timer = nil
            e.draining?.close()
            e.draining = nil
            if let p = e.process {
                try? p.kill(SIGTERM)
                running.append(p)
            } else if e.state != .failed {
                e.state = .stopped
            }
        }
        guard !running.isEmpty, let killer = loop.makeTimer() else { return }
        killer.isReferenced = false  // never keeps the loop alive by itself
        killer.start(after: grace) {
            for p in running where p.exit == nil { try? p.kill(SIGKILL) }
            killer.close()
        }
    }

    /// Starts a plugin that was given up on (`failed`) again, with a fresh start limit: what a
    /// reload does once its cause is fixed (`npctl daemon reload`, the fix `doctor` names).
    /// Returns whether it was failed.
    @discardableResult
    public func retryFailed(name: String) -> Bool {
        guard !stopping, let e = entries.first(where: { $0.spec.name == name && !$0.removed && $0.state == .failed }) else {
            return false
        }
        e.restartPolicy = restartPolicy
        e.restarts += 1
        launch(e)
        return true
    }

    /// The plugins supervised now (not those stopped by `stop(name:)`).
    public var specs: [Spec] { entries.filter { !$0.removed }.map(\.spec) }

    /// Stops one plugin for good (a reload dropped it): SIGTERM, no restart; it leaves the list
    /// once it has exited.
    public func stop(name: String) {
        for e in entries where e.spec.name == name && !e.removed {
            e.removed = true
            e.timer?.close()
            e.timer = nil
            e.draining?.close()
            e.draining = nil
            if let p = e.process {
                try? p.kill(SIGTERM)
            } else {
                entries.removeAll { $0 === e }
            }
        }
    }

    /// `plugin.list` entries.
    public var listJSON: [JSON] {
        entries.map { e in
            var o: [String: JSON] = [
                "name": .string(e.spec.name), "kind": "process", "path": .string(e.spec.path),
                "state": .string(e.state.rawValue), "restarts": .int(Int64(e.restarts)),
            ]
            if let p = e.process { o["pid"] = .int(Int64(p.pid)) }
            if let x = e.lastExit { o["lastExit"] = ["status": .int(x.status), "signal": .int(Int64(x.signal))] }
            if let err = e.lastError { o["error"] = .string(err) }
            if !e.stderrTail.isEmpty { o["stderrTail"] = .array(e.stderrTail.lines.map(JSON.string)) }
            return .object(o)
        }
    }
}
