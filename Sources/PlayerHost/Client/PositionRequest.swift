/// What `npctl position ARG` asks for: an absolute time or a move by some seconds.
///
/// Accepted: `S` (seconds, fractions allowed), `M:SS`, `H:MM:SS` — each absolute — and the
/// same with a sign, `+S`/`-S` (mpc) or `S+`/`S-` (playerctl), for a relative move.
public enum PositionRequest: Equatable, Sendable {
    case absolute(Double)
    case relative(Double)

    /// Parses `s`; nil when it is none of the accepted forms.
    public init?(_ s: String) {
        var t = Substring(s)
        var sign: Double?
        if t.hasSuffix("+") { sign = 1; t.removeLast() }
        else if t.hasSuffix("-") { sign = -1; t.removeLast() }
        else if t.hasPrefix("+") { sign = 1; t.removeFirst() }
        else if t.hasPrefix("-") { sign = -1; t.removeFirst() }
        guard let seconds = Self.seconds(t) else { return nil }
        if let sign { self = .relative(sign * seconds) } else { self = .absolute(seconds) }
    }

    /// `90`, `1:30`, `1:02:03`, `1:30.5` → seconds. Minutes and seconds after a colon are 0–59.
    static func seconds(_ t: Substring) -> Double? {
        let parts = t.split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(parts.count) else { return nil }
        var total = 0.0
        for (i, part) in parts.enumerated() {
            let last = i == parts.count - 1
            // Only the last field may have a fraction; every field is plain digits otherwise.
            guard !part.isEmpty, part.allSatisfy({ $0.isASCII && ($0.isNumber || (last && $0 == ".")) }),
                  let v = Double(part), v.isFinite else { return nil }
            if i > 0 && v >= 60 { return nil }
            total = total * 60 + v
        }
        return total
    }

    /// The position to seek to from `current`, clamped to `[0, duration]` when the duration is known.
    public func target(from current: Double, duration: Double?) -> Double {
        var to: Double
        switch self {
        case .absolute(let s): to = s
        case .relative(let d): to = current + d
        }
        to = max(0, to)
        if let duration, duration > 0 { to = min(to, duration) }
        return to
    }

    /// The forms, for error messages.
    public static let forms = "S, M:SS, H:MM:SS, or relative +S / -S / S+ / S- (e.g. 90, 1:30, 10+, -5)"
}
