import PlayerHostPluginAPI

/// What the mpv plugin keeps of one session across a daemon restart, to reopen it — paused — in
/// a new mpv: the files, the item, the position, the modes, the volume and mute, and the outputs
/// it was opened with.
/// The plugin hands the list to the host (`plugin.saveState`), which writes it in its state file
/// and gives it back after the restart (`plugin.savedState`).
///
/// The position is kept as an anchor — `elapsed` at the wall-clock instant `at`, moving at
/// `rate` — taken at the plugin's last report, because steady playback reports nothing. Reopened,
/// it is extrapolated to when the host last wrote its file (`savedAt`): the orderly stop's
/// instant, or after `kill -9` the last write, as for the host's own sessions.
struct MPVSavedSession: Equatable {
    var session: String
    var urls: [String]
    /// Index into `urls` of the current item.
    var index: Int
    var elapsed: Double
    /// The rate at `at` (> 0: it was playing).
    var rate: Double
    /// Wall-clock seconds (since the epoch) when `elapsed` was true.
    var at: Double
    /// The current item's length, when known (bounds the extrapolation).
    var duration: Double?
    var loopFile = false
    var loopPlaylist = false
    var shuffle = "off"
    /// The level in the host's units (1: as recorded; mpv's `volume` / 100), within 0 and
    /// `MPVPlugin.maximumVolume`, and the mute (the host's snapshot keeps neither of a plugin's).
    var volume = 1.0
    var muted = false
    var audioOutput: String?
    var videoOutput: String?

    /// The version of the plugin's state value (inside the host's file, which has its own).
    static let version = 1

    /// The position to reopen at: extrapolated to `savedAt` if it was playing, within the item.
    func position(savedAt: Double?) -> Double {
        var e = elapsed
        if rate > 0, let savedAt, savedAt > at { e += rate * (savedAt - at) }
        if let d = duration, d > 0 { e = min(e, d) }
        return e.isFinite ? min(max(0, e), Microseconds.maxSeconds) : 0
    }

    var json: JSON {
        var o: [String: JSON] = [
            "session": .string(session), "urls": .array(urls.map(JSON.string)), "index": .int(Int64(index)),
            "elapsed": .double(elapsed), "rate": .double(rate), "at": .double(at),
            "loopFile": .bool(loopFile), "loopPlaylist": .bool(loopPlaylist), "shuffle": .string(shuffle),
            "volume": .double(volume), "muted": .bool(muted),
        ]
        if let d = duration { o["duration"] = .double(d) }
        if let ao = audioOutput { o["ao"] = .string(ao) }
        if let vo = videoOutput { o["vo"] = .string(vo) }
        return .object(o)
    }

    /// One kept session, or nil if it lacks what reopening needs (a file from elsewhere is
    /// skipped, not trusted: the plugin checks its URLs and outputs again before using them).
    init?(json j: JSON) {
        guard let session = j["session"]?.stringValue, !session.isEmpty,
              let list = j["urls"]?.arrayValue, !list.isEmpty else { return nil }
        let urls = list.compactMap(\.stringValue)
        guard urls.count == list.count else { return nil }
        self.session = session
        self.urls = urls
        index = min(max(j["index"]?.intValue ?? 0, 0), urls.count - 1)
        // Times from a file: a value out of the host's bounds is none (the start of the item).
        elapsed = j["elapsed"]?.doubleValue.flatMap { Microseconds.isInBounds($0) ? max(0, $0) : nil } ?? 0
        rate = j["rate"]?.doubleValue.flatMap { $0.isFinite && $0.magnitude <= 100 ? $0 : nil } ?? 0
        at = j["at"]?.doubleValue.flatMap { $0.isFinite ? $0 : nil } ?? 0
        duration = j["duration"]?.doubleValue.flatMap { Microseconds.isInBounds($0) && $0 > 0 ? $0 : nil }
        loopFile = j["loopFile"]?.boolValue ?? false
        loopPlaylist = j["loopPlaylist"]?.boolValue ?? false
        shuffle = j["shuffle"]?.stringValue ?? "off"
        // From a file: a level that is not one is mpv's default, one too loud is the loudest.
        volume = j["volume"]?.doubleValue.flatMap { $0.isFinite ? min(max(0, $0), MPVPlugin.maximumVolume) : nil } ?? 1
        muted = j["muted"]?.boolValue ?? false
        audioOutput = j["ao"]?.stringValue
        videoOutput = j["vo"]?.stringValue
    }

    init(session: String, urls: [String], index: Int, elapsed: Double, rate: Double, at: Double) {
        self.session = session
        self.urls = urls
        self.index = index
        self.elapsed = elapsed
        self.rate = rate
        self.at = at
    }

    /// The plugin's whole state value: its sessions, least recently used first.
    static func stateJSON(_ sessions: [MPVSavedSession]) -> JSON {
        ["version": .int(Int64(version)), "sessions": .array(sessions.map(\.json))]
    }

    /// The sessions of a state value (none from a newer version, or from something else).
    static func sessions(in state: JSON?) -> [MPVSavedSession] {
        guard let state, let v = state["version"]?.intValue, v <= version else { return [] }
        return (state["sessions"]?.arrayValue ?? []).compactMap(MPVSavedSession.init(json:))
    }
}
