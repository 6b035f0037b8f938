/// The one checked conversion between seconds (the model's `Double`) and microseconds (MPRIS's
/// `Int64`), and the bound on any time a peer sends. Every time value that comes from outside —
/// a D-Bus peer's µs, a socket client's seconds, an imported player's position or length — goes
/// through here, so nothing multiplies a peer's number unchecked (`Int64(s * 1e6)` traps on 1e13,
/// on infinity and on NaN; `a - b` on two peer `Int64`s traps on INT64_MIN).
public enum Microseconds {
    /// The largest time, in seconds, the host accepts as a position, interval or duration: 10⁹ s
    /// (about 31.7 years). The socket refuses more with −32602; values from a D-Bus peer beyond it
    /// are treated as absent or saturated (MPRIS's way with out-of-range input).
    public static let maxSeconds: Double = 1_000_000_000

    /// `maxSeconds` in microseconds (10¹⁵, well inside `Int64`).
    public static let maxMicroseconds: Int64 = 1_000_000_000_000_000

    /// Whether `seconds` is a time the host accepts from a peer: finite and within ±`maxSeconds`.
    @inlinable
    public static func isInBounds(_ seconds: Double) -> Bool {
        seconds.isFinite && seconds.magnitude <= maxSeconds
    }

    /// Seconds → µs, rounded, saturating at `Int64`'s bounds (±∞ too); NaN is 0. Never traps.
    @inlinable
    public static func from(seconds: Double) -> Int64 {
        guard !seconds.isNaN else { return 0 }
        let us = (seconds * 1_000_000).rounded()
        // Double(Int64.max) rounds up to 2⁶³, which Int64 cannot hold: compare with >=.
        if us >= Double(Int64.max) { return .max }
        if us <= Double(Int64.min) { return .min }
        return Int64(us)
    }

    /// µs → seconds. Exact to the microsecond for anything within `maxMicroseconds`; never traps.
    @inlinable
    public static func seconds(_ microseconds: Int64) -> Double {
        Double(microseconds) / 1_000_000
    }

    /// µs → seconds when the value is a time the host accepts (0 ... `maxSeconds`), else nil:
    /// how an out-of-range length or position from a D-Bus peer becomes "absent".
    @inlinable
    public static func boundedSeconds(_ microseconds: Int64) -> Double? {
        guard microseconds >= 0, microseconds <= maxMicroseconds else { return nil }
        return seconds(microseconds)
    }

    /// `a − b`, saturating at `Int64`'s bounds instead of trapping.
    @inlinable
    public static func difference(_ a: Int64, _ b: Int64) -> Int64 {
        let (d, overflow) = a.subtractingReportingOverflow(b)
        guard overflow else { return d }
        return b < 0 ? .max : .min
    }
}
