import Logging

/// Runs the pure `NowPlayingModel` on the loop: every operation goes through `perform`, which
/// reads the injected clock, applies the model's actions (one deadline timer; `command.handle`
/// requests to out-of-process targets, each with a timeout) and hands its events to the
/// `Publisher`. Nothing here ticks: the timer is armed only while something plays.
public final class NowPlayingService {
    public private(set) var model: NowPlayingModel
    let loop: EventLoop
    let logger: Logger
    /// The monotonic clock the model reads. Tests may replace it.
    public var clock: () -> MonotonicInstant = { MonotonicInstant(nanoseconds: EventLoop.hrtime()) }
    /// How long an out-of-process target may take before its status is `commandFailed`.
    public var commandTimeoutMilliseconds: UInt64 = 2000
    /// Finds the connection of a client id (the server's table).
    var connection: (ClientID) -> RPCConnection? = { _ in nil }
    /// The one path from the model's events to every sink (subscribers, MPRIS, …).
    public let publisher: Publisher

    private var deadlineTimer: Timer?
    private var armedDeadline: MonotonicInstant?
    /// After `close()` (shutdown) no timer is armed again, whatever later disconnects change.
    private var isClosed = false
    /// Event notifications queued to subscribers since start.
    public var eventsPublished: Int { publisher.subscribers.deliveries }

    public init(loop: EventLoop, logger: Logger, model: NowPlayingModel = NowPlayingModel()) {
        self.loop = loop
        self.logger = logger
        self.model = model
        publisher = Publisher(loop: loop, logger: logger)
        publisher.service = self
    }

    public var now: MonotonicInstant { clock() }

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

    /// Reads the model at the current instant (no state change).
    public func read<T>(_ body: (NowPlayingModel, MonotonicInstant) throws -> T) throws(RPCError) -> T {
        do { return try body(model, now) } catch {
            throw .from(error, fallback: RPCError.internalError)
        }
    }

    // MARK: - Actions

    private func apply(_ actions: [HostAction]) {
        for action in actions {
            switch action {
            case .rearmTimer(let deadline):
                rearm(deadline)
            case .invokeExternalTarget:
                break  // driven by `drive(_:promise:)`, which holds the dispatch it belongs to
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
        if deadlineTimer == nil { deadlineTimer = try? Timer(loop: loop) }
        let nowNS = now.nanoseconds
        let waitNS = deadline.nanoseconds > nowNS ? deadline.nanoseconds - nowNS : 0
        // Round up: firing a fraction early would not reach the deadline.
        let ms = (waitNS + 999_999) / 1_000_000
        deadlineTimer?.start(after: ms) { [weak self] in self?.deadlineReached() }
    }

    private func deadlineReached() {
        // libuv's millisecond clock can fire a hair before the nanosecond deadline; the timer
        // firing means the deadline has come.
        let t = max(now, armedDeadline ?? now)
        let result = model.advance(to: t)
        apply(result.actions)
        publish(result.events)
    }

    /// Whether the deadline timer is armed (tests prove nothing ticks while paused).
    public var isTimerArmed: Bool { deadlineTimer?.isActive ?? false }

    // MARK: - Commands

    /// Carries a command to its end: finished → the promise gets `{session, status}`; waiting on
    /// an out-of-process target → a `command.handle` request with a timeout, then on.
    func drive(_ progress: CommandProgress, promise: RPCPromise?) {
        if isClosed, case .awaiting = progress {
            promise?.complete(.failure(RPCError(.shuttingDown, "the host is shutting down")))
            return
        }
        switch progress {
        case .finished(let outcome):
            promise?.complete(.success(outcome.toJSON()))
        case .awaiting(let dispatch):
            guard let invocation = dispatch.awaiting else {
                promise?.complete(.failure(.internalError("dispatch awaits nothing")))
                return
            }
            guard let rpc = connection(invocation.client) else {
                resume(dispatch, status: .commandFailed, promise: promise)
                return
            }
            var settled = false
            let timer = try? Timer(loop: loop)
            var requestID: Int64 = 0
            requestID = rpc.request(method: "command.handle", params: invocation.toJSON()) { [weak self] result in
                guard let self, !settled else { return }
                settled = true
                timer?.close()
                let status: CommandStatus
                switch result {
                case .success(let value): status = CommandStatus(json: value["status"] ?? value) ?? .commandFailed
                case .failure: status = .commandFailed
                }
                self.resume(dispatch, status: status, promise: promise)
            }
            timer?.start(after: commandTimeoutMilliseconds) { [weak self, weak rpc] in
                guard let self, !settled else { return }
                settled = true
                timer?.close()
                self.logger.warning("command \(invocation.event.command.rawValue) target \(invocation.token) of client \(invocation.client) timed out")
                rpc?.failOutgoing(id: requestID, RPCError(.timeout, "no answer within \(self.commandTimeoutMilliseconds) ms"))
                self.resume(dispatch, status: .commandFailed, promise: promise)
            }
        }
    }

    private func resume(_ dispatch: CommandDispatch, status: CommandStatus, promise: RPCPromise?) {
        do {
            let progress = try perform { m, t in try m.resumeCommand(dispatch, status: status, now: t) }
            drive(progress, promise: promise)
        } catch {
            promise?.complete(.failure(error))
        }
    }

    // MARK: - Events

    /// Hands an operation's events to the one publication path.
    func publish(_ events: [ModelEvent]) {
        publisher.publish(events)
    }

    /// Called when a connection goes away: its targets go, its sessions follow the
    /// background-audio rule.
    func clientDisconnected(_ id: ClientID) {
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
