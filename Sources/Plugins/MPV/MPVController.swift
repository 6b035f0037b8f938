import Glibc
import PlayerHostPluginAPI

/// One mpv session's player: the driver of its `MPVSessionMachine`. It owns what the machine
/// only names — the `mpv` child process, its IPC connection (`MPVConnection`), the timers (from
/// the loop's `Scheduler`), the reply closures of host requests — carries out the machine's
/// actions in order, and feeds back what happens. Every decision (when to restart, what to
/// restore, when to report, how to answer) is the machine's.
final class MPVController {
    let session: String
    let loop: EventLoop
    let scheduler: Scheduler
    let options: MPVOptions
    let socketPath: String
    var audioOutput: String?
    var videoOutput: String?
    /// Sends one `player.sync` (params without `session`); `done` runs once it is sent (the host
    /// applies it before anything the plugin sends after it).
    var report: (_ params: [String: JSON], _ done: @escaping () -> Void) -> Void = { _, done in done() }
    var log: (String) -> Void = { _ in }

    private(set) var machine: MPVSessionMachine
    private var process: ChildProcess?
    private var connection: MPVConnection?
    private let timers: MachineTimers<MPVSessionMachine.TimerID>
    /// Reply closures of host requests, by the machine's token.
    private var replies: [MPVSessionMachine.Token: (MPVSessionMachine.Answer) -> Void] = [:]
    private var nextToken = 1
    /// Inputs waiting while the actions of another are carried out (an action's outcome, such as
    /// a failed spawn, is handled after the actions decided before it).
    private var queue: [MPVSessionMachine.Input] = []
    private var handling = false

    init(session: String, loop: EventLoop, options: MPVOptions, socketPath: String) {
        self.session = session
        self.loop = loop
        scheduler = loop
        self.options = options
        self.socketPath = socketPath
        machine = MPVSessionMachine(session: session, restartPolicy: options.restartPolicy, answerTimeoutMS: options.answerTimeoutMS)
        timers = MachineTimers(scheduler: loop)
        timers.onFire = { [weak self] id in self?.feed(.timer(id)) }
    }

    /// Set when the plugin detaches: the socket directory is removed once mpv has exited.
    var removesDirectoryOnExit: Bool {
        get { machine.removesDirectoryOnExit }
        set { machine.removesDirectoryOnExit = newValue }
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
        let state = machine.state
        var o: [String: JSON] = [
            "session": .string(session), "phase": .string(machine.phase.name), "socket": .string(socketPath),
            "restarts": .int(Int64(machine.restarts)), "playlistCount": .int(Int64(state.playlist.count)),
            "playlistPos": .int(Int64(state.playlistPos)), "paused": .bool(state.pause),
        ]
        if let pid { o["pid"] = .int(Int64(pid)) }
        return .object(o)
    }

    // MARK: - What the host asks

    /// Starts mpv unless it runs (or is being started).
    func start() { feed(.start) }

    /// Stops mpv for good (session closed, plugin detached): SIGTERM, SIGKILL if it is still
    /// there a second later. The process handle stays until the exit so the child is reaped.
    func stop() { feed(.stop) }

    /// Handles one remote command; `reply` gets the status once mpv acknowledged (and, for
    /// seeks and track changes, once playback restarted) and the host has the new state.
    func perform(_ event: JSON, _ reply: @escaping (CommandStatus) -> Void) {
        let token = hold { answer in
            if case .command(let s) = answer { reply(s) } else { reply(.commandFailed) }
        }
        feed(.perform(token, event))
    }

    /// Puts `urls` in the queue as `mode` says; `completion` gets nil once mpv took them (and,
    /// for `replace`, once the first plays and the host knows it).
    func load(_ urls: [String], mode: MPVQueuePlan.LoadMode, _ completion: @escaping (MPVError?) -> Void) {
        edit(.init(plan: .load(urls, mode), wait: mode == .replace ? .restart : .acknowledged)) { result in
            switch result {
            case .success: completion(nil)
            case .failure(.mpv(let e)): completion(e)
            case .failure(.outOfRange(let e)): completion(MPVError(e.message))
            }
        }
    }

    /// Plans `edit` against mpv's `playlist-count` and `playlist-pos`, sends it, and answers
    /// once mpv acknowledged it all (and, with `.restart`, playback restarted) and the host has
    /// the report. Starts mpv if it is not running.
    func edit(_ edit: MPVSessionMachine.Edit, _ completion: @escaping (Result<Void, MPVSessionMachine.EditFailure>) -> Void) {
        let token = hold { answer in
            if case .edit(let r) = answer { completion(r) } else { completion(.failure(.mpv(MPVError("mpv gave no answer")))) }
        }
        feed(.edit(token, edit))
    }

    /// An audio interruption of the session began or ended.
    func interruption(began: Bool, shouldResume: Bool) {
        feed(.interruption(began: began, shouldResume: shouldResume))
    }

    /// Starts mpv on a kept session: its files, item and position, paused (nothing starts making
    /// sound on its own after a restart). The reopening is mpv's restart path (`Restore`).
    func reopen(_ s: MPVSavedSession, savedAt: Double?) {
        audioOutput = s.audioOutput
        videoOutput = s.videoOutput
        let r = MPVSessionMachine.Restore(urls: s.urls, index: s.index, position: s.position(savedAt: savedAt), paused: true,
                                          loopFile: s.loopFile, loopPlaylist: s.loopPlaylist,
                                          volume: s.volume * 100, mute: s.muted)
        feed(.reopen(r, shuffle: s.shuffle))
    }

    /// What to keep of this session now, or nil when it has nothing to play.
    var saved: MPVSavedSession? {
        guard var s = machine.saved(now: scheduler.nowNanoseconds, wallClock: Self.wallClock()) else { return nil }
        s.shuffle = machine.state.shuffle
        s.audioOutput = audioOutput
        s.videoOutput = videoOutput
        return s
    }

    static func wallClock() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    private func hold(_ reply: @escaping (MPVSessionMachine.Answer) -> Void) -> MPVSessionMachine.Token {
        let token = nextToken
        nextToken += 1
        replies[token] = reply
        return token
    }

    // MARK: - Driving the machine

    /// Hands `input` to the machine and carries out its actions, then any input they caused.
    private func feed(_ input: MPVSessionMachine.Input) {
        queue.append(input)
        guard !handling else { return }
        handling = true
        defer { handling = false }
        while !queue.isEmpty {
            let next = queue.removeFirst()
            for action in machine.handle(next, now: scheduler.nowNanoseconds) { carryOut(action) }
        }
    }

    private func carryOut(_ action: MPVSessionMachine.Action) {
        switch action {
        case .spawn: spawn()
        case .connect: connect()
        case .kill(let signal): try? process?.kill(signal)
        case .closeConnection:
            connection?.close()
            connection = nil
        case .unlinkSocket: unlink(socketPath)
        case .removeSocketDirectory: rmdir(SocketLocation.directory(of: socketPath))
        case .send(let command, let tag):
            guard let c = connection, !c.isClosed else {
                // (The machine sends only on a live link; should it not, the reply still comes.)
                if let tag { queue.append(.reply(tag, .failure(MPVError("the connection to mpv is closed")))) }
                return
            }
            guard let tag else { return c.command(command) }
            c.command(command) { [weak self] result in self?.feed(.reply(tag, result)) }
        case .report(let params): report(params) {}
        case .arm(let id, let ms): timers.arm(id, afterMS: ms)
        case .cancel(let id): timers.cancel(id)
        case .answer(let token, let answer):
            replies.removeValue(forKey: token)?(answer)
        case .log(let line): log(line)
        }
    }

    private func spawn() {
        let (program, args) = options.command(socket: socketPath, audioOutput: audioOutput, videoOutput: videoOutput)
        do {
            // A clean environment and a directory of its own (the private 0700 one holding its
            // socket): whatever mpv writes by itself lands there, not in the daemon's directory.
            process = try ChildProcess(loop: loop, executable: program, arguments: args,
                                       environment: options.environment,
                                       workingDirectory: SocketLocation.directory(of: socketPath),
                                       stdio: [.ignore, .ignore, .inherit],
                                       // Strong on purpose: a stopped controller dropped by the plugin
                                       // lives until its mpv exits, to reap it and close its handles.
                                       onExit: { exit in self.exited(exit) })
        } catch {
            return queue.append(.spawnFailed("\(error)"))
        }
        queue.append(.spawned)
    }

    private func connect() {
        guard let p = process else { return }
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
            case .failure(let e): self.feed(.connectFailed(pid: p.pid, e.message))
            }
        }
    }

    private func connected(_ c: MPVConnection) {
        connection?.close()
        connection = c
        c.answerTimeoutMS = options.answerTimeoutMS
        c.onEvent = { [weak self] name, o in self?.feed(.event(name, o)) }
        c.onHung = { [weak self] in self?.feed(.hung) }
        c.onClosed = { [weak self] in self?.feed(.connectionClosed) }
        feed(.connected)
    }

    private func exited(_ exit: ChildProcess.Exit) {
        process?.close()
        process = nil
        feed(.exited(exit.signal != 0 ? "killed by signal \(exit.signal)" : "exited with status \(exit.status)"))
    }
}
