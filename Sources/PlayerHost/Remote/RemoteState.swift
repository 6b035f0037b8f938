import PlayerHostBase
import PlayerHostClient
import PlayerHostRPC

/// The page's view of the host, built from two replies (`nowPlaying.get`, `session.list`): Now
/// Playing as anchors — `elapsed` at `timestamp` (the host's monotonic seconds) moving at `rate`
/// — so the page animates the progress bar itself and nothing is sent while playback is steady.
/// Pure; `message` is what goes on the WebSocket, without the send time, so two equal states
/// compare equal and a repeat is never sent.
public struct RemoteState: Sendable, Equatable {
    /// The `state` message's body (no `now`).
    public var body: JSON
    /// The cover's id (by content) → the session it belongs to, for `/art/<id>`.
    public var artwork: [String: String]

    public init(nowPlaying: JSON?, sessions: JSON?) {
        var art: [String: String] = [:]
        var np: JSON = .null
        if let nowPlaying, nowPlaying != .null, nowPlaying["session"]?.stringValue != nil {
            let s = InfoSnapshot(nowPlaying)
            var o: [String: JSON] = [
                "session": .string(s.session), "state": .string(s.playbackState),
                "elapsed": .double(s.info["elapsed"]?.doubleValue ?? 0), "rate": .double(s.rate),
            ]
            for key in ["title", "artist", "album"] { if let v = s.info[key]?.stringValue { o[key] = .string(v) } }
            if let d = s.duration { o["duration"] = .double(d) }
            if let t = s.timestamp { o["timestamp"] = .double(t) }
            if let v = nowPlaying["volume"]?.doubleValue { o["volume"] = .double(v) }
            if let m = nowPlaying["muted"] { o["muted"] = m }
            if let url = InfoSnapshot.artURL(s.info) {
                let id = Self.artworkID(url)
                art[id] = s.session
                o["art"] = .string(id)
            }
            np = .object(o)
        }
        let rows: [JSON] = (sessions?.arrayValue ?? []).prefix(256).map { r in
            var o: [String: JSON] = [:]
            for key in ["id", "kind", "app", "appName", "playbackState", "isActive", "canBecomeActive", "isNowPlaying"] {
                if let v = r[key] { o[key] = v }
            }
            return .object(o)
        }
        body = ["type": "state", "nowPlaying": np, "sessions": .array(rows)]
        artwork = art
    }

    /// The message with the host's time of sending (`now`), which the page needs to place the
    /// anchors on its own clock.
    public func message(now: Double) -> String {
        var b = body.objectValue ?? [:]
        b["now"] = .double(now)
        return JSON.object(b).jsonString
    }

    /// A cover's id: FNV-1a 64 of its cache file's URL, whose name holds the content's size and
    /// checksum — so a new cover has a new id, and `/art/<id>` can be cached as immutable.
    public static func artworkID(_ url: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in url.utf8 {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01b3
        }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
