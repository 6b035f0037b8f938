import PlayerHostBase

/// An instant on the host's monotonic clock, in nanoseconds since an arbitrary origin.
///
/// The model never reads a clock: every operation whose outcome depends on time takes the
/// instant from its caller. Whole nanoseconds (not `Double` seconds) so that deadlines compare
/// exactly: a clock item that ends at 10 s ends at `10_000_000_000`, not at 9.999999999.
/// On the wire instants are seconds as JSON numbers (`seconds`).
public struct MonotonicInstant: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Nanoseconds since the clock's origin.
    public var nanoseconds: UInt64

    /// The clock's origin.
    public static let zero = MonotonicInstant(nanoseconds: 0)

    /// An instant from whole nanoseconds.
    public init(nanoseconds: UInt64) {
        self.nanoseconds = nanoseconds
    }

    /// An instant from seconds; negative or non-finite values clamp to the origin.
    public init(seconds: Double) {
        self.nanoseconds = MonotonicInstant.nanos(seconds)
    }

    /// Seconds since the origin.
    public var seconds: Double { Double(nanoseconds) / 1e9 }

    /// This instant moved by `seconds` (rounded to the nearest nanosecond, clamped at the origin).
    public func advanced(bySeconds seconds: Double) -> MonotonicInstant {
        guard seconds.isFinite else { return self }
        if seconds >= 0 {
            let delta = MonotonicInstant.nanos(seconds)
            let (sum, overflow) = nanoseconds.addingReportingOverflow(delta)
            return MonotonicInstant(nanoseconds: overflow ? .max : sum)
        }
        let delta = MonotonicInstant.nanos(-seconds)
        return MonotonicInstant(nanoseconds: delta > nanoseconds ? 0 : nanoseconds - delta)
    }

    /// Signed seconds from `earlier` to this instant (negative if `earlier` is later).
    public func seconds(since earlier: MonotonicInstant) -> Double {
        if nanoseconds >= earlier.nanoseconds {
            return Double(nanoseconds - earlier.nanoseconds) / 1e9
        }
        return -Double(earlier.nanoseconds - nanoseconds) / 1e9
    }

    public static func < (lhs: MonotonicInstant, rhs: MonotonicInstant) -> Bool {
        lhs.nanoseconds < rhs.nanoseconds
    }

    public var description: String { "\(seconds)s" }

    private static func nanos(_ seconds: Double) -> UInt64 {
        guard seconds.isFinite, seconds > 0 else { return 0 }
        let n = (seconds * 1e9).rounded()
        return n >= 1.8e19 ? .max : UInt64(n)
    }
}
