import PlayerHostPluginAPI

/// The host's requests (remote commands, queue edits, interruptions) and mpv's replies: every
/// command whose reply matters carries a tag (`Purpose`), and every tag is settled exactly once —
/// by its reply, or as failed when the connection goes (`settleAwaiting`), so no host request
/// is ever left unanswered.
extension MPVSessionMachine {
    // MARK: - Remote commands

    /// One remote command: answered with its status once mpv acknowledged it (and, for seeks and
    /// track changes, once playback restarted) and the report is sent.
    mutating func perform(_ token: Token, _ event: JSON) {
        guard phase == .running(restore: nil), link == .up else { return emit(.answer(token, .command(.commandFailed))) }
        let plan: MPVCommandPlan
        switch MPVCommandPlan.make(event, state: state, elapsed: inferredElapsed) {
        case .failure(let s): return emit(.answer(token, .command(s.status)))
        case .success(let p): plan = p
        }
        if let s = plan.shuffle { state.shuffle = s }
        // Going idle ends the queue there: the report says the end of this item (see MPVState).
        if plan.endsQueue { state.endedFile = state.current?.filename }
        if plan.commands.contains(where: { $0.first == "seek" }) {
            seeking = true
            holdSince = now
        }
        sendBatch(plan.commands, .perform(token, plan))
    }

    private mutating func sendBatch(_ commands: [[JSON]], _ kind: Batch.Kind) {
        let id = nextID()
        batches[id] = Batch(kind: kind, commands: commands)
        for (i, command) in commands.enumerated() { send(command, for: .batch(id, index: i)) }
    }

    /// The reply to one command of a batch; the last one answers.
    private mutating func batchReply(_ id: Int, index: Int, _ result: Result<JSON, MPVError>, live: Bool) {
        guard var batch = batches[id] else { return }
        if case .failure(let e) = result, batch.firstError == nil {
            switch batch.kind {
            case .perform:
                batch.firstError = e
            case .edit:
                let command = batch.commands[index]
                let what = command.first?.stringValue ?? "?"
                let arg = command.count > 1 ? " \(command[1].stringValue ?? command[1].jsonString)" : ""
                batch.firstError = MPVError("\(what)\(arg): \(e.message)")
            }
        }
        guard index == batch.commands.count - 1 else {
            batches[id] = batch
            return
        }
        batches[id] = nil
        switch batch.kind {
        case .perform(let token, let plan):
            let answer = { (s: CommandStatus) in RestartWaiter(token: token, answer: .command(s)) }
            // mpv went away (died, or hung and killed) before answering: nothing was done.
            guard live else { return emit(.answer(token, .command(.commandFailed))) }
            if let e = batch.firstError, !plan.ignoresRefusal {
                seeking = false
                let last = batch.commands.last?.first?.stringValue ?? "?"
                emit(.log("mpv refused \(last) in session \(session): \(e.message)"))
                return syncNow(answer(plan.refusedStatus))
            }
            // (The queue ended already: mpv went idle before its answer was read.)
            if plan.endsQueue, state.idleActive, state.playlistPos < 0 {
                syncNow(answer(.success))
            } else if plan.awaitsRestart {
                afterRestart(timeoutMS: 1200, answer(.success))
            } else {
                syncNow(answer(.success))
            }
        case .edit(let token, let wait):
            if let e = batch.firstError { return syncNow(RestartWaiter(token: token, answer: .edit(.failure(.mpv(e))))) }
            let done = RestartWaiter(token: token, answer: .edit(.success(())))
            if wait == .restart {
                afterRestart(timeoutMS: 5000, done)
            } else {
                syncNow(done)
            }
        }
    }

    // MARK: - Queue edits

    /// Runs `edit` once mpv's IPC is up (at once if it is), starting mpv if needed.
    mutating func whenReady(_ token: Token, _ edit: Edit) {
        if isRunning {
            switch link {
            case .up: return runEdit(token, edit)
            // Its socket closed and it is being killed: what it read is lost with it.
            case .lost: return emit(.answer(token, .edit(.failure(.mpv(MPVError("mpv went away"))))))
            case .none: break
            }
        }
        waitingForMPV.append((token, edit))
        if phase == .stopped || isFailed { start() }
    }

    private var isFailed: Bool {
        if case .failed = phase { return true }
        return false
    }

    /// Reads mpv's `playlist-count` and `playlist-pos` (the mirror can be an event behind),
    /// then sends what the plan makes of them.
    mutating func runEdit(_ token: Token, _ edit: Edit) {
        guard link == .up else { return emit(.answer(token, .edit(.failure(.mpv(MPVError("mpv is not running")))))) }
        let id = nextID()
        edits[id] = (token, edit, 0)
        get("playlist-count", for: .editCount(id))
        // mpv answers in order: by this answer the count is in.
        get("playlist-pos", for: .editPosition(id))
    }

    /// mpv's numbers, bounded before any arithmetic on them (a playlist is far smaller).
    static func bounded(_ v: Int?, _ fallback: Int) -> Int { min(max(v ?? fallback, -1), Int(Int32.max)) }

    private mutating func editPosition(_ id: Int, _ result: Result<JSON, MPVError>, live: Bool) {
        guard let e = edits.removeValue(forKey: id) else { return }
        guard live else { return emit(.answer(e.token, .edit(.failure(.mpv(MPVError("mpv went away")))))) }
        let position = Self.bounded((try? result.get())?.intValue, -1)
        let planned: Result<[[JSON]], MPVQueuePlan.OutOfRange>
        switch e.edit.plan {
        case .load(let urls, let mode): planned = .success(MPVQueuePlan.load(urls, mode: mode, count: e.count, position: position))
        case .queue(let edit): planned = MPVQueuePlan.commands(edit, count: e.count)
        }
        switch planned {
        case .failure(let range): emit(.answer(e.token, .edit(.failure(.outOfRange(range)))))
        case .success(let commands):
            guard !commands.isEmpty else { return syncNow(RestartWaiter(token: e.token, answer: .edit(.success(())))) }
            sendBatch(commands, .edit(e.token, e.edit.wait))
        }
    }

    // MARK: - Replies

    /// The reply to tag `tag`; `live` false when the connection went before it came.
    mutating func reply(_ tag: Int, _ raw: Result<JSON, MPVError>, live: Bool) {
        guard let purpose = awaiting.removeValue(forKey: tag) else { return }
        var result = raw
        // A property mpv has not now (e.g. while idle) reads as null.
        if purpose.isGet, case .failure(let e) = raw, e.message == "property unavailable" { result = .success(.null) }
        switch purpose {
        case .restorePosition:
            if live { restorePosition(result) }
        case .batch(let id, let index):
            batchReply(id, index: index, result, live: live)
        case .editCount(let id):
            edits[id]?.count = max(0, Self.bounded((try? result.get())?.intValue, 0))
        case .editPosition(let id):
            editPosition(id, result, live: live)
        case .sync(let name):
            syncValue(name, result, live: live)
        }
    }

    /// The connection went: every reply awaited fails, in the order the commands were sent.
    mutating func settleAwaiting() {
        for tag in awaiting.keys.sorted() {
            reply(tag, .failure(MPVError("the connection to mpv closed")), live: false)
        }
    }

    // MARK: - Interruptions

    /// An audio interruption of the session: mpv pauses, and resumes at its end if it was
    /// playing and the interrupter says so. (The host does not pause an external player.)
    mutating func interruption(began: Bool, shouldResume: Bool) {
        guard link != .none else { return }
        if began {
            if state.isPlaying {
                pausedByInterruption = true
                send(["set_property", "pause", true])
            }
        } else if pausedByInterruption {
            pausedByInterruption = false
            if shouldResume { send(["set_property", "pause", false]) }
        }
    }
}
