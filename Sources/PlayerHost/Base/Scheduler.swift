/// A timer a `Scheduler` made: fires its callback on the host's thread after a delay, once or
/// repeatedly; re-armed, stopped or closed by its owner.
///
/// The daemon's timers are libuv timers (`Timer` in Loop); an embedded host's and a test's are
/// `ManualScheduler`'s, which fire only when the test advances time. Code above Loop asks its
/// scheduler for timers instead of creating libuv handles, so it runs the same on either.
public protocol HostTimer: AnyObject {
    /// Arms the timer `milliseconds` from the scheduler's now, then every `repeat` ms if non-zero.
    /// Re-arming replaces the schedule and the callback; a closed timer ignores it.
    func start(after milliseconds: UInt64, repeat: UInt64, _ callback: @escaping () -> Void)
    /// Disarms the timer; `start` arms it again.
    func stop()
    /// Disarms the timer for good and releases it (for libuv, on a later loop turn).
    func close(then: (() -> Void)?)
    /// Milliseconds until it fires; 0 when due or stopped.
    var dueIn: UInt64 { get }
    /// Whether it is armed (started and not yet fired, stopped or closed; a repeating timer
    /// stays armed).
    var isActive: Bool { get }
    /// Whether an armed timer keeps the host running (libuv's ref/unref); a shutdown deadline
    /// is unreferenced so it never holds the loop open by itself.
    var isReferenced: Bool { get set }
}

extension HostTimer {
    /// Arms a one-shot timer.
    public func start(after milliseconds: UInt64, _ callback: @escaping () -> Void) {
        start(after: milliseconds, repeat: 0, callback)
    }

    /// Closes the timer.
    public func close() { close(then: nil) }
}

/// Where time comes from for everything above the loop: a monotonic now and one-shot or
/// repeating timers. Nothing above Loop reads a clock or creates a libuv timer by itself.
public protocol Scheduler: AnyObject {
    /// The scheduler's monotonic now, in nanoseconds since an arbitrary origin.
    var nowNanoseconds: UInt64 { get }
    /// A new, unarmed timer; nil once the scheduler is closed (a closing loop makes no handles).
    func makeTimer() -> HostTimer?
    /// Runs `work` on a later turn, never inside the caller's stack.
    func onNextTurn(_ work: @escaping () -> Void)
}
