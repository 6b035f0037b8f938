/// When to start again something that died — a plugin process, an mpv child, a plugin's
/// connection to the daemon — and when to stop trying. One rule for all of them:
///
/// - a run that lasted `stableAfterMS` or more was stable: the count of quick deaths starts over
///   and the restart comes after `initialBackoffMS`;
/// - the n-th quick death in a row restarts after `initialBackoffMS · 2ⁿ⁻¹` (at most
///   `maxBackoffMS`);
/// - the `startLimit`-th quick death in a row gives up (nil: never).
///
/// With the standard values (250 ms, ×2, 8 s, 10 s, 5): four restarts after 250, 500, 1000 and
/// 2000 ms, and the fifth quick death in a row gives up.
///
/// Pure: the caller measures how long the run lasted with its own clock and carries out the
/// decision (a timer, a log line, a `failed` state).
public struct RestartPolicy: Sendable, Equatable {
    public var initialBackoffMS: UInt64
    public var maxBackoffMS: UInt64
    /// A run at least this long is stable.
    public var stableAfterMS: UInt64
    /// Quick deaths in a row that make it give up; nil never gives up.
    public var startLimit: Int?
    /// Quick deaths in a row so far.
    public private(set) var quickDeaths = 0

    /// What to do about one death.
    public enum Decision: Sendable, Equatable {
        case restart(afterMS: UInt64)
        case giveUp(quickDeaths: Int)
    }

    public init(initialBackoffMS: UInt64, maxBackoffMS: UInt64, stableAfterMS: UInt64, startLimit: Int?) {
        self.initialBackoffMS = initialBackoffMS
        self.maxBackoffMS = maxBackoffMS
        self.stableAfterMS = stableAfterMS
        self.startLimit = startLimit
    }

    /// 250 ms doubling to 8 s, stable after 10 s, gives up at the fifth quick death in a row.
    public static let standard = RestartPolicy(initialBackoffMS: 250, maxBackoffMS: 8000, stableAfterMS: 10_000, startLimit: 5)

    /// It died after running `ranForMS` (0 if it never started).
    public mutating func died(ranForMS: UInt64) -> Decision {
        if ranForMS >= stableAfterMS {
            quickDeaths = 0
            return .restart(afterMS: min(initialBackoffMS, maxBackoffMS))
        }
        quickDeaths += 1
        if let limit = startLimit, quickDeaths >= limit { return .giveUp(quickDeaths: quickDeaths) }
        let shift = UInt64(min(quickDeaths - 1, 32))
        let delay = initialBackoffMS > (maxBackoffMS >> shift) ? maxBackoffMS : initialBackoffMS << shift
        return .restart(afterMS: min(delay, maxBackoffMS))
    }

    /// Starts over (someone asked for it to run again after it was given up on).
    public mutating func reset() { quickDeaths = 0 }
}
