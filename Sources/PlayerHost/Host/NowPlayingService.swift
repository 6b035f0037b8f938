import Logging
import PlayerHostBase
import PlayerHostLoop
import PlayerHostModel
import PlayerHostRPC

/// Runs the pure `NowPlayingModel` on the host's scheduler (libuv's loop in the daemon, a manual
/// clock in the embedded host): every operation goes through `perform`, which
/// reads the injected clock, applies the model's actions (one deadline timer; `command.handle`
/// requests to out-of-process targets, each with a timeout) and hands its events to the
/// `Publisher`. Nothing here ticks: the timer is armed only while something plays.
public final class NowPlayingService {
    public private(set) var model: NowPlayingModel
    /// Where timers and now come from.
    let scheduler: Scheduler
    let logger: Logger
    /// The monotonic clock the model reads: the scheduler's now. Tests may replace it.
    public var clock: () -> MonotonicInstant
    /// How long an out-of-process target may take before its status is `commandFailed`.
    public var commandTimeoutMilliseconds: UInt64 = 2000
    /// Finds the connection of a client id (the server's table).
    var connection: (ClientID) -> RPCConnection? = { _ in nil }
    /// The one path from the model's events to every sink (subscribers, MPRIS, …).
    public let publisher: Publisher

    private var deadlineTimer: HostTimer?
    private var armedDeadline: MonotonicInstant?
    /// When the deadline timer last fired: key moments closer together than
    /// `minimumDeadlineIntervalMilliseconds` (a short item on repeat) are handled together, from
    /// the clock, so they cannot keep the loop busy.
    private var lastDeadlineFire: MonotonicInstant?
    /// The shortest time between two wake-ups for deadlines.
    public var minimumDeadlineIntervalMilliseconds: UInt64 = 10
    /// After `close()` (shutdown) no timer is armed again, whatever later disconnects change.
    private var isClosed = false
    /// Event notifications queued to subscribers since start.
    public var eventsPublished: Int { publisher.subscribers.deliveries }

    public init(scheduler: Scheduler, logger: Logger, model: NowPlayingModel = NowPlayingModel()) {
        self.scheduler = scheduler
        self.logger = logger
        self.model = model
        clock = { [scheduler] in MonotonicInstant(nanoseconds: scheduler.nowNanoseconds) }
        publisher = Publisher(scheduler: scheduler, logger: logger)
        publisher.service = self
    }

    /// The same, with the scheduler under the name the daemon's loop had here (tests written
    /// before the scheduler pass `loop:`).
    public convenience init(loop: Scheduler, logger: Logger, model: NowPlayingModel = NowPlayingModel()) {
        self.init(scheduler: loop, logger: logger, model: model)
    }

    public var now: MonotonicInstant { clock() }

    /// What one client may claim in the model (from the config file).
    public func setLimits(_ limits: ModelLimits) { model.limits = limits }

    /// Runs one model operation at the current instant and carries out what it returned.
    /// A `ModelError` becomes the matching RPC error; the model is then unchanged.
    @discardableResult
    public func perform<T>(_ body: (inout NowPlayingModel, MonotonicInstant) throws -> ModelResult<T>) throws(RPCError) -> T {
        let result: ModelResult<T>
        do {
            result = try body(&model, now)
        } catch {
            throw .from(error, fallback: RPCError.internalError)
        }
        apply(result.actions)
        publish(result.events)
        return result.value
    }

    /// Reads the model at the current instant. Deadlines already passed are handled first
    /// (normally the timer did; it may be a hair late), so the read itself changes nothing and
    /// costs what reading one session costs.
    public func read<T>(_ body: (NowPlayingModel, MonotonicInstant) throws -> T) throws(RPCError) -> T {
        let t = now
        catchUp(to: t)
        do { return try body(model, t) } catch {
            throw .from(error, fallback: RPCError.internalError)
        }
    }

    private func catchUp(to t: MonotonicInstant) {
        guard let d = model.nextDeadline, d <= t else { return }
        let result = model.advance(to: t)
        apply(result.actions)
        publish(result.events)
    }

    // MARK: - Actions

    private func apply(_ actions: [HostAction]) {
        for action in actions {
            switch action {
            case .rearmTimer(let deadline):
                rearm(deadline)
            }
        }
    }

    private func rearm(_ deadline: MonotonicInstant?) {
        armedDeadline = deadline
        guard !isClosed else { return }
        guard let deadline else {
            deadlineTimer?.stop()
            return
        }
        if deadlineTimer == nil { deadlineTimer = scheduler.makeTimer() }
        let nowNS = now.nanoseconds
        let waitNS = deadline.nanoseconds > nowNS ? deadline.nanoseconds - nowNS : 0
        // Round up: firing a fraction early would not reach the deadline.
        var ms = (waitNS + 999_999) / 1_000_000
        if let last = lastDeadlineFire {
            let sinceMS = (nowNS > last.nanoseconds ? nowNS - last.nanoseconds : 0) / 1_000_000
            if sinceMS < minimumDeadlineIntervalMilliseconds { ms = max(ms, minimumDeadlineIntervalMilliseconds - sinceMS) }
        }
        deadlineTimer?.start(after: ms) { [weak self] in self?.deadlineReached() }
    }

    private func deadlineReached() {
        // A millisecond timer (libuv's) can fire a hair before the nanosecond deadline; the timer
        // firing means the deadline has come.
        let t = max(now, armedDeadline ?? now)
        lastDeadlineFire = now
        let result = model.advance(to: t)
        apply(result.actions)
        publish(result.events)
    }

    /// Whether the deadline timer is armed (tests prove nothing ticks while paused).
    public var isTimerArmed: Bool { deadlineTimer?.isActive ?? false }

    // MARK: - Commands

    /// Carries a command to its end: finished → the promise gets `{session, status}`; waiting on
    /// out-of-process targets → every one of them is asked at once (`command.handle`), under one
    /// deadline for the whole command, and their answers are fed back in target order.
    func drive(_ progress: CommandProgress, promise: RPCPromise?) {
        if isClosed, case .awaiting = progress {
            promise?.complete(.failure(RPCError(.shuttingDown, "the host is shutting down")))
            return
        }
        switch progress {
        case .finished(let outcome):
            promise?.complete(.success(outcome.toJSON()))
        case .awaiting(let dispatch):
            CommandRun(service: self, dispatch: dispatch, promise: promise).start()
        }
    }

    /// Feeds one answer to the model; the next progress.
    func resume(_ dispatch: CommandDispatch, status: CommandStatus) -> Result<CommandProgress, RPCError> {
        do throws(RPCError) {
            return .success(try perform { m, t in try m.resumeCommand(dispatch, status: status, now: t) })
        } catch {
            return .failure(error)
        }
    }

    // MARK: - Events

    /// Hands an operation's events to the one publication path.
    func publish(_ events: [ModelEvent]) {
        publisher.publish(events)
    }

    /// Sessions a departing app gives up per loop turn: another client's request waits for at
    /// most one slice, not for thousands of closes (issue 16).
    static let sessionReleasesPerTurn = 64

    /// Called when a connection goes away: its targets go, its sessions follow the
    /// background-audio rule, `sessionReleasesPerTurn` per loop turn; then the app goes.
    func clientDisconnected(_ id: ClientID) {
        if !isClosed {
            let slice = model.releaseSessions(ofClient: id, limit: Self.sessionReleasesPerTurn, now: now)
            apply(slice.actions)
            publish(slice.events)
            if slice.value {
                scheduler.onNextTurn { [weak self] in self?.clientDisconnected(id) }
                return
            }
        }
        let result = model.disconnectClient(id, now: now)
        apply(result.actions)
        publish(result.events)
    }

    /// Stops the deadline timer and the publisher's (shutdown).
    func close() {
        isClosed = true
        publisher.close()
        deadlineTimer?.close()
        deadlineTimer = nil
    }
}
