import PlayerHostBase
import PlayerHostModel

/// One session as an MPRIS player shows it — the same mapping the daemon's MPRIS export makes
/// (`MPRISProperties`, which npctl cannot link: it lives beside the D-Bus code; the values both
/// compute, trackid and URL, are `MPRISValues`'s) — so npctl's playerctl verbs print what
/// `playerctl -p playerhost` prints, byte for byte.
///
/// Built from a snapshot reply (`nowPlaying.get`/`info.get`: `{session, info, playbackState,
/// timestamp}`, or null for "nothing Now Playing", which MPRIS shows as a Stopped player with
/// empty metadata) and, when known, the session's `commands` (from `session.get`).
public struct PlayerctlView: Sendable {
    /// The session shown, nil when nothing is.
    public let session: String?
    public let status: String
    /// `None`, `Track`, `Playlist`.
    public let loop: String
    public let shuffle: Bool
    /// Sorted by key, as the export writes the dictionary (and so as playerctl lists it).
    public let metadata: [(key: String, value: PlayerValue)]
    public let canPlay: Bool
    public let canPause: Bool
    public let canGoNext: Bool
    public let canGoPrevious: Bool
    public let canSeek: Bool
    /// Whether the session's repeat / shuffle command is available (an imported player without
    /// `LoopStatus` or `Shuffle` has it disabled, and playerctl then skips that player).
    public let hasLoop: Bool
    public let hasShuffle: Bool
    /// Seconds, when known (absent for live streams).
    public let duration: Double?
    /// The session's volume level and mute (`volume`/`muted` of the reply; 1 and false when
    /// nothing is Now Playing, as the export shows).
    public let level: Double
    public let muted: Bool
    /// `changeVolume`'s `maximumVolume`: how loud a write may ask (1 when not known).
    public let maximumVolume: Double
    let snapshot: InfoSnapshot?

    /// - Parameters:
    ///   - raw: a snapshot reply, or null.
    ///   - commands: the session's `commands` array from `session.get` (nil: not asked).
    ///   - language: for the strings shown (MPRIS shows `und`; npctl the user's language).
    public init(raw: JSON, commands: [JSON]? = nil, language: String? = nil) {
        guard !raw.isNull, let id = raw["session"]?.stringValue else {
            session = nil; status = "Stopped"; loop = "None"; shuffle = false; metadata = []
            canPlay = false; canPause = false; canGoNext = false; canGoPrevious = false; canSeek = false
            hasLoop = true; hasShuffle = true
            duration = nil; snapshot = nil
            level = 1; muted = false; maximumVolume = 1
            return
        }
        let s = InfoSnapshot(raw, language: language)
        snapshot = s
        session = id
        let rawInfo = raw["info"]?.objectValue ?? [:]
        let live = rawInfo["isLiveStream"]?.boolValue == true
        let duration = live ? nil : rawInfo["duration"]?.doubleValue
        self.duration = duration
        switch s.playbackState {
        case "playing": status = "Playing"
        case "paused", "interrupted": status = "Paused"
        default: status = "Stopped"
        }

        func command(_ name: String) -> JSON? { commands?.first { $0["command"]?.stringValue == name } }
        func available(_ name: String) -> Bool { command(name)?["isAvailable"] == true }
        switch command("changeRepeatMode")?["currentRepeatType"]?.stringValue {
        case "one": loop = "Track"
        case "all": loop = "Playlist"
        default: loop = "None"
        }
        shuffle = (command("changeShuffleMode")?["currentShuffleType"]?.stringValue ?? "off") != "off"
        level = raw["volume"]?.doubleValue ?? 1
        muted = raw["muted"]?.boolValue ?? false
        maximumVolume = command("changeVolume")?["maximumVolume"]?.doubleValue ?? 1
        hasLoop = commands == nil || available("changeRepeatMode")
        hasShuffle = commands == nil || available("changeShuffleMode")
        canPlay = available("play") || available("togglePlayPause")
        canPause = available("pause") || available("togglePlayPause")
        canGoNext = available("nextTrack")
        canGoPrevious = available("previousTrack")
        canSeek = !live && available("changePlaybackPosition")

        var m: [String: PlayerValue] = [
            "mpris:trackid": .objectPath(InfoSnapshot.trackID(session: id, rawInfo: rawInfo))
        ]
        if let t = s.info["title"]?.stringValue { m["xesam:title"] = .string(t) }
        if let a = s.info["albumTitle"]?.stringValue { m["xesam:album"] = .string(a) }
        for (key, name) in [("artist", "xesam:artist"), ("albumArtist", "xesam:albumArtist"),
                            ("genre", "xesam:genre"), ("composer", "xesam:composer")] {
            if let v = s.info[key]?.stringValue { m[name] = .strings([v]) }
        }
        if let duration { m["mpris:length"] = .int64(Microseconds.from(seconds: duration)) }
        if let u = InfoSnapshot.mprisURL(rawInfo) { m["xesam:url"] = .string(u) }
        if let url = InfoSnapshot.artURL(rawInfo) { m["mpris:artUrl"] = .string(url) }
        metadata = m.keys.sorted().compactMap { k in m[k].map { (k, $0) } }
    }

    /// The export's `Volume`: what is heard, 0 while muted.
    public var volume: Double { muted ? 0 : level }

    /// playerctl's `volume LEVEL`, `LEVEL+`, `LEVEL-`: the level to set from the current
    /// `Volume`, within [0, `maximumVolume`] as the export clamps a write. Nil when `text` is
    /// not a number (with its sign suffix), which playerctl reports.
    public func volumeTarget(_ text: String) -> Double? {
        let relative = text.hasSuffix("+") || text.hasSuffix("-")
        guard let n = Double(relative ? String(text.dropLast()) : text), n.isFinite else { return nil }
        let wanted = relative ? volume + (text.hasSuffix("-") ? -n : n) : n
        return min(max(0, wanted), maximumVolume)
    }

    /// `npctl mute [on|off|toggle]`: the mute to set (nil word: toggle). Nil for another word.
    public func muteTarget(_ word: String?) -> Bool? {
        switch word?.lowercased() {
        case nil, "toggle": return !muted
        case "on", "true", "yes": return true
        case "off", "false", "no": return false
        default: return nil
        }
    }

    /// `Position` in µs at host time `now`, as the export computes it.
    public func positionMicroseconds(at now: Double) -> Int64 {
        guard let snapshot else { return 0 }
        return Microseconds.from(seconds: snapshot.position(at: now))
    }

    /// `playerctl position`: seconds with six decimals (`%f` of the µs).
    public func positionText(at now: Double) -> String {
        CFormat.format("%f", Double(positionMicroseconds(at: now)) / 1_000_000)
    }

    public func value(_ key: String) -> PlayerValue? { metadata.first { $0.key == key }?.value }

    /// `playerctl metadata`'s table: `%-5s %-25s %s` per value (a list's values on rows of
    /// their own). Nil when there is no metadata.
    public func metadataTable(player: String) -> String? {
        var lines: [String] = []
        for (key, value) in metadata {
            for row in value.rows { lines.append(Self.pad(player, 5) + " " + Self.pad(key, 25) + " " + row) }
        }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }

    /// `playerctl metadata KEY`: `artist`, `title`, `album` mean their `xesam:` keys. Other
    /// keys npctl knows (`albumTitle`, `elapsed`, …) print too, where playerctl fails.
    public func metadataValue(_ key: String, at now: Double) -> String? {
        let mpris = ["artist": "xesam:artist", "title": "xesam:title", "album": "xesam:album"][key] ?? key
        if let v = value(mpris) { return v.printed }
        if metadata.isEmpty || key.contains(":") { return nil }
        return snapshot?.value(key, at: now).map(TimeText.text)
    }

    /// The names a template sees, as playerctl's default context: the metadata (only for
    /// `metadata`, the one verb whose context has it), `artist`/`album`/`title`, then
    /// `playerName`, `playerInstance`, `shuffle`, `status`, `loop`, `volume`, `position` (µs).
    /// Names playerctl does not have fall back to npctl's (`session`, `albumTitle`, …).
    public func context(player: String, instance: String, withMetadata: Bool, at now: Double) -> (String) -> PlayerValue? {
        let meta = withMetadata ? Dictionary(metadata.map { ($0.key, $0.value) }, uniquingKeysWith: { a, _ in a }) : [:]
        let position = positionMicroseconds(at: now)
        let snapshot = self.snapshot
        let (status, loop, shuffle, volume) = (self.status, self.loop, self.shuffle, self.volume)
        return { key in
            if let v = meta[key] { return v }
            switch key {
            case "artist", "album", "title": return withMetadata ? meta["xesam:" + key] : nil
            case "playerName": return .string(player)
            case "playerInstance": return .string(instance)
            case "shuffle": return .boolean(shuffle)
            case "status": return .string(status)
            case "loop": return .string(loop)
            case "volume": return .double(volume)
            case "position": return .int64(position)
            default:
                if key.contains(":") { return nil }
                return snapshot?.value(key, at: now).flatMap(PlayerValue.init(json:))
            }
        }
    }

    /// FNV-1a, 64 bits, 16 hex digits: the export's object-path-safe hash.
    static func hex(_ s: String) -> String { MPRISValues.hex(s) }

    /// printf's `%-Ns`: padded to N bytes.
    static func pad(_ s: String, _ width: Int) -> String {
        let n = s.utf8.count
        return n >= width ? s : s + String(repeating: " ", count: width - n)
    }
}
