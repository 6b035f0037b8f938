import Glibc
import PlayerHostPluginAPI

/// One mpv session's player as a pure state machine: what phase the session's mpv is in, what
/// it waits for, and what to do about each thing that happens.
///
/// Inputs (`Input`) are what the host asks (start, stop, a remote command, a queue edit), what
/// the process and its IPC do (spawned, connected, closed, hung, exited), what mpv says (events,
/// replies) and timers firing. Each `handle(_:now:)` returns the actions (`Action`) to carry
/// out, in order: spawn or signal mpv, send an IPC command (tagged when its reply matters), send
/// a `player.sync` report, arm or cancel a timer, answer a host request, log. `MPVController`
/// is the thin driver that carries them out and feeds back what happens; nothing here reads a
/// clock (time is `now`, the scheduler's monotonic nanoseconds) or touches a descriptor, so
/// every phase is tested as a table (MPVSessionMachineTests).
///
/// It supervises mpv: when mpv dies the session is reported `failed`, mpv is started again under
/// the `RestartPolicy` (doubling backoff; the fifth quick death in a row gives up, phase failed,
/// until the next edit), and the queue, item, position, pause state, modes and volume are
/// restored. An mpv that stops answering (`hung`) is killed and counts as a death.
struct MPVSessionMachine {
    /// Where the session's mpv is.
    enum Phase: Equatable {
        /// Not running and not wanted (never started, or stopped); a stopped mpv may still be
        /// exiting (`processAlive`).
        case stopped
        /// mpv was spawned; its socket is not reached yet.
        case connecting
        /// The IPC is up; mpv's play loop has not said it is idle yet (a playlist filled before
        /// then is started from its first entry whatever we ask).
        case awaitingIdle
        /// mpv runs and takes commands; `restore` is the stage of a restore under way.
        case running(restore: RestoreStage?)
        /// mpv died; the `restart` timer starts it again after the backoff.
        case restarting(afterMS: UInt64)
        /// mpv kept dying: given up until someone asks for it again.
        case failed(String)

        /// The name `mpv.status` shows.
        var name: String {
            switch self {
            case .stopped: "stopped"
            case .connecting, .awaitingIdle: "starting"
            case .running: "running"
            case .restarting: "restarting"
            case .failed: "failed"
            }
        }
    }

    /// Where a restore stands: loading the item (re-selected that many times: mpv's start-up
    /// race), then seeking to the position.
    enum RestoreStage: Equatable {
        case loading(reselected: Int)
        case seeking
    }

    /// What to put back after mpv died, or from a session kept across a daemon restart.
    struct Restore: Equatable {
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

    /// The IPC connection as the machine knows it.
    enum Link: Equatable {
        /// None (not connected yet, closed by us, or hung and dropped).
        case none
        /// Up: commands go out and replies come back.
        case up
        /// Closed from mpv's side while the process still runs (it is being killed).
        case lost
    }

    // MARK: - State
    // (Internal, not private: the machine spans a few files, and its tests read where it stands.
    // The driver reads `phase`, `restarts` and `state` and sets `removesDirectoryOnExit`; the rest
    // only the machine's own methods write.)

    let session: String
    /// How long a command may wait for its answer (for the log of a hung mpv).
    let answerTimeoutMS: UInt64
    var phase: Phase = .stopped
    var link: Link = .none
    /// mpv's process exists (spawned, not exited yet).
    var processAlive = false
    var restartPolicy: RestartPolicy
    var startedAt: UInt64 = 0
    /// Why mpv was killed by us while it should run (it stopped answering), for the death's log.
    var killedBecause: String?
    var restarts = 0
    /// The mirror of mpv's state.
    var state = MPVState()
    /// What to put back once mpv is up (after a death, or a daemon restart).
    var restore: Restore?
    /// Edits waiting for mpv's IPC (started, restarting): each is answered on every path.
    var waitingForMPV: [(token: Token, edit: Edit)] = []
    /// Replies awaited, by tag.
    var awaiting: [Int: Purpose] = [:]
    var nextTag = 1
    var batches: [Int: Batch] = [:]
    var edits: [Int: (token: Token, edit: Edit, count: Int)] = [:]
    /// Ids of batches, edits and restart waiters.
    var nextRound = 1
    /// Waiters for mpv's next `playback-restart`, by id (in order).
    var restartWaiters: [Int: RestartWaiter] = [:]
    /// A file is opening: between `start-file` and `playback-restart` its tags are not known yet.
    var loadingFile = false
    /// A file started since the last report: the next one reads its tags too (`tags`).
    var tagsUnread = false
    /// A seek was sent and has not landed: `time-pos` would still say where it was.
    var seeking = false
    var holdSince: UInt64 = 0
    // Reporting (see +Sync).
    var syncScheduled = false
    var syncRound: SyncRound?
    var syncAgain = false
    /// Answers to give once the next report is sent.
    var syncDone: [RestartWaiter] = []
    var lastAnchor: Anchor?
    /// mpv was paused by an audio interruption and should resume when it ends.
    var pausedByInterruption = false
    /// Set when the plugin detaches: the socket directory is removed once mpv has exited.
    var removesDirectoryOnExit = false

    /// The time of the input being handled.
    var now: UInt64 = 0
    var out: [Action] = []

    init(session: String, restartPolicy: RestartPolicy, answerTimeoutMS: UInt64) {
        self.session = session
        self.restartPolicy = restartPolicy
        self.answerTimeoutMS = answerTimeoutMS
    }

    var isRunning: Bool {
        if case .running = phase { return true }
        return false
    }

    var restoreStage: RestoreStage? {
        if case .running(let stage) = phase { return stage }
        return nil
    }

    /// Handles one input at monotonic time `now` (ns); returns what to do, in order.
    mutating func handle(_ input: Input, now: UInt64) -> [Action] {
        self.now = max(self.now, now)
        out = []
        switch input {
        case .start: start()
        case .stop: stop()
        case .reopen(let r, let shuffle):
            state.shuffle = shuffle
            restore = r
            start()
        case .spawned:
            processAlive = true
            startedAt = self.now
            emit(.connect)
        case .spawnFailed(let why):
            emit(.log("cannot start mpv: \(why)"))
            died(reason: "could not start: \(why)")
        case .connected: connected()
        case .connectFailed(let pid, let why):
            emit(.log("no IPC from mpv (pid \(pid)): \(why)"))
            if processAlive { emit(.kill(SIGKILL)) }
        case .connectionClosed:
            // mpv closed its socket but runs: it is wedged; its exit restarts it like any death.
            guard link == .up else { break }
            link = .lost
            settleAwaiting()
            if processAlive { emit(.kill(SIGKILL)) }
        case .hung: hung()
        case .exited(let how): exited(how)
        case .event(let name, let o): event(name, o)
        case .reply(let tag, let result): reply(tag, result, live: true)
        case .timer(let id): timerFired(id)
        case .perform(let token, let event): perform(token, event)
        case .edit(let token, let edit): whenReady(token, edit)
        case .interruption(let began, let shouldResume): interruption(began: began, shouldResume: shouldResume)
        }
        let actions = out
        out = []
        return actions
    }

    mutating func emit(_ action: Action) { out.append(action) }

    /// Sends a command whose reply is for `purpose`.
    mutating func send(_ command: [JSON], for purpose: Purpose) {
        let tag = nextTag
        nextTag += 1
        awaiting[tag] = purpose
        emit(.send(command, tag: tag))
    }

    mutating func get(_ property: String, for purpose: Purpose) {
        send(["get_property", .string(property)], for: purpose)
    }

    /// Sends a command whose reply does not matter.
    mutating func send(_ command: [JSON]) { emit(.send(command, tag: nil)) }

    /// A fresh id for a batch, an edit or a waiter.
    mutating func nextID() -> Int {
        defer { nextRound += 1 }
        return nextRound
    }

    // MARK: - Process

    mutating func start() {
        switch phase {
        case .stopped, .failed, .restarting: break
        case .connecting, .awaitingIdle, .running: return
        }
        guard !processAlive else { return }
        if case .restarting = phase {} else { restartPolicy.reset() }
        phase = .connecting
        startedAt = 0
        killedBecause = nil
        emit(.unlinkSocket)
        emit(.spawn)
    }

    mutating func connected() {
        // (A connection reaching a stopped mpv is not taken: it would make it `running` again.)
        guard phase == .connecting else { return emit(.closeConnection) }
        link = .up
        for (i, name) in MPVState.observed.enumerated() {
            send(["observe_property", .int(Int64(i + 1)), .string(name)])
        }
        // mpv serves IPC before its play loop starts, and a playlist filled before then is
        // started from its first entry whatever we asked: wait until mpv says it is idle.
        phase = .awaitingIdle
        emit(.arm(.idle, afterMS: 3000))
    }

    /// mpv left a command unanswered too long (stopped, wedged): what waited on it has failed;
    /// kill it (SIGKILL ends a stopped process too), and its exit restarts it like any death.
    mutating func hung() {
        guard link != .none else { return }
        link = .none
        settleAwaiting()
        emit(.closeConnection)
        guard processAlive else { return }
        let why = "did not answer within \(answerTimeoutMS) ms"
        killedBecause = why
        emit(.log("mpv for session \(session) \(why); killing it"))
        emit(.kill(SIGKILL))
    }

    /// mpv is up and idle: restore or report, then run what waited for it.
    mutating func becameIdle() {
        guard phase == .awaitingIdle, link == .up else { return }
        emit(.cancel(.idle))
        phase = .running(restore: nil)
        if let r = restore { beginRestore(r) } else { scheduleSync() }
        let work = waitingForMPV
        waitingForMPV.removeAll()
        for w in work { runEdit(w.token, w.edit) }
    }

    /// Answers every edit waiting for mpv with `error` (mpv stopped or gave up).
    mutating func failWaiting(_ error: MPVError) {
        let work = waitingForMPV
        waitingForMPV.removeAll()
        for w in work { emit(.answer(w.token, .edit(.failure(.mpv(error))))) }
    }

    mutating func exited(_ how: String) {
        processAlive = false
        guard phase != .stopped else {
            emit(.cancel(.kill))
            // A killed mpv leaves its socket behind; once the plugin is gone, so is the directory
            // (the last controller to exit empties it).
            emit(.unlinkSocket)
            if removesDirectoryOnExit { emit(.removeSocketDirectory) }
            return
        }
        died(reason: killedBecause ?? how)
    }

    /// Closes our side of the IPC: every reply awaited is settled as failed.
    mutating func dropLink() {
        if link != .none { emit(.closeConnection) }
        link = .none
        settleAwaiting()
    }

    /// mpv is gone: report it, remember what to restore, and start it again after the backoff.
    mutating func died(reason: String) {
        dropLink()
        emit(.cancel(.idle))
        let ranFor = startedAt == 0 || now < startedAt ? 0 : (now - startedAt) / 1_000_000
        let decision = restartPolicy.died(ranForMS: ranFor)
        // A death during a restore keeps the restore it was doing: the state is half-rebuilt.
        if restore == nil, state.hasItems {
            restore = Restore(urls: state.playlist.map(\.filename), index: state.playlistPos >= 0 ? state.playlistPos : state.lastIndex,
                              position: inferredElapsed ?? 0, paused: state.pause,
                              loopFile: state.loopFile, loopPlaylist: state.loopPlaylist,
                              volume: state.volume, mute: state.mute)
        }
        if isRunning { phase = .running(restore: nil) }
        loadingFile = false
        seeking = false
        fireRestartWaiters()
        reportFailure()
        guard case .restart(let delay) = decision else {
            phase = .failed(reason)
            emit(.log("mpv for session \(session) \(reason); gave up after \(restartPolicy.quickDeaths) quick failures in a row"))
            failWaiting(MPVError("mpv keeps dying (\(reason)); gave up after \(restartPolicy.quickDeaths) quick failures in a row"))
            return
        }
        phase = .restarting(afterMS: delay)
        restarts += 1
        emit(.log("mpv for session \(session) \(reason); restarting in \(delay) ms"))
        emit(.arm(.restart, afterMS: delay))
    }

    /// Stops mpv for good: SIGTERM, SIGKILL if it is still there a second later. The process
    /// stays the driver's until its exit, so the child is reaped.
    mutating func stop() {
        phase = .stopped
        emit(.cancel(.restart))
        emit(.cancel(.idle))
        emit(.cancel(.sync))
        syncScheduled = false
        dropLink()
        failWaiting(MPVError("the session's mpv was stopped"))
        fireRestartWaiters()
        releaseSyncWaiters()
        emit(.unlinkSocket)
        guard processAlive else { return }
        emit(.kill(SIGTERM))
        emit(.arm(.kill, afterMS: 1000))
    }

    mutating func timerFired(_ id: TimerID) {
        switch id {
        case .restart:
            if case .restarting = phase { start() }
        case .idle: becameIdle()
        case .sync: flushSync()
        case .kill: if processAlive { emit(.kill(SIGKILL)) }
        case .afterRestart(let waiter):
            // The restart did not come: whatever seek was pending has landed or never will.
            guard restartWaiters[waiter] != nil else { return }
            seeking = false
            resolveWaiter(waiter)
        }
    }
}
