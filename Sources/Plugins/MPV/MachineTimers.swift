import PlayerHostPluginAPI

/// A state machine's named timers on a `Scheduler`: the driver's half of the machine's
/// `arm(id, afterMS:)` and `cancel(id)` actions. One scheduler timer per armed id, closed when
/// it fires or is cancelled, so nothing is left on the loop once the machine waits for nothing.
/// With a `ManualScheduler` a test moves time and sees each firing as the machine would.
final class MachineTimers<ID: Hashable> {
    private let scheduler: Scheduler
    private var timers: [ID: HostTimer] = [:]
    /// Runs when an armed timer fires, with its id.
    var onFire: (ID) -> Void = { _ in }

    init(scheduler: Scheduler) { self.scheduler = scheduler }

    /// Arms `id` `milliseconds` from now (re-arming replaces the earlier deadline).
    func arm(_ id: ID, afterMS milliseconds: UInt64) {
        if timers[id] == nil { timers[id] = scheduler.makeTimer() }
        timers[id]?.start(after: milliseconds) { [weak self] in
            guard let self else { return }
            self.timers.removeValue(forKey: id)?.close()
            self.onFire(id)
        }
    }

    /// Disarms `id` (nothing if it is not armed).
    func cancel(_ id: ID) {
        timers.removeValue(forKey: id)?.close()
    }

    /// The ids armed now.
    var armed: Set<ID> { Set(timers.keys) }

    /// Disarms every timer.
    func cancelAll() {
        for t in timers.values { t.close() }
        timers.removeAll()
    }
}
