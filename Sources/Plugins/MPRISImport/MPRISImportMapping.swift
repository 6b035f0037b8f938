import PlayerHostPluginAPI

/// What a desktop player's MPRIS2 properties mean to the model, and which MPRIS call each remote
/// command becomes. Pure: no bus, no host; `MPRISImportMappingTests` covers it without spawning.
enum MPRISImportMapping {
    static let namePrefix = "org.mpris.MediaPlayer2."
    static let objectPath = "/org/mpris/MediaPlayer2"
    static let rootInterface = "org.mpris.MediaPlayer2"
    static let playerInterface = "org.mpris.MediaPlayer2.Player"
    /// Our own export (`org.mpris.MediaPlayer2.playerhost…`): importing it would loop.
    static let ownPrefix = "org.mpris.MediaPlayer2.playerhost"

    /// Whether a bus name is a player to import: an MPRIS name, not ours, not playerctld (which
    /// proxies the others), not in `ignore` (matched against the part after the prefix, with or
    /// without its instance suffix, or the whole name).
    static func isImportable(_ name: String, ignore: [String]) -> Bool {
        guard name.hasPrefix(namePrefix), !name.hasPrefix(ownPrefix) else { return false }
        let short = String(name.dropFirst(namePrefix.count))
        guard !short.isEmpty else { return false }
        let base = short.split(separator: ".", maxSplits: 1).first.map(String.init) ?? short
        if base == "playerctld" { return false }
        return !ignore.contains { $0 == short || $0 == base || $0 == name }
    }

    /// Whether a signal's sender (as the bus stamped it) is the bus driver: a bus-driver signal
    /// (`NameOwnerChanged`) from anyone else is a peer's forgery.
    static func isFromBusDriver(_ sender: String) -> Bool { sender == "org.freedesktop.DBus" }

    /// `mpris-<name>`: the part after the prefix with anything outside `[A-Za-z0-9._-]` made `_`,
    /// instance suffix kept (`mpris-mpv.instance1234`), within the model's 64 characters.
    static func sessionID(for name: String) -> String {
        let short = name.hasPrefix(namePrefix) ? String(name.dropFirst(namePrefix.count)) : name
        let clean = String(short.unicodeScalars.map { c -> Character in
            let ok = (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9") || c == "." || c == "_" || c == "-"
            return ok ? Character(c) : "_"
        })
        return "mpris-" + String(clean.prefix(58))
    }

    /// The queue's one item from `Metadata`: title, artists joined, album, duration from
    /// `mpris:length` (µs), `mpris:artUrl` as the artwork's source. Every string within
    /// `maxStringBytes` (see `MPRISImportMapping+Bounds`): a player's 1 MiB title is cut, not
    /// left to make the whole `player.sync` too long for the host.
    static func item(_ metadata: [String: DBusValue]) -> JSON {
        var item: [String: JSON] = [:]
        var info: [String: JSON] = [:]
        if let t = boundedText(metadata["xesam:title"]) { item["title"] = .string(t) }
        if case .strings(let a)? = metadata["xesam:artist"], !a.isEmpty {
            let names: [String] = a.prefix(maxListEntries).map { text($0) }
            let joined = text(names.joined(separator: ", "))
            if !joined.isEmpty { item["artist"] = .string(joined) }
        } else if let a = boundedText(metadata["xesam:artist"]) {
            item["artist"] = .string(a)
        }
        if let album = boundedText(metadata["xesam:album"]) { info["albumTitle"] = .string(album) }
        if let d = durationSeconds(metadata) { item["duration"] = .double(d) }
        if let art = boundedURL(metadata["mpris:artUrl"]) {
            info["artwork"] = ["id": .string(art), "sources": [.string(art)]]
        }
        if let url = boundedURL(metadata["xesam:url"]) { item["url"] = .string(url) }
        if !info.isEmpty { item["info"] = .object(info) }
        return .object(item)
    }

    /// `mpris:length` in seconds; absent when not above 0 or beyond `Microseconds.maxSeconds`
    /// (INT64_MAX is "no duration", not 292 000 years).
    static func durationSeconds(_ metadata: [String: DBusValue]) -> Double? {
        guard let us = microseconds(metadata["mpris:length"]), us > 0 else { return nil }
        return Microseconds.seconds(us)
    }

    /// The `player.sync` of a moment: the item, whether it plays and at what rate, where.
    /// `position` in µs (nil when the player would not say; outside 0 ... 10⁹ s it is not known).
    static func sync(_ p: [String: DBusValue], position: Int64?) -> [String: JSON] {
        let metadata: [String: DBusValue]
        if case .dictionary(let d)? = p["Metadata"] { metadata = d } else { metadata = [:] }
        let status = p["PlaybackStatus"]?.stringValue ?? "Stopped"
        var r: [String: JSON] = [:]
        // mpv-mpris and others send an empty map, or only a NoTrack id, when nothing is loaded.
        let hasItem = metadata.keys.contains { $0 != "mpris:trackid" }
        if hasItem {
            r["items"] = [item(metadata)]
            r["index"] = 0
            r["status"] = "ready"
        } else {
            r["items"] = []
            r["status"] = "idle"
        }
        // A rate that is not finite, not above 0 or above `maxRate` is absent: 1 while playing.
        let playingRate: Double = rate(p["Rate"]) ?? 1
        r["rate"] = .double(status == "Playing" ? playingRate : 0)
        if hasItem, let position, let elapsed = Microseconds.boundedSeconds(position) { r["elapsed"] = .double(elapsed) }
        switch p["LoopStatus"]?.stringValue {
        case "Track": r["repeatMode"] = "one"
        case "Playlist": r["repeatMode"] = "all"
        case "None": r["repeatMode"] = "off"
        default: break
        }
        if let s = p["Shuffle"]?.boolValue { r["shuffleMode"] = s ? "items" : "off" }
        // The player's level within the model's range (a player may amplify past it); MPRIS has
        // no mute, so `muted` is never reported (a mute here is `Volume` 0).
        if let v = p["Volume"]?.doubleValue, v.isFinite { r["volume"] = .double(min(max(0, v), PlayerVolume.maximum)) }
        return r
    }

    /// The remote commands an imported session offers.
    static let commands = [
        "play", "pause", "togglePlayPause", "stop", "nextTrack", "previousTrack", "skipForward",
        "skipBackward", "changePlaybackPosition", "changePlaybackRate", "changeRepeatMode", "changeShuffleMode",
        "changeVolume",
    ]

    /// Whether `command` is enabled, by the player's `Can*` properties.
    static func isEnabled(_ command: String, _ p: [String: DBusValue]) -> Bool {
        switch command {
        case "play": return p.can("CanPlay")
        case "pause": return p.can("CanPause")
        case "togglePlayPause": return p.can("CanPlay") || p.can("CanPause")
        case "stop": return p.can("CanControl")
        case "nextTrack": return p.can("CanGoNext")
        case "previousTrack": return p.can("CanGoPrevious")
        case "skipForward", "skipBackward", "changePlaybackPosition": return p.can("CanSeek")
        // Writable properties: a player that cannot be controlled refuses every write.
        case "changePlaybackRate": return p.can("CanControl") && p["Rate"] != nil
        case "changeRepeatMode": return p.can("CanControl") && p["LoopStatus"] != nil
        case "changeShuffleMode": return p.can("CanControl") && p["Shuffle"] != nil
        case "changeVolume": return p.can("CanControl") && p["Volume"] != nil
        default: return false
        }
    }

    /// The playback rates an imported session offers: the usual steps within the player's
    /// `MinimumRate` ... `MaximumRate` (MPRIS 2.2 requires both; absent or not a rate, each counts
    /// as 1, so a player that cannot change rate offers 1 only). Never empty: the SPEC's rule
    /// ("a rate must be one of them") then refuses only rates the player would refuse too.
    static func supportedRates(_ p: [String: DBusValue]) -> [Double] {
        func bound(_ key: String) -> Double {
            guard let r = p[key]?.doubleValue, r.isFinite, r > 0 else { return 1 }
            return min(r, maxRate)
        }
        let low = bound("MinimumRate"), high = bound("MaximumRate")
        let within = rateSteps.filter { $0 >= low - 1e-9 && $0 <= high + 1e-9 }
        return within.isEmpty ? [1] : within
    }

    /// The steps `supportedRates` picks from (those of the host's own sessions, and beyond).
    static let rateSteps: [Double] = [0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.5, 3, 4]

    /// The player's position now, from the last one it gave (`position`, µs) and when that was
    /// read (`readAt`, ns on the loop's monotonic clock): while it plays, it has moved on by the
    /// time since, times its rate. nil when the position is not known. Pure: the caller reads
    /// the clock (at the I/O edge) and passes `now`.
    static func extrapolated(_ position: Int64?, readAt: UInt64, now: UInt64, properties p: [String: DBusValue]) -> Int64? {
        guard let position, let seconds = Microseconds.boundedSeconds(position) else { return nil }
        guard p["PlaybackStatus"]?.stringValue == "Playing", now > readAt else { return position }
        let elapsed = Double(now - readAt) / 1e9 * (rate(p["Rate"]) ?? 1)
        var moved = seconds + elapsed
        // Not past the end of the track: a player stops or moves on there, and a seek from a
        // position beyond it would land short.
        if case .dictionary(let m)? = p["Metadata"], let length = durationSeconds(m) { moved = min(moved, length) }
        return clampedMicroseconds(moved)
    }

    /// What a command becomes on the bus.
    enum Call: Equatable {
        case method(String, [DBusValue])
        case set(String, DBusValue)
    }

    /// How long the fresh `Position` read before a `Seek` by offset may take (ms); past it, the
    /// last position read, extrapolated, stands in.
    static let freshPositionTimeoutMs: UInt64 = 500

    /// Whether `event` becomes a `Seek` by offset from the current position: a position change
    /// on a player whose track has no id (`SetPosition` needs one).
    static func seeksByOffset(_ event: JSON, _ p: [String: DBusValue]) -> Bool {
        guard event["command"]?.stringValue == "changePlaybackPosition" else { return false }
        if case .dictionary(let m)? = p["Metadata"], m["mpris:trackid"]?.stringValue != nil { return false }
        return true
    }

    /// The MPRIS call for a command event (nil: the event lacks what it needs).
    static func call(for event: JSON, properties p: [String: DBusValue], position: Int64?) -> Call? {
        func number(_ key: String) -> Double? { event[key]?.doubleValue.flatMap { $0.isFinite ? $0 : nil } }
        switch event["command"]?.stringValue {
        case "play": return .method("Play", [])
        case "pause": return .method("Pause", [])
        case "togglePlayPause": return .method("PlayPause", [])
        case "stop": return .method("Stop", [])
        case "nextTrack": return .method("Next", [])
        case "previousTrack": return .method("Previous", [])
        case "skipForward", "skipBackward":
            // Saturating and clamped to ±10⁹ s: no interval a client sends traps here.
            guard let i = number("interval") else { return nil }
            let forward = event["command"]?.stringValue == "skipForward"
            let signed: Double = forward ? i : -i
            return .method("Seek", [.int64(clampedMicroseconds(signed))])
        case "changePlaybackPosition":
            guard let s = number("position"), s >= 0 else { return nil }
            let target = clampedMicroseconds(s)
            // SetPosition needs the current track's id; without one, Seek by the difference
            // from the player's position now (`position`: extrapolated by the caller from a
            // fresh read; unknown, or out of range: no seek).
            if case .dictionary(let m)? = p["Metadata"], let track = m["mpris:trackid"]?.stringValue {
                return .method("SetPosition", [.objectPath(track), .int64(target)])
            }
            guard let position, Microseconds.boundedSeconds(position) != nil else { return nil }
            return .method("Seek", [.int64(Microseconds.difference(target, position))])
        case "changePlaybackRate":
            guard let r = number("rate"), r > 0, r <= maxRate else { return nil }
            return .set("Rate", .double(r))
        case "changeVolume":
            // MPRIS has no mute: muting is Volume 0, and unmuting needs a level to go back to
            // (the player does not keep one), so `muted: false` alone cannot be done.
            if event["muted"]?.boolValue == true { return .set("Volume", .double(0)) }
            guard let v = number("volume"), v >= 0 else { return nil }
            return .set("Volume", .double(min(v, PlayerVolume.maximum)))
        case "changeRepeatMode":
            switch event["repeatType"]?.stringValue {
            case "off": return .set("LoopStatus", .string("None"))
            case "one": return .set("LoopStatus", .string("Track"))
            case "all": return .set("LoopStatus", .string("Playlist"))
            default: return nil
            }
        case "changeShuffleMode":
            switch event["shuffleType"]?.stringValue {
            case "off": return .set("Shuffle", .boolean(false))
            case "items", "collections": return .set("Shuffle", .boolean(true))
            default: return nil
            }
        default: return nil
        }
    }
}

extension MPRISImportMapping {
    /// Seconds → µs within ±`Microseconds.maxSeconds` (the bound the socket also enforces).
    static func clampedMicroseconds(_ seconds: Double) -> Int64 {
        let clamped = min(max(seconds, -Microseconds.maxSeconds), Microseconds.maxSeconds)
        return Microseconds.from(seconds: clamped)
    }
}

extension Dictionary where Key == String, Value == DBusValue {
    /// A `Can*` property; absent counts as false (the spec's safe reading).
    func can(_ name: String) -> Bool { self[name]?.boolValue ?? false }
}
