import PlayerHostBase

/// How a pending request ended.
public enum PendingOutcome<Reply> {
    /// Its answer came in time.
    case reply(Reply)
    /// Its deadline passed first; a later answer is dropped.
    case timedOut
    /// It was given up (the channel closed, the host shut down), with why.
    case cancelled(String)
}

/// Requests waiting for their answers, each bounded by its own deadline: the host's one
/// "request with a timeout" — for JSON-RPC peers (`RPCConnection`), mpv's IPC, the artwork
/// helper and plugins' provided methods alike.
///
/// Each request settles exactly once: with its reply, with `timedOut` when its deadline passes,
/// or `cancelled` (one request, or all when the channel closes). Whatever comes for it later is
/// reported as unknown (`complete` returns false), so a late answer can never run a completion
/// twice. Completions run on the scheduler's thread: a reply's in the caller's stack, a timeout's
/// from the timer; `cancelAll` takes every entry out before running any completion (in the order
/// they were added), so one that sends a new request does not see the old ones.
public final class PendingRequests<ID: Hashable, Reply> {
    public typealias Completion = (PendingOutcome<Reply>) -> Void

    private struct Entry {
        let completion: Completion
        let timer: HostTimer?
        /// Order of `add`, so `cancelAll` fails requests in the order they were made.
        let sequence: UInt64
    }

    /// Whose timers keep the deadlines of requests added from now on. Nil (a channel not yet
    /// given one: an `RPCConnection` before its transport starts, tests of the protocol alone)
    /// keeps none, as a closed scheduler that makes no timer: such requests end with their answer
    /// or a cancellation.
    public var scheduler: Scheduler?
    private var entries: [ID: Entry] = [:]
    private var nextSequence: UInt64 = 0

    /// Requests whose deadlines `scheduler`'s timers keep.
    public init(scheduler: Scheduler?) {
        self.scheduler = scheduler
    }

    /// Requests still waiting.
    public var count: Int { entries.count }

    /// Whether `id` still waits.
    public func contains(_ id: ID) -> Bool { entries[id] != nil }

    /// The ids still waiting, in no particular order.
    public var ids: [ID] { Array(entries.keys) }

    /// Starts waiting for `id`'s answer; `completion` runs once with its outcome. With a timeout,
    /// `timedOut` comes after `timeoutMilliseconds` unless the answer came first (nil: no
    /// deadline, for requests some other bound ends). Returns false, and registers nothing, if
    /// `id` is already waiting.
    @discardableResult
    public func add(_ id: ID, timeoutMilliseconds: UInt64?, completion: @escaping Completion) -> Bool {
        guard entries[id] == nil else { return false }
        var timer: HostTimer?
        if let timeoutMilliseconds {
            timer = scheduler?.makeTimer()
            timer?.start(after: timeoutMilliseconds) { [weak self] in
                self?.settle(id, .timedOut)
            }
        }
        nextSequence &+= 1
        entries[id] = Entry(completion: completion, timer: timer, sequence: nextSequence)
        return true
    }

    /// Settles `id` with its answer. False when `id` is not waiting (never asked, already
    /// answered, timed out or cancelled): the caller drops the answer.
    @discardableResult
    public func complete(_ id: ID, with reply: Reply) -> Bool {
        settle(id, .reply(reply))
    }

    /// Gives up on `id`; false when it was not waiting.
    @discardableResult
    public func cancel(_ id: ID, reason: String) -> Bool {
        settle(id, .cancelled(reason))
    }

    /// Gives up on every waiting request (the channel closed), in the order they were added.
    public func cancelAll(reason: String) {
        guard !entries.isEmpty else { return }
        let all = entries.values.sorted { $0.sequence < $1.sequence }
        entries.removeAll()
        for entry in all {
            entry.timer?.close()
            entry.completion(.cancelled(reason))
        }
    }

    @discardableResult
    private func settle(_ id: ID, _ outcome: PendingOutcome<Reply>) -> Bool {
        guard let entry = entries.removeValue(forKey: id) else { return false }
        entry.timer?.close()
        entry.completion(outcome)
        return true
    }
}
