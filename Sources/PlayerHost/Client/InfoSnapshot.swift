import Glibc
import PlayerHostBase
import PlayerHostModel

/// What one session shows at one instant — the reply of `nowPlaying.get` or `info.get`
/// (`{session, info, playbackState, timestamp}`), or a `nowPlaying`/`infoChanged` event — read
/// in one language, with the position inferred for any instant.
///
/// Localized strings are resolved here, on the client, with `LocalizedString`'s rules (exact
/// tag, primary subtag, `und`, then any), so events — which carry every language — read the
/// same as replies.
public struct InfoSnapshot: Sendable {
    public var session: String
    /// Info with every localized string resolved to `language`.
    public var info: [String: JSON]
    public var playbackState: String
    /// The host's monotonic instant (seconds) at which `elapsed` and `rate` held.
    public var timestamp: Double?
    /// The language the strings were resolved for (nil: `und`).
    public let language: String?
    /// `mpris:trackid`, the export's (from the info as sent, before strings are resolved).
    public let trackID: String

    public init(_ json: JSON, language: String? = nil) {
        session = json["session"]?.stringValue ?? "?"
        playbackState = json["playbackState"]?.stringValue ?? "stopped"
        timestamp = json["timestamp"]?.doubleValue
        self.language = language
        var info = json["info"]?.objectValue ?? [:]
        trackID = Self.trackID(session: session, rawInfo: info)
        for key in InfoKey.strings {
            if let v = info[key.rawValue], let s = LocalizedString(json: v) {
                info[key.rawValue] = .string(s.resolved(for: language))
            }
        }
        self.info = info
    }

    public var title: String? { info["title"]?.stringValue }
    public var artist: String? { info["artist"]?.stringValue }
    public var duration: Double? { info["duration"]?.doubleValue }
    public var rate: Double { info["rate"]?.doubleValue ?? 0 }

    /// The host's clock now (CLOCK_MONOTONIC, what libuv's hrtime reads), the clock replies are
    /// stamped with. Read directly so clients need no libuv.
    public static func hostNow() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// `elapsed + rate × (now − timestamp)`, clamped to `[0, duration]`. A gap that is negative
    /// or huge means the clocks differ (another machine, a test clock): then the reply's own
    /// `elapsed` is the best we have.
    public func position(at now: Double) -> Double {
        var p = info["elapsed"]?.doubleValue ?? 0
        if let timestamp {
            let gap = now - timestamp
            if gap >= 0, gap < 86_400 { p += rate * gap }
        }
        if let duration, duration > 0 { p = min(p, duration) }
        return max(0, p)
    }

    /// The position now.
    public var position: Double { position(at: Self.hostNow()) }

    /// `Playing`, `Paused`, `Stopped`, `Interrupted` (playerctl's capitalisation).
    public var status: String {
        guard let first = playbackState.first else { return "Stopped" }
        return first.uppercased() + playbackState.dropFirst()
    }

    /// `U2 — Magnificent`, or the title alone, or `(no title)`.
    public var artistAndTitle: String {
        let what = title ?? "(no title)"
        if let artist, !artist.isEmpty { return artist + " — " + what }
        return what
    }

    /// `1:23/5:24`, `0:42 (live)`.
    public func timeText(at now: Double) -> String {
        var time = TimeText.format(position(at: now))
        if let duration, duration > 0 { time += "/" + TimeText.format(duration) }
        if info["isLiveStream"]?.boolValue == true { time += " (live)" }
        return time
    }

    /// `Playing: U2 — Magnificent  1:23/5:24  [main]`.
    public func statusLine(at now: Double) -> String {
        "\(status): \(artistAndTitle)  \(timeText(at: now))  [\(session)]"
    }

    public var statusLine: String { statusLine(at: Self.hostNow()) }

    /// playerctl's metadata names → PlayerHost info keys (`xesam:album` → `albumTitle`).
    public static let xesamKeys: [String: String] = [
        "xesam:title": "title", "xesam:artist": "artist", "xesam:album": "albumTitle",
        "xesam:albumArtist": "albumArtist", "xesam:genre": "genre", "xesam:composer": "composer",
        "xesam:trackNumber": "trackNumber", "xesam:discNumber": "discNumber", "xesam:url": "assetURL",
        "album": "albumTitle",
    ]

    /// A value for templates and `metadata`, at `now`: npctl's names (`status`, `position`,
    /// `session`, any info key) and playerctl's (`xesam:*`, `mpris:length` and `position` in
    /// microseconds via `micros`, `playerName`). `elapsed` is the inferred position too, so no
    /// command ever prints a stale time. Nil when the session has no such value.
    public func value(_ key: String, at now: Double) -> JSON? {
        switch key {
        case "status": return .string(status)
        case "playbackState": return .string(playbackState)
        case "session", "playerName", "playerInstance": return .string(session)
        case "position", "elapsed": return .double(position(at: now))
        case "mpris:length": return duration.map { .int(Microseconds.from(seconds: $0)) }
        // The export's values (`MPRISValues`), never a raw artwork source or a bare path.
        case "mpris:trackid": return .string(trackID)
        case "mpris:artUrl": return Self.artURL(info).map { .string($0) }
        case "xesam:url": return Self.mprisURL(info).map { .string($0) }
        case "rate": return .double(rate)
        default:
            if let mapped = Self.xesamKeys[key] { return info[mapped] }
            return info[key]
        }
    }

    public func value(_ key: String) -> JSON? { value(key, at: Self.hostNow()) }

    /// The export's `mpris:trackid` for a session's info as the daemon sent it (`MPRISValues`:
    /// the item key from the `und` strings, whatever language is shown).
    public static func trackID(session: String, rawInfo info: [String: JSON]) -> String {
        let texts = ["title", "artist", "albumTitle", "assetURL"].map { k in info[k].flatMap { LocalizedString(json: $0)?.resolved() } }
        let key = MPRISValues.itemKey(queueIndex: info["queueIndex"]?.intValue.map { Int64($0) }, texts: texts,
                                      duration: info["duration"]?.doubleValue)
        return MPRISValues.trackID(session: session, itemKey: key)
    }

    /// The export's `xesam:url`: `assetURL` as a URI (an absolute path as `file://`, percent-encoded).
    public static func mprisURL(_ info: [String: JSON]) -> String? {
        info["assetURL"].flatMap { LocalizedString(json: $0)?.resolved() }.map(MPRISValues.uri)
    }

    /// The export's `mpris:artUrl`: the resolved cover in the daemon's artwork cache (a
    /// `file://` URL), only once resolved; never a raw source (`embedded`, a remote URL).
    public static func artURL(_ info: [String: JSON]) -> String? {
        info["artwork"]?["image"]?["url"]?.stringValue
    }

    /// True for keys whose numbers are microseconds (playerctl's `mpris:length`).
    public static func isMicroseconds(_ key: String) -> Bool { key == "mpris:length" }
}
