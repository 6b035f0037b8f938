import PlayerHostBase

/// What `npctl watch` shows, kept up to date from replies and events; no I/O, no clock.
public struct WatchState: Sendable {
    /// One row of the session table.
    public struct Row: Sendable, Equatable {
        public var id: String
        public var kind: String
        public var app: String
        public var state: String
        public var isActive: Bool
        public var canBecomeActive: Bool
        public var isNowPlaying: Bool

        public init(_ json: JSON) {
            id = json["id"]?.stringValue ?? "?"
            kind = json["kind"]?.stringValue ?? "?"
            app = json["app"]?.stringValue ?? "?"
            state = json["playbackState"]?.stringValue ?? "?"
            isActive = json["isActive"] == true
            canBecomeActive = json["canBecomeActive"] == true
            isNowPlaying = json["isNowPlaying"] == true
        }
    }

    public var rows: [Row] = []
    public var nowPlaying: InfoSnapshot?
    /// Recent events as one line each, oldest first, at most `maxEvents`.
    public private(set) var events: [String] = []
    /// The selected row (for promote, demote, activate).
    public var selected = 0
    /// The answer to the last key, shown in the footer until the next key.
    public var message: String?
    /// Whether the connection to the daemon is up.
    public var connected = true

    public static let maxEvents = 200

    public init() {}

    /// The session table from a `session.list` reply; the selection stays on the same id.
    public mutating func setSessions(_ list: JSON) {
        let selectedID = rows.indices.contains(selected) ? rows[selected].id : nil
        rows = (list.arrayValue ?? []).map(Row.init)
        selected = selectedID.flatMap { id in rows.firstIndex { $0.id == id } } ?? min(selected, max(0, rows.count - 1))
    }

    public mutating func log(_ line: String) {
        events.append(line)
        if events.count > Self.maxEvents { events.removeFirst(events.count - Self.maxEvents) }
    }

    /// Moves the selection by `delta` rows, staying in the table.
    public mutating func moveSelection(_ delta: Int) {
        guard !rows.isEmpty else { return }
        selected = max(0, min(rows.count - 1, selected + delta))
    }

    public var selectedID: String? { rows.indices.contains(selected) ? rows[selected].id : nil }

    /// Seconds (host clock) until the shown position changes — the next whole second at the
    /// current rate — or nil when nothing moves: then the view sleeps until an event or a key.
    public func nextTick(at now: Double) -> Double? {
        guard let s = nowPlaying, s.playbackState == "playing", s.rate > 0 else { return nil }
        let p = s.position(at: now)
        if let d = s.duration, d > 0, p >= d { return nil }
        let toNextSecond = (p.rounded(.down) + 1 - p) / s.rate
        return max(0.01, toNextSecond)
    }

    /// One line for an `event` notification's params (`nowPlaying main → pip (promoted)`).
    public static func describe(_ p: JSON, language: String?) -> String {
        let topic = p["topic"]?.stringValue ?? "?"
        let type = p["type"]?.stringValue ?? topic
        let session = p["session"]?.stringValue
        var text = type
        if let session { text += " " + session }
        switch type {
        case "nowPlayingChanged":
            text = "nowPlaying \(p["from"]?.stringValue ?? "none") → \(p["to"]?.stringValue ?? "none")"
            if let r = p["reason"]?.stringValue { text += " (\(r))" }
        case "infoChanged":
            let s = InfoSnapshot(p, language: language)
            text += ": \(s.playbackState) \(s.artistAndTitle)"
        case "activeChanged": text += p["isActive"] == true ? ": active" : ": not active"
        case "canBecomeActiveChanged": text += p["canBecomeActive"] == true ? ": can become active" : ": cannot become active"
        case "interruption":
            text += " " + (p["interruption"]?.stringValue ?? "")
            if let by = p["source"]?.stringValue { text += " by " + by }
        case "audioChanged": text += p["audio"]?["active"] == true ? ": audio active" : ": audio inactive"
        case "commandHandled":
            text += ": \(p["command"]?.stringValue ?? "?") \(p["status"]?.stringValue ?? "")"
        case "sessionClosed": text += " (\(p["reason"]?.stringValue ?? "?"))"
        default:
            if topic == "nowPlaying" {
                text = "Now Playing: " + (p["nowPlaying"].map { $0.isNull ? "nothing" : InfoSnapshot($0, language: language).artistAndTitle } ?? "?")
            }
        }
        return text
    }
}
