/// The text of `npctl watch`'s full-terminal view, as lines exactly `width` columns or less
/// and exactly `height` lines: the Now Playing session on top (state, artist — title, a
/// progress bar with the position inferred for `now`), the session table, the most recent
/// events, and a line of keys. Pure: the terminal is npctl's business.
public enum WatchScreen {
    public static let keysLine = "space toggle  n/p next/prev  ←→ seek  +- rate  ↑↓ select  enter promote  d demote  a activate  q quit"

    public static func render(_ state: WatchState, width: Int, height: Int, now: Double) -> [String] {
        let width = max(20, width)
        var top: [String] = []
        let np = state.nowPlaying
        top.append("npctl watch — Now Playing: " + (np?.session ?? "nothing") + (state.connected ? "" : "  (daemon gone; reconnecting…)"))
        if let np {
            top.append("\(symbol(np.playbackState)) \(np.status)  \(np.artistAndTitle)")
            top.append(progressLine(np, width: width, now: now))
        } else {
            top.append("  nothing is Now Playing")
            top.append("")
        }
        top.append("")
        var table = [["", "SESSION", "KIND", "APP", "STATE", "ACTIVE", "CAN-BECOME-ACTIVE"]]
        for (i, r) in state.rows.enumerated() {
            table.append([(i == state.selected ? ">" : " ") + (r.isNowPlaying ? "*" : " "), r.id, r.kind, r.app, r.state,
                          r.isActive ? "yes" : "no", r.canBecomeActive ? "yes" : "no"])
        }
        top += columns(table)
        top.append("")
        top.append("Events")
        let bottom = [state.message ?? "", keysLine]
        let room = max(0, height - top.count - bottom.count)
        let shownEvents = Array(state.events.suffix(room))
        var lines = top + shownEvents.map { "  " + $0 }
        while lines.count < height - bottom.count { lines.append("") }
        lines += bottom
        return Array(lines.prefix(height)).map { fit($0, width) }
    }

    /// `[██████░░░░░░]  1:23/5:24`, the bar filling what the time text leaves.
    public static func progressLine(_ s: InfoSnapshot, width: Int, now: Double) -> String {
        let time = s.timeText(at: now)
        let barWidth = max(10, width - time.count - 4)
        let fraction: Double
        if let d = s.duration, d > 0 { fraction = min(1, max(0, s.position(at: now) / d)) } else { fraction = 0 }
        return "[" + bar(fraction, width: barWidth) + "]  " + time
    }

    public static func bar(_ fraction: Double, width: Int) -> String {
        let filled = Int((fraction * Double(width)).rounded(.down))
        return String(repeating: "█", count: filled) + String(repeating: "░", count: max(0, width - filled))
    }

    static func symbol(_ state: String) -> String {
        switch state {
        case "playing": return "▶"
        case "paused": return "⏸"
        case "interrupted": return "⏸"
        default: return "■"
        }
    }

    static func columns(_ rows: [[String]]) -> [String] {
        let n = rows.map(\.count).max() ?? 0
        let widths = (0..<n).map { c in rows.map { c < $0.count ? $0[c].count : 0 }.max() ?? 0 }
        return rows.map { row in
            var line = ""
            for (c, cell) in row.enumerated() { line += cell + String(repeating: " ", count: widths[c] - cell.count + 2) }
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    /// Cuts a line to `width` characters (one column each: the view uses no wide characters of
    /// its own; a wide title may overflow by its extra columns, which the terminal clips).
    static func fit(_ s: String, _ width: Int) -> String {
        s.count <= width ? s : String(s.prefix(width - 1)) + "…"
    }
}

/// A key of `npctl watch`, read from the terminal's bytes.
public enum WatchKey: Equatable, Sendable {
    case togglePlayPause, next, previous, seekBack, seekForward, faster, slower
    case up, down, promote, demote, activate, quit

    /// The keys in `bytes` (escape sequences for arrows); other bytes are ignored.
    public static func parse(_ bytes: [UInt8]) -> [WatchKey] {
        var keys: [WatchKey] = []
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x1B, i + 2 < bytes.count, bytes[i + 1] == UInt8(ascii: "[") || bytes[i + 1] == UInt8(ascii: "O") {
                switch bytes[i + 2] {
                case UInt8(ascii: "A"): keys.append(.up)
                case UInt8(ascii: "B"): keys.append(.down)
                case UInt8(ascii: "C"): keys.append(.seekForward)
                case UInt8(ascii: "D"): keys.append(.seekBack)
                default: break
                }
                i += 3
                continue
            }
            switch b {
            case UInt8(ascii: " "): keys.append(.togglePlayPause)
            case UInt8(ascii: "n"): keys.append(.next)
            case UInt8(ascii: "p"): keys.append(.previous)
            case UInt8(ascii: "+"), UInt8(ascii: "="): keys.append(.faster)
            case UInt8(ascii: "-"): keys.append(.slower)
            case UInt8(ascii: "k"): keys.append(.up)
            case UInt8(ascii: "j"): keys.append(.down)
            case 0x0D, 0x0A, UInt8(ascii: "P"): keys.append(.promote)
            case UInt8(ascii: "d"): keys.append(.demote)
            case UInt8(ascii: "a"): keys.append(.activate)
            case UInt8(ascii: "q"), 0x03, 0x04: keys.append(.quit)
            default: break
            }
            i += 1
        }
        return keys
    }
}
