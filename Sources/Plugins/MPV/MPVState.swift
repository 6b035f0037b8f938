import PlayerHostPluginAPI

/// What the plugin knows of one mpv: the properties it observes — never `time-pos`, which
/// changes continuously and would be a stream of ticks — plus the tags it learned per file, and
/// the `player.sync` report they make at a key moment.
struct MPVState: Equatable {
    /// One entry of mpv's `playlist`.
    struct Entry: Equatable {
        var filename: String
        var title: String?
    }

    /// A file's tags and length, kept once learned so the rest of the queue shows them too.
    struct Tags: Equatable {
        var title: String?
        var artist: String?
        var album: String?
        var duration: Double?
    }

    /// Observed with `observe_property`. Each changes only at a key moment (a pause, a seek's
    /// end, another file, a new speed…), so observing them never makes a stream of events.
    static let observed = [
        "pause", "duration", "metadata", "media-title", "speed", "playlist-pos", "playlist-count",
        "eof-reached", "idle-active", "loop-file", "loop-playlist", "playlist", "volume", "mute",
    ]

    var pause = false
    var speed = 1.0
    var duration: Double?
    var metadata: [String: JSON] = [:]
    var mediaTitle: String?
    var playlistPos = -1
    var playlistCount = 0
    var playlist: [Entry] = []
    var eofReached = false
    var idleActive = true
    var loopFile = false
    var loopPlaylist = false
    /// mpv's `volume`, in percent (100: the media as recorded; up to its `volume-max`, 130 by default).
    var volume = 100.0
    var mute = false
    /// mpv shuffles its playlist in place and has no mode to read back: the plugin keeps it.
    var shuffle = "off"
    /// The last valid `playlist-pos`: mpv says -1 once the queue ended, the host keeps an index.
    var lastIndex = 0
    /// The file mpv last played (or seeked) to its end, until another starts: when mpv is idle
    /// on it, the queue ended at that file's end. (mpv has no `time-pos` once idle; without this
    /// the host kept whatever position it last had — 1:55 or 2:00 of a 2:00 item at random, by
    /// whether a report came between the seek and the end — issue 22 item 10.)
    var endedFile: String?
    var known: [String: Tags] = [:]

    /// Takes one property value (from `property-change` or a `get_property`).
    mutating func apply(_ name: String, _ value: JSON) {
        switch name {
        case "pause": pause = value.boolValue ?? pause
        case "speed": speed = value.doubleValue ?? speed
        case "volume": volume = value.doubleValue.flatMap { $0.isFinite ? $0 : nil } ?? volume
        case "mute": mute = value.boolValue ?? mute
        case "duration": duration = value.doubleValue
        case "metadata": metadata = value.objectValue ?? [:]
        case "media-title": mediaTitle = value.stringValue
        case "playlist-pos":
            let pos = value.intValue ?? -1
            if pos != playlistPos {
                // What mpv said of the previous file is not this one's; its own comes once loaded.
                metadata = [:]
                duration = nil
                mediaTitle = nil
            }
            playlistPos = pos
            if playlistPos >= 0 { lastIndex = playlistPos }
        case "playlist-count": playlistCount = value.intValue ?? 0
        case "eof-reached": eofReached = value.boolValue ?? false
        case "idle-active": idleActive = value.boolValue ?? false
        case "loop-file": loopFile = Self.loops(value)
        case "loop-playlist": loopPlaylist = Self.loops(value)
        case "playlist":
            playlist = (value.arrayValue ?? []).compactMap { e in
                e["filename"]?.stringValue.map { Entry(filename: $0, title: e["title"]?.stringValue) }
            }
        default: return
        }
        if name == "metadata" || name == "duration" { remember() }
    }

    /// `loop-file`/`loop-playlist` are `false`/`"no"`, `true`, `"inf"`, `"force"` or a count.
    static func loops(_ v: JSON) -> Bool {
        if let b = v.boolValue { return b }
        if let s = v.stringValue { return s != "no" }
        if let n = v.intValue { return n > 0 }
        return false
    }

    /// The playing file, if any.
    var current: Entry? { playlist.indices.contains(playlistPos) ? playlist[playlistPos] : nil }

    /// Whether mpv has anything to play.
    var hasItems: Bool { !playlist.isEmpty }

    /// Whether media time is moving.
    var isPlaying: Bool { !pause && !idleActive && current != nil }

    /// Files' tags are case-insensitive by convention (Vorbis `TITLE`, ID3 mapped to `title`).
    private func tag(_ key: String) -> String? {
        for (k, v) in metadata where k.lowercased() == key {
            if let s = v.stringValue, !s.isEmpty { return s }
        }
        return nil
    }

    /// Keeps what mpv says about the current file under its name, for when it is not current.
    private mutating func remember() {
        guard let file = current?.filename else { return }
        var t = known[file] ?? Tags()
        if !metadata.isEmpty {
            t.title = tag("title") ?? tag("icy-title") ?? t.title
            t.artist = tag("artist") ?? tag("album_artist") ?? t.artist
            t.album = tag("album") ?? t.album
        }
        if let d = duration { t.duration = d }
        known[file] = t
    }

    /// A title for a file without tags: the last path component of its name or URL.
    static func displayName(_ filename: String) -> String {
        let trimmed = filename.hasSuffix("/") ? String(filename.dropLast()) : filename
        return trimmed.split(separator: "/").last.map(String.init) ?? filename
    }

    /// The item object of one playlist entry (`player.sync` items).
    func item(_ index: Int) -> JSON {
        let e = playlist[index]
        let t = known[e.filename] ?? Tags()
        let isCurrent = index == playlistPos
        // media-title is mpv's own fallback (tag, then stream title, then file name).
        let title = t.title ?? e.title ?? (isCurrent ? mediaTitle : nil) ?? Self.displayName(e.filename)
        var o: [String: JSON] = ["title": .string(title), "url": .string(e.filename)]
        if let a = t.artist { o["artist"] = .string(a) }
        if let d = t.duration { o["duration"] = .double(d) }
        if let album = t.album { o["info"] = ["albumTitle": .string(album)] }
        return .object(o)
    }

    /// The `player.sync` params (without `session`) for this state, volume and mute always (an
    /// idle mpv has a volume too). `elapsed` is `time-pos` read at this moment (nil: keep the
    /// host's). `failed`: mpv is gone; `loading`: a file is opening.
    func report(elapsed: Double?, failed: Bool = false, loading: Bool = false) -> [String: JSON] {
        var r: [String: JSON] = [
            "items": .array(playlist.indices.map(item)),
            "repeatMode": .string(loopFile ? "one" : loopPlaylist ? "all" : "off"),
            "shuffleMode": .string(shuffle),
            // The host's level is mpv's percent / 100 (1: as recorded), bounded as player.sync
            // accepts it; mpv's own bound (volume-max) is the session's maximumVolume.
            "volume": .double(min(max(0, volume / 100), 1.5)),
            "muted": .bool(mute),
        ]
        guard hasItems else {
            r["status"] = failed ? "failed" : "idle"
            r["rate"] = 0
            return r
        }
        let index = playlistPos >= 0 ? playlistPos : min(lastIndex, playlist.count - 1)
        r["index"] = .int(Int64(index))
        r["status"] = failed ? "failed" : loading ? "loading" : "ready"
        r["rate"] = .double(!failed && !loading && isPlaying ? speed : 0)
        if let e = elapsed, e.isFinite { r["elapsed"] = .double(max(0, e)) }
        // The queue ended (mpv idle after its last item's end): stopped at the end of that item,
        // as mpv is (`play` starts the queue over).
        if playlistPos < 0, idleActive, !failed, let ended = endedFile, playlist[index].filename == ended,
           let d = known[ended]?.duration, d.isFinite, d >= 0 {
            r["elapsed"] = .double(d)
        }
        if current != nil, let d = duration, d.isFinite, d >= 0 { r["duration"] = .double(d) }
        return r
    }
}
