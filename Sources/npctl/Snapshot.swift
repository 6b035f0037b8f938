import PlayerHost

/// What one session shows at one instant — the reply of `nowPlaying.get` or `info.get`
/// (`{session, info, playbackState, timestamp}`) — with the position inferred for *now*.
struct Snapshot {
    var session: String
    var info: [String: JSON]
    var playbackState: String
    /// The host's monotonic instant (seconds) at which `elapsed` and `rate` held.
    var timestamp: Double?

    init(_ json: JSON) {
        session = json["session"]?.stringValue ?? "?"
        info = json["info"]?.objectValue ?? [:]
        playbackState = json["playbackState"]?.stringValue ?? "stopped"
        timestamp = json["timestamp"]?.doubleValue
    }

    var title: String? { info["title"]?.stringValue }
    var artist: String? { info["artist"]?.stringValue }
    var duration: Double? { info["duration"]?.doubleValue }
    var rate: Double { info["rate"]?.doubleValue ?? 0 }

    /// `elapsed + rate × (now − timestamp)`, clamped to `[0, duration]`. The host stamps its
    /// replies with its CLOCK_MONOTONIC (libuv's hrtime), the clock we read here, so the few
    /// milliseconds between the reply and this line (or a `--follow` event waiting in a pipe)
    /// are accounted for. A gap that is negative or huge means the clocks differ (another
    /// machine, a test clock): then the reply's own `elapsed` is the best we have.
    var position: Double {
        var p = info["elapsed"]?.doubleValue ?? 0
        if let timestamp {
            let gap = Double(EventLoop.hrtime()) / 1e9 - timestamp
            if gap >= 0, gap < 60 { p += rate * gap }
        }
        if let duration, duration > 0 { p = min(p, duration) }
        return max(0, p)
    }

    /// `Playing`, `Paused`, `Stopped`, `Interrupted` (playerctl's capitalisation).
    var status: String {
        guard let first = playbackState.first else { return "Stopped" }
        return first.uppercased() + playbackState.dropFirst()
    }

    /// `Playing: U2 — Magnificent  1:23/5:24  [main]`.
    var statusLine: String {
        var what = title ?? "(no title)"
        if let artist, !artist.isEmpty { what = artist + " — " + what }
        var time = TimeText.format(position)
        if let duration, duration > 0 { time += "/" + TimeText.format(duration) }
        if info["isLiveStream"]?.boolValue == true { time += " (live)" }
        return "\(status): \(what)  \(time)  [\(session)]"
    }

    /// A value for templates and `metadata`: the helpers first, then any info key. `elapsed`
    /// is the inferred position too, so no command ever prints a stale time.
    func value(_ key: String) -> JSON? {
        switch key {
        case "status": return .string(status)
        case "playbackState": return .string(playbackState)
        case "session": return .string(session)
        case "position", "elapsed": return .double(position)
        default: return info[key]
        }
    }
}

/// Seconds as text: clock times (`m:ss`, `h:mm:ss`) and plain numbers for scripts.
enum TimeText {
    /// `83.4` → `1:23`; `3723` → `1:02:03`. Truncates like every player display does.
    static func format(_ seconds: Double) -> String {
        let total = seconds.isFinite ? Int(max(0, seconds)) : 0
        let h = total / 3600, m = (total % 3600) / 60, s = total % 60
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(m):\(two(s))"
    }

    /// A number for scripts: at most 3 decimals, no trailing zeros (`30`, `83.235`).
    static func number(_ x: Double) -> String {
        guard x.isFinite else { return "\(x)" }
        let r = (x * 1000).rounded() / 1000
        if r == r.rounded(), abs(r) < 1e15 { return String(Int64(r)) }
        return "\(r)"
    }

    /// Any JSON value as plain text: strings bare, numbers via `number`, the rest as JSON.
    static func text(_ v: JSON) -> String {
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
