/// A `Scheduler` whose time moves only when its owner says: the embedded host's and the tests'.
///
/// Like swift-nio's `EmbeddedEventLoop`: `advance(byMilliseconds:)` moves now forward and fires,
/// in deadline order (ties in arming order), every timer due by then, including ones armed by
/// the callbacks it runs; `runPending()` runs the work queued with `onNextTurn`. Nothing runs
/// on its own, so a test sees exactly the steps it asked for.
public final class ManualScheduler: Scheduler {
    public private(set) var nowNanoseconds: UInt64
    private var nextSequence: UInt64 = 0
    private var turnQueue: [() -> Void] = []
    /// Armed timers, by identity.
    fileprivate var armed: [ObjectIdentifier: ManualTimer] = [:]
    public private(set) var isClosed = false

    /// A scheduler whose now starts at `nanoseconds` (not zero by default: code that treats
    /// instant zero as "never" must not be fooled).
    public init(nanoseconds: UInt64 = 1_000_000_000) {
        nowNanoseconds = nanoseconds
    }

    public func makeTimer() -> HostTimer? {
        isClosed ? nil : ManualTimer(scheduler: self)
    }

    public func onNextTurn(_ work: @escaping () -> Void) {
        guard !isClosed else { return }
        turnQueue.append(work)
    }

    /// Runs the work queued for the next turn, and what that work queues, until none is left
    /// (at most `limit` items, so a loop of re-queueing work cannot hang a test).
    @discardableResult
    public func runPending(limit: Int = 100_000) -> Int {
        var ran = 0
        while !turnQueue.isEmpty && ran < limit {
            let batch = turnQueue
            turnQueue.removeAll()
            for work in batch { work(); ran += 1 }
        }
        return ran
    }

    /// Timers armed now.
    public var armedTimerCount: Int { armed.count }

    /// Milliseconds until the next armed timer fires (nil: none armed).
    public var nextDueInMilliseconds: UInt64? {
        armed.values.map(\.deadline).min().map { $0 > nowNanoseconds ? ($0 - nowNanoseconds + 999_999) / 1_000_000 : 0 }
    }

    /// Moves now forward by `milliseconds`, firing every timer due on the way at its own
    /// deadline (now reads the deadline inside its callback), with the turn queue run after each.
    public func advance(byMilliseconds milliseconds: UInt64) {
        let (target, overflow) = nowNanoseconds.addingReportingOverflow(milliseconds.multipliedReportingOverflow(by: 1_000_000).partialValue)
        let end = overflow ? UInt64.max : target
        runPending()
        while let next = armed.values.filter({ $0.deadline <= end }).min(by: { ($0.deadline, $0.sequence) < ($1.deadline, $1.sequence) }) {
            if next.deadline > nowNanoseconds { nowNanoseconds = next.deadline }
            next.fire()
            runPending()
        }
        nowNanoseconds = end
    }

    /// Closes the scheduler: timers are dropped and nothing is made or queued any more.
    public func close() {
        isClosed = true
        armed.removeAll()
        turnQueue.removeAll()
    }

    fileprivate func sequence() -> UInt64 {
        nextSequence += 1
        return nextSequence
    }
}

/// A `ManualScheduler`'s timer.
private final class ManualTimer: HostTimer {
    private weak var scheduler: ManualScheduler?
    private var callback: (() -> Void)?
    private var interval: UInt64 = 0
    fileprivate var deadline: UInt64 = 0
    fileprivate var sequence: UInt64 = 0
    private var closed = false
    var isReferenced = true

    init(scheduler: ManualScheduler) { self.scheduler = scheduler }

    func start(after milliseconds: UInt64, repeat interval: UInt64, _ callback: @escaping () -> Void) {
        guard !closed, let scheduler else { return }
        self.callback = callback
        self.interval = interval
        arm(scheduler, after: milliseconds)
    }

    private func arm(_ scheduler: ManualScheduler, after milliseconds: UInt64) {
        let (delta, o1) = milliseconds.multipliedReportingOverflow(by: 1_000_000)
        let (sum, o2) = scheduler.nowNanoseconds.addingReportingOverflow(delta)
        deadline = o1 || o2 ? .max : sum
        sequence = scheduler.sequence()
        scheduler.armed[ObjectIdentifier(self)] = self
    }

    func stop() {
        scheduler?.armed[ObjectIdentifier(self)] = nil
    }

    func close(then: (() -> Void)?) {
        guard !closed else { return }
        closed = true
        stop()
        callback = nil
        if let then { scheduler?.onNextTurn(then) }
    }

    var isActive: Bool {
        guard let scheduler else { return false }
        return scheduler.armed[ObjectIdentifier(self)] != nil
    }

    var dueIn: UInt64 {
        guard let scheduler, scheduler.armed[ObjectIdentifier(self)] != nil, deadline > scheduler.nowNanoseconds else { return 0 }
        return (deadline - scheduler.nowNanoseconds) / 1_000_000
    }

    fileprivate func fire() {
        guard let scheduler else { return }
        scheduler.armed[ObjectIdentifier(self)] = nil
        if interval > 0 { arm(scheduler, after: interval) }
        callback?()
    }
}
