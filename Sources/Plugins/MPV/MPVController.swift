import Glibc
import PlayerHostPluginAPI

/// One mpv session's player: the `mpv` child process, its IPC connection, the mirror of its
/// state, and the `player.sync` reports to the host at key moments (see `+Reporting`).
///
/// It supervises mpv: when mpv dies the session is reported `failed`, mpv is started again under
/// the `RestartPolicy` (doubling backoff; the fifth quick death in a row gives up, `phase`
/// failed, until the next `load`), and the queue, item, position, pause state and modes are
/// restored. An mpv that stops answering (`MPVConnection`'s watchdog) is killed and counts as a
/// death: one hung mpv never holds another session's commands.
final class MPVController {
    enum Phase: String { case starting, running, restarting, failed, stopped }

    /// What to put back after mpv died.
    struct Restore {
        var urls: [String]
        var index: Int
        var position: Double
        var paused: Bool
        var loopFile: Bool
        var loopPlaylist: Bool
        /// mpv's `volume` (percent) and `mute` to set again (nil: mpv's default).
        var volume: Double? = nil
        var mute: Bool? = nil
    }

    /// Where a restore stands: loading the item, then seeking to the position.
    enum RestoreStage { case loading, seeking }

    let session: String
    let loop: EventLoop
    let options: MPVOptions
    let socketPath: String
    var audioOutput: String?
    var videoOutput: String?
    /// Sends one `player.sync` (params without `session`); `done` runs once it is sent (the host
    /// applies it before anything the plugin sends after it).
    var report: (_ params: [String: JSON], _ done: @escaping () -> Void) -> Void = { _, done in done() }
    var log: (String) -> Void = { _ in }

    private(set) var phase: Phase = .stopped
    private var process: ChildProcess?
    private(set) var connection: MPVConnection?
    var state = MPVState()
    /// Work waiting for mpv's IPC to be up (a `load` during a restart).
    /// Work waiting for mpv's IPC, each with how to fail it: every waiter is answered on every
    /// path (a reply never given would hold every later reply of the plugin's connection).
    private var whenConnected: [(run: () -> Void, fail: (MPVError) -> Void)] = []
    /// Callbacks for mpv's next `playback-restart` (or the end of a file that failed).
    var restartWaiters: [() -> Void] = []
    private var restartTimer: Timer?
    private var killTimer: Timer?
    private var idleTimer: Timer?
    private var awaitingIdle = false
    private var restartPolicy: RestartPolicy
    private var startedAt: UInt64 = 0
    /// Why mpv was killed by us while it should run (it stopped answering), for the death's log.
    private var killedBecause: String?
    private(set) var restarts = 0
    var restore: Restore?
    var restoreStage: RestoreStage?
    /// Times a restore had to select its entry again (mpv's start-up race); bounded.
    private var restoreAttempts = 0
    /// A file is opening: between `start-file` and `playback-restart` its tags are not known yet.
    var loadingFile = false
    /// A seek was sent and has not landed: `time-pos` would still say where it was.
    var seeking = false
    var holdSince: UInt64 = 0
    // Reporting state (see MPVController+Reporting).
    var syncTimer: Timer?
    var syncScheduled = false
    var syncInFlight = false
    var syncAgain = false
    var syncDone: [() -> Void] = []
    var lastAnchor: (elapsed: Double, rate: Double, at: UInt64)?
    /// Set when the plugin detaches: the socket directory is removed once mpv has exited.
    var removesDirectoryOnExit = false
    /// mpv was paused by an audio interruption and should resume when it ends.
    var pausedByInterruption = false

    init(session: String, loop: EventLoop, options: MPVOptions, socketPath: String) {
        self.session = session
        self.loop = loop
        self.options = options
        self.socketPath = socketPath
        restartPolicy = options.restartPolicy
    }

    /// mpv's pid while it runs. Not once it exited, even before the loop reaped it: the exit
    /// reaches the loop through SIGCHLD, turns later under load, and meanwhile `mpv.status`
    /// named a pid that was already dead (issue 21).
    var pid: Int32? {
        guard let p = process, p.exit == nil else { return nil }
        return Self.hasExited(p.pid) ? nil : p.pid
    }

    /// Whether child `pid` exited (a zombie): a peek (`WNOWAIT`) that leaves it for libuv to reap.
    static func hasExited(_ pid: Int32) -> Bool {
        var info = siginfo_t()
        guard waitid(P_PID, id_t(bitPattern: pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 else { return false }
        // WNOHANG with nothing to report leaves si_pid 0 (POSIX); it is the child's pid otherwise.
        return info._sifields._sigchld.si_pid == pid
    }

    /// For `mpv.status`.
    var statusJSON: JSON {
        var o: [String: JSON] = [
            "session": .string(session), "phase": .string(phase.rawValue), "socket": .string(socketPath),
            "restarts": .int(Int64(restarts)), "playlistCount": .int(Int64(state.playlist.count)),
            "playlistPos": .int(Int64(state.playlistPos)), "paused": .bool(state.pause),
        ]
        if let pid { o["pid"] = .int(Int64(pid)) }
        return .object(o)
    }

    // MARK: - Process

    /// Starts mpv unless it runs (or is being started).
    func start() {
        guard phase == .stopped || phase == .failed || phase == .restarting, process == nil else { return }
        if phase != .restarting { restartPolicy.reset() }
        phase = .starting
        startedAt = 0
        killedBecause = nil
        unlink(socketPath)
        let (program, args) = options.command(socket: socketPath, audioOutput: audioOutput, videoOutput: videoOutput)
        let p: ChildProcess
        do {
            // A clean environment and a directory of its own (the private 0700 one holding its
            // socket): whatever mpv writes by itself lands there, not in the daemon's directory.
            p = try ChildProcess(loop: loop, executable: program, arguments: args,
                                 environment: options.environment,
                                 workingDirectory: SocketLocation.directory(of: socketPath),
                                 stdio: [.ignore, .ignore, .inherit],
                                 // Strong on purpose: a stopped controller dropped by the plugin
                                 // lives until its mpv exits, to reap it and close its handles.
                                 onExit: { exit in self.exited(exit) })
        } catch {
            log("cannot start mpv: \(error)")
            return died(reason: "could not start: \(error)")
        }
        process = p
        startedAt = EventLoop.hrtime()
        MPVConnection.connect(loop: loop, path: socketPath, withinMS: 5000,
                              // Both gone is not "still this process" (nil === nil): once mpv
                              // exited and was released the attempts stop, not 5 s later.
                              shouldContinue: { [weak self, weak p] in
                                  guard let self, let p else { return false }
                                  return self.process === p && p.exit == nil
                              }) {
            [weak self, weak p] result in
            guard let self, self.process === p, let p else {
                if case .success(let c) = result { c.close() }
                return
            }
            switch result {
            case .success(let c): self.connected(c)
            case .failure(let e):
                self.log("no IPC from mpv (pid \(p.pid)): \(e.message)")
                try? p.kill(SIGKILL)
            }
        }
    }

    private func connected(_ c: MPVConnection) {
        connection = c
        c.answerTimeoutMS = options.answerTimeoutMS
        c.onEvent = { [weak self] name, o in self?.event(name, o) }
        c.onHung = { [weak self] in self?.hung() }
        // The socket closing with the process alive means mpv is wedged: end it, and the exit
        // restarts it like any death.
        c.onClosed = { [weak self] in try? self?.process?.kill(SIGKILL) }
        for (i, name) in MPVState.observed.enumerated() {
            c.command(["observe_property", .int(Int64(i + 1)), .string(name)])
        }
        // mpv serves IPC before its play loop starts, and a playlist filled before then is
        // started from its first entry whatever we asked: wait until mpv says it is idle.
        awaitingIdle = true
        idleTimer = try? Timer(loop: loop)
        idleTimer?.start(after: 3000) { [weak self] in self?.becameIdle() }
    }

    /// mpv left a command unanswered too long (stopped, wedged): what waited on it has failed;
    /// kill it (SIGKILL ends a stopped process too), and its exit restarts it like any death.
    private func hung() {
        connection = nil
        guard let p = process, p.exit == nil else { return }
        let why = "did not answer within \(options.answerTimeoutMS) ms"
        killedBecause = why
        log("mpv for session \(session) (pid \(p.pid)) \(why); killing it")
        try? p.kill(SIGKILL)
    }

    /// mpv is up and idle: restore or report, then run what waited for it.
    private func becameIdle() {
        guard awaitingIdle, let c = connection else { return }
        awaitingIdle = false
        idleTimer?.close()
        idleTimer = nil
        phase = .running
        if let r = restore { beginRestore(r, c) } else { scheduleSync() }
        let work = whenConnected
        whenConnected.removeAll()
        for w in work { w.run() }
    }

    /// Answers every waiter with `error` (mpv stopped or gave up).
    private func failWaiters(_ error: MPVError) {
        let work = whenConnected
        whenConnected.removeAll()
        for w in work { w.fail(error) }
    }

    private func exited(_ exit: ChildProcess.Exit) {
        process?.close()
        process = nil
        guard phase != .stopped else {
            killTimer?.close()
            killTimer = nil
            // A killed mpv leaves its socket behind; once the plugin is gone, so is the directory
            // (the last controller to exit empties it).
            unlink(socketPath)
            if removesDirectoryOnExit { rmdir(SocketLocation.directory(of: socketPath)) }
            return
        }
        let how = killedBecause ?? (exit.signal != 0 ? "killed by signal \(exit.signal)" : "exited with status \(exit.status)")
        died(reason: how)
    }

    /// mpv is gone: report it, remember what to restore, and start it again after the backoff.
    private func died(reason: String) {
        connection?.close()
        connection = nil
        awaitingIdle = false
        idleTimer?.close()
        idleTimer = nil
        let ranFor = startedAt == 0 ? 0 : (EventLoop.hrtime() - startedAt) / 1_000_000
        let decision = restartPolicy.died(ranForMS: ranFor)
        // A death during a restore keeps the restore it was doing: the state is half-rebuilt.
        if restore == nil, state.hasItems {
            restore = Restore(urls: state.playlist.map(\.filename), index: state.playlistPos >= 0 ? state.playlistPos : state.lastIndex,
                              position: inferredElapsed ?? 0, paused: state.pause,
                              loopFile: state.loopFile, loopPlaylist: state.loopPlaylist,
                              volume: state.volume, mute: state.mute)
        }
        restoreStage = nil
        loadingFile = false
        seeking = false
        fireRestartWaiters()
        reportFailure()
        guard case .restart(let delay) = decision else {
            phase = .failed
            log("mpv for session \(session) \(reason); gave up after \(restartPolicy.quickDeaths) quick failures in a row")
            failWaiters(MPVError("mpv keeps dying (\(reason)); gave up after \(restartPolicy.quickDeaths) quick failures in a row"))
            return
        }
        phase = .restarting
        restarts += 1
        log("mpv for session \(session) \(reason); restarting in \(delay) ms")
        if restartTimer == nil { restartTimer = try? Timer(loop: loop) }
        restartTimer?.start(after: delay) { [weak self] in self?.start() }
    }

    /// Stops mpv for good (session closed, plugin detached): SIGTERM, SIGKILL if it is still
    /// there a second later. The process handle stays until the exit so the child is reaped.
    func stop() {
        phase = .stopped
        restartTimer?.close()
        restartTimer = nil
        idleTimer?.close()
        idleTimer = nil
        awaitingIdle = false
        syncTimer?.close()
        syncTimer = nil
        connection?.close()
        connection = nil
        failWaiters(MPVError("the session's mpv was stopped"))
        fireRestartWaiters()
        let done = syncDone
        syncDone.removeAll()
        for d in done { d() }
        unlink(socketPath)
        guard let p = process else { return }
        try? p.kill(SIGTERM)
        killTimer = try? Timer(loop: loop)
        killTimer?.start(after: 1000) { try? p.kill(SIGKILL) }
    }

    /// Runs `work` once mpv's IPC is up (at once if it is), starting mpv if needed.
    func whenReady(_ work: @escaping () -> Void, otherwise fail: @escaping (MPVError) -> Void) {
        if phase == .running, connection != nil { return work() }
        whenConnected.append((work, fail))
        if phase == .stopped || phase == .failed { start() }
    }

    // MARK: - Events

    private func event(_ name: String, _ o: [String: JSON]) {
        switch name {
        case "property-change":
            guard let property = o["name"]?.stringValue else { return }
            state.apply(property, o["data"] ?? .null)
            if property == "idle-active", state.idleActive { becameIdle() }
            scheduleSync()
        case "start-file":
            loadingFile = true
            holdSince = EventLoop.hrtime()
            state.endedFile = nil
        case "seek":
            if !seeking { seeking = true; holdSince = EventLoop.hrtime() }
        case "playback-restart":
            loadingFile = false
            seeking = false
            if advanceRestore() { return }
            fireRestartWaiters()
            syncNow {}
        case "end-file":
            // Played (or seeked) to its end: if nothing starts after it, the queue ended there.
            if o["reason"]?.stringValue == "eof", state.playlist.indices.contains(state.lastIndex) {
                state.endedFile = state.playlist[state.lastIndex].filename
            }
            // A file that failed to open never restarts playback: release whoever waits.
            if o["reason"]?.stringValue == "error" {
                log("mpv could not play \(o["file_error"]?.stringValue ?? "a file") in session \(session)")
                loadingFile = false
                if restoreStage != nil { finishRestore() }
                fireRestartWaiters()
            }
        case "idle":
            becameIdle()
            loadingFile = false
            seeking = false
            fireRestartWaiters()
            scheduleSync()
        default:
            break
        }
    }

    func fireRestartWaiters() {
        let waiters = restartWaiters
        restartWaiters.removeAll()
        for w in waiters { w() }
    }

    /// Runs `then` at mpv's next playback restart, or after `timeoutMS` whatever happens.
    func afterRestart(timeoutMS: UInt64, _ then: @escaping () -> Void) {
        var done = false
        let timer = try? Timer(loop: loop)
        let once = {
            guard !done else { return }
            done = true
            timer?.close()
            then()
        }
        restartWaiters.append(once)
        timer?.start(after: timeoutMS) { [weak self] in
            self?.seeking = false
            once()
        }
    }

    // MARK: - Restore

    private func beginRestore(_ r: Restore, _ c: MPVConnection) {
        guard !r.urls.isEmpty else { restore = nil; return scheduleSync() }
        restoreStage = .loading
        restoreAttempts = 0
        holdSince = EventLoop.hrtime()
        // Paused while it loads and seeks, so nothing is heard from the wrong place.
        c.command(["set_property", "pause", true])
        c.command(["set_property", "loop-file", r.loopFile ? "inf" : "no"])
        c.command(["set_property", "loop-playlist", r.loopPlaylist ? "inf" : "no"])
        // Before the files, so nothing is heard at another level. (mpv refusing a level past its
        // volume-max, from a state file edited by hand, refuses that command only.)
        if let v = r.volume { c.command(["set_property", "volume", .double(v)]) }
        if let m = r.mute { c.command(["set_property", "mute", .bool(m)]) }
        for url in r.urls { c.command(["loadfile", .string(url), "append"]) }
        c.command(["playlist-play-index", .int(Int64(min(r.index, r.urls.count - 1)))])
    }

    /// A playback restart during a restore: seek once loaded, unpause once seeked. True if the
    /// restart belonged to the restore.
    private func advanceRestore() -> Bool {
        guard let stage = restoreStage, let r = restore, let c = connection else { return false }
        guard stage == .loading else {
            finishRestore()
            return false
        }
        // Just after start-up mpv sometimes starts the first appended entry itself, ahead of our
        // playlist-play-index (seen in about 1 of 4 fresh starts): check which entry is playing
        // and select the right one again, a few times at most, before seeking.
        let want = min(r.index, r.urls.count - 1)
        c.get("playlist-pos") { [weak self] result in
            guard let self, self.restoreStage == .loading, self.restore != nil, let c = self.connection else { return }
            let pos = (try? result.get())?.intValue ?? -1
            if pos != want && self.restoreAttempts < 3 {
                self.restoreAttempts += 1
                self.log("mpv for session \(self.session) started entry \(pos + 1), not \(want + 1); selecting it again")
                c.command(["playlist-play-index", .int(Int64(want))])
                return  // its playback restart comes back here
            }
            if r.position > 0.5 {
                self.restoreStage = .seeking
                self.seeking = true
                c.command(["seek", .double(r.position), "absolute+exact"])
            } else {
                self.finishRestore()
                self.fireRestartWaiters()
            }
        }
        return true
    }

    private func finishRestore() {
        guard let r = restore else { return }
        restore = nil
        restoreStage = nil
        if !r.paused { connection?.command(["set_property", "pause", false]) }
        log("mpv for session \(session) restored: item \(r.index + 1) of \(r.urls.count) at \(Int(r.position)) s")
        scheduleSync()
    }

    // MARK: - Commands and loading

    /// Handles one remote command; `reply` gets the status once mpv acknowledged (and, for
    /// seeks and track changes, once playback restarted) and the host has the new state.
    func perform(_ event: JSON, _ reply: @escaping (CommandStatus) -> Void) {
        guard phase == .running, let c = connection, restoreStage == nil else { return reply(.commandFailed) }
        let plan: MPVCommandPlan
        switch MPVCommandPlan.make(event, state: state, elapsed: inferredElapsed) {
        case .failure(let s): return reply(s.status)
        case .success(let p): plan = p
        }
        if let s = plan.shuffle { state.shuffle = s }
        // Going idle ends the queue there: the report says the end of this item (see MPVState).
        if plan.endsQueue { state.endedFile = state.current?.filename }
        if plan.commands.contains(where: { $0.first == "seek" }) {
            seeking = true
            holdSince = EventLoop.hrtime()
        }
        var refused: MPVError?
        for (i, command) in plan.commands.enumerated() {
            let last = i == plan.commands.count - 1
            c.command(command) { [weak self] result in
                if case .failure(let e) = result, refused == nil { refused = e }
                guard last, let self else { return }
                // mpv went away (died, or hung and killed) before answering: nothing was done.
                if c.isClosed { return reply(.commandFailed) }
                if let e = refused, !plan.ignoresRefusal {
                    self.seeking = false
                    self.log("mpv refused \(command.first?.stringValue ?? "?") in session \(self.session): \(e.message)")
                    return self.syncNow { reply(plan.refusedStatus) }
                }
                // (The queue ended already: mpv went idle before its answer was read.)
                if plan.endsQueue, self.state.idleActive, self.state.playlistPos < 0 {
                    self.syncNow { reply(.success) }
                } else if plan.awaitsRestart {
                    self.afterRestart(timeoutMS: 1200) { self.syncNow { reply(.success) } }
                } else {
                    self.syncNow { reply(.success) }
                }
            }
        }
    }

    /// An audio interruption of the session: mpv pauses, and resumes at its end if it was
    /// playing and the interrupter says so. (The host does not pause an external player.)
    func interruption(began: Bool, shouldResume: Bool) {
        guard let c = connection else { return }
        if began {
            if state.isPlaying {
                pausedByInterruption = true
                c.command(["set_property", "pause", true])
            }
        } else if pausedByInterruption {
            pausedByInterruption = false
            if shouldResume { c.command(["set_property", "pause", false]) }
        }
    }
}
