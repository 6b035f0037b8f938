import PlayerHost

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
    /// `mpris:length` (µs), `mpris:artUrl` as the artwork's source.
    static func item(_ metadata: [String: DBusValue]) -> JSON {
        var item: [String: JSON] = [:]
        var info: [String: JSON] = [:]
        if let t = metadata["xesam:title"]?.stringValue, !t.isEmpty { item["title"] = .string(t) }
        if case .strings(let a)? = metadata["xesam:artist"], !a.isEmpty {
            item["artist"] = .string(a.joined(separator: ", "))
        } else if let a = metadata["xesam:artist"]?.stringValue, !a.isEmpty {
            item["artist"] = .string(a)
        }
        if let album = metadata["xesam:album"]?.stringValue, !album.isEmpty { info["albumTitle"] = .string(album) }
        if let d = durationSeconds(metadata) { item["duration"] = .double(d) }
        if let art = metadata["mpris:artUrl"]?.stringValue, !art.isEmpty {
            info["artwork"] = ["id": .string(art), "sources": [.string(art)]]
        }
        if let url = metadata["xesam:url"]?.stringValue, !url.isEmpty { item["url"] = .string(url) }
        if !info.isEmpty { item["info"] = .object(info) }
        return .object(item)
    }

    static func durationSeconds(_ metadata: [String: DBusValue]) -> Double? {
        guard let us = metadata["mpris:length"]?.int64Value, us > 0 else { return nil }
        return Double(us) / 1_000_000
    }

    /// The `player.sync` of a moment: the item, whether it plays and at what rate, where.
    /// `position` in µs (nil when the player would not say).
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
        let rate = p["Rate"]?.doubleValue ?? 1
        r["rate"] = .double(status == "Playing" ? (rate > 0 ? rate : 1) : 0)
        if hasItem, let position, position >= 0 { r["elapsed"] = .double(Double(position) / 1_000_000) }
        switch p["LoopStatus"]?.stringValue {
        case "Track": r["repeatMode"] = "one"
        case "Playlist": r["repeatMode"] = "all"
        case "None": r["repeatMode"] = "off"
        default: break
        }
        if let s = p["Shuffle"]?.boolValue { r["shuffleMode"] = s ? "items" : "off" }
        return r
    }

    /// The remote commands an imported session offers.
    static let commands = [
        "play", "pause", "togglePlayPause", "stop", "nextTrack", "previousTrack", "skipForward",
        "skipBackward", "changePlaybackPosition", "changePlaybackRate", "changeRepeatMode", "changeShuffleMode",
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
        default: return false
        }
    }

    /// What a command becomes on the bus.
    enum Call: Equatable {
        case method(String, [DBusValue])
        case set(String, DBusValue)
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
            guard let i = number("interval") else { return nil }
            let us = Int64((event["command"] == "skipForward" ? i : -i) * 1_000_000)
            return .method("Seek", [.int64(us)])
        case "changePlaybackPosition":
            guard let s = number("position"), s >= 0 else { return nil }
            // SetPosition needs the current track's id; without one, Seek by the difference.
            if case .dictionary(let m)? = p["Metadata"], let track = m["mpris:trackid"]?.stringValue {
                return .method("SetPosition", [.objectPath(track), .int64(Int64(s * 1_000_000))])
            }
            guard let position else { return nil }
            return .method("Seek", [.int64(Int64(s * 1_000_000) - position)])
        case "changePlaybackRate":
            guard let r = number("rate"), r > 0 else { return nil }
            return .set("Rate", .double(r))
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

extension Dictionary where Key == String, Value == DBusValue {
    /// A `Can*` property; absent counts as false (the spec's safe reading).
    func can(_ name: String) -> Bool { self[name]?.boolValue ?? false }
}
