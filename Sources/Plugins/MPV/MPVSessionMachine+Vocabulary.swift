import PlayerHostPluginAPI

/// The session machine's vocabulary: its inputs and actions, its timers, the host requests it
/// answers and what a tagged reply is for.
extension MPVSessionMachine {
    /// The machine's timers; the driver keeps one scheduler timer per id.
    enum TimerID: Hashable {
        /// The backoff before starting mpv again.
        case restart
        /// mpv did not say it is idle within 3 s of the IPC coming up: go on anyway.
        case idle
        /// The next report (`scheduleSync`).
        case sync
        /// SIGKILL for a stopped mpv still there a second after SIGTERM.
        case kill
        /// The deadline of one restart waiter (`afterRestart`).
        case afterRestart(Int)
    }

    /// A host request the driver holds the reply closure of.
    typealias Token = Int

    /// What a queue edit asks of mpv's playlist, planned against mpv's own count and position.
    enum EditPlan: Equatable {
        /// `mpv.open`'s files in a mode (`MPVQueuePlan.load`).
        case load([String], MPVQueuePlan.LoadMode)
        /// One of the queue verbs (`MPVQueuePlan.commands`).
        case queue(MPVQueuePlan.Edit)
    }

    /// Where an edit's answer waits for: mpv's acknowledgement only, or also the playback
    /// restart of the item it started (so the answer, and the report before it, show that item).
    enum EditWait: Equatable { case acknowledged, restart }

    /// A queue edit.
    struct Edit: Equatable {
        var plan: EditPlan
        var wait: EditWait
    }

    /// Why an edit was not done: an index outside the queue (nothing sent), or mpv's refusal.
    enum EditFailure: Error, Equatable {
        case outOfRange(MPVQueuePlan.OutOfRange)
        case mpv(MPVError)
    }

    /// The answer to a host request.
    enum Answer: Equatable {
        case command(CommandStatus)
        case edit(Result<Void, EditFailure>)

        static func == (a: Answer, b: Answer) -> Bool {
            switch (a, b) {
            case (.command(let x), .command(let y)): x == y
            case (.edit(.success), .edit(.success)): true
            case (.edit(.failure(let x)), .edit(.failure(let y))): x == y
            default: false
            }
        }
    }

    /// What happens to the machine.
    enum Input {
        /// Start mpv unless it runs (or is being started).
        case start
        /// Stop mpv for good (session closed, plugin detached).
        case stop
        /// Start mpv on a session kept across a daemon restart.
        case reopen(Restore, shuffle: String)
        /// The driver spawned mpv (after `spawn`).
        case spawned
        /// mpv could not be spawned.
        case spawnFailed(String)
        /// The IPC connection is up.
        case connected
        /// mpv's socket never accepted (`pid` for the log).
        case connectFailed(pid: Int32, String)
        /// The connection closed from mpv's side.
        case connectionClosed
        /// A command went unanswered past the answer timeout (the connection is closed).
        case hung
        /// mpv exited, described (`exited with status 1`, `killed by signal 9`).
        case exited(String)
        /// An mpv event by name with its whole object.
        case event(String, [String: JSON])
        /// The reply to the command sent with this tag.
        case reply(Int, Result<JSON, MPVError>)
        /// A timer fired.
        case timer(TimerID)
        /// A remote command (`command.handle`'s params) to answer with a status.
        case perform(Token, JSON)
        /// A queue edit to answer once done.
        case edit(Token, Edit)
        /// An audio interruption of the session began or ended.
        case interruption(began: Bool, shouldResume: Bool)
    }

    /// What the driver does, in order.
    enum Action: Equatable {
        /// Spawn mpv; answer with `spawned` or `spawnFailed`.
        case spawn
        /// Connect to mpv's socket; answer with `connected` or `connectFailed`.
        case connect
        /// Send a signal to mpv.
        case kill(Int32)
        /// Close the IPC connection (its pending replies are dropped: the machine settled them).
        case closeConnection
        /// Remove mpv's socket file.
        case unlinkSocket
        /// Remove the private socket directory (the plugin is gone).
        case removeSocketDirectory
        /// Send an IPC command; with a tag, its reply comes back as `reply(tag, …)`.
        case send([JSON], tag: Int?)
        /// Send a `player.sync` report (params without `session`).
        case report([String: JSON])
        /// Arm (or re-arm) a timer.
        case arm(TimerID, afterMS: UInt64)
        /// Disarm a timer.
        case cancel(TimerID)
        /// Answer a host request.
        case answer(Token, Answer)
        /// A line for the log.
        case log(String)
    }

    /// What a tagged command's reply is for.
    enum Purpose: Equatable {
        /// `playlist-pos` during a restore's loading.
        case restorePosition
        /// One command of a batch (a remote command's or an edit's commands).
        case batch(Int, index: Int)
        /// An edit's read of `playlist-count`, then of `playlist-pos`.
        case editCount(Int)
        case editPosition(Int)
        /// One property of a report being read.
        case sync(String)

        /// Whether the command was a `get_property` (mpv's "property unavailable" reads null).
        var isGet: Bool {
            if case .batch = self { return false }
            return true
        }
    }

    /// A batch of commands answered once the last one is.
    struct Batch: Equatable {
        enum Kind: Equatable {
            case perform(Token, MPVCommandPlan)
            case edit(Token, EditWait)
        }
        var kind: Kind
        var commands: [[JSON]]
        var firstError: MPVError?
    }

    /// What runs at mpv's next playback restart (or its deadline): report, then answer.
    struct RestartWaiter: Equatable {
        var token: Token
        var answer: Answer
    }

    /// A report being read from mpv.
    struct SyncRound: Equatable {
        var waiting: [RestartWaiter]
        var fresh: [String: JSON] = [:]
    }

    /// The position readers infer from: `elapsed` at `at` (ns), moving at `rate`.
    struct Anchor: Equatable {
        var elapsed: Double
        var rate: Double
        var at: UInt64
    }
}
