import PlayerHostBase

/// Seconds as text: clock times (`m:ss`, `h:mm:ss`) and plain numbers for scripts.
public enum TimeText {
    /// `83.4` → `1:23`; `3723` → `1:02:03`. Truncates like every player display does.
    public static func format(_ seconds: Double) -> String {
        let total = seconds.isFinite ? Int(max(0, min(seconds, 1e12))) : 0
        let h = total / 3600, m = (total % 3600) / 60, s = total % 60
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(m):\(two(s))"
    }

    /// A number for scripts: at most 3 decimals, no trailing zeros (`30`, `83.235`).
    public static func number(_ x: Double) -> String {
        guard x.isFinite else { return "\(x)" }
        let r = (x * 1000).rounded() / 1000
        if r == r.rounded(), abs(r) < 1e15 { return String(Int64(r)) }
        return "\(r)"
    }

    /// Any JSON value as plain text: strings bare, numbers via `number`, the rest as JSON.
    public static func text(_ v: JSON) -> String {
        switch v {
        case .string(let s): return s
        case .int(let i): return "\(i)"
        case .double(let d): return number(d)
        case .bool(let b): return b ? "true" : "false"
        case .null: return ""
        default: return v.jsonString
        }
    }
}
