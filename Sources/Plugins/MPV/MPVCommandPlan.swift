import PlayerHostPluginAPI

/// What one remote command does to mpv: the IPC commands to send, in order, and how to answer.
/// Pure, so the mapping of the command center onto mpv reads (and is tested) in one place.
struct MPVCommandPlan: Equatable {
    /// mpv commands, sent in order (mpv runs one client's commands in order).
    var commands: [[JSON]]
    /// Answer only once mpv restarted playback (a seek landed, another file opened), so the
    /// answer — and the report sent before it — describe where mpv really is.
    var awaitsRestart = false
    /// The status when mpv refuses a command (`playlist-next` at the end: there is no next).
    var refusedStatus: CommandStatus = .commandFailed
    /// mpv's answer does not matter (unshuffling a list never shuffled).
    var ignoresRefusal = false
    /// The shuffle mode to report from now on (mpv has none to read back).
    var shuffle: String?
    /// The plan ends the queue at the end of its last item (a seek there): the report says so.
    var endsQueue = false

    /// The commands this plugin handles (`addTarget`s it registers on its sessions).
    static let handled = [
        "play", "pause", "togglePlayPause", "stop", "nextTrack", "previousTrack", "skipForward",
        "skipBackward", "changePlaybackPosition", "changePlaybackRate", "changeRepeatMode",
        "changeShuffleMode", "changeVolume",
    ]

    /// The plan for `event` (a `command.handle` request's params) given mpv's state and the
    /// position now as readers infer it (`elapsed`, for relative skips), or the status to answer
    /// at once (nothing loaded: `noActionableNowPlayingItem`).
    static func make(_ event: JSON, state: MPVState, elapsed: Double? = nil) -> Result<MPVCommandPlan, StatusOnly> {
        guard let command = event["command"]?.stringValue else { return .failure(.init(.commandFailed)) }
        func number(_ key: String) -> Double? { event[key]?.doubleValue.flatMap { $0.isFinite ? $0 : nil } }
        // A setting of mpv's, not of an item: an idle mpv takes it too.
        if command == "changeVolume" { return volume(number("volume"), muted: event["muted"]?.boolValue) }
        guard state.hasItems else { return .failure(.init(.noActionableNowPlayingItem)) }
        // After the queue ended (or mpv was told to stop), mpv is idle with its playlist kept:
        // playing again starts the queue over.
        let restart: [[JSON]] = [["playlist-play-index", 0], ["set_property", "pause", false]]
        switch command {
        case "play":
            if state.current == nil { return .success(.init(commands: restart, awaitsRestart: true)) }
            return .success(.init(commands: [["set_property", "pause", false]]))
        case "pause":
            return .success(.init(commands: [["set_property", "pause", true]]))
        case "togglePlayPause":
            if state.current == nil { return .success(.init(commands: restart, awaitsRestart: true)) }
            return .success(.init(commands: [["cycle", "pause"]]))
        case "stop":
            // The model's stop: paused at the start of the item, which stays loaded (mpv's own
            // `stop` would unload it, and the session would show nothing).
            return .success(.init(commands: [["set_property", "pause", true], ["seek", 0, "absolute"]],
                                  awaitsRestart: state.current != nil))
        case "nextTrack":
            return .success(.init(commands: [["playlist-next", "weak"]], awaitsRestart: true, refusedStatus: .noSuchContent))
        case "previousTrack":
            // The first item (without repeat): back to its start, as players do.
            if state.playlistPos <= 0 && !state.loopPlaylist {
                return .success(.init(commands: [["seek", 0, "absolute"]], awaitsRestart: true))
            }
            return .success(.init(commands: [["playlist-prev", "weak"]], awaitsRestart: true, refusedStatus: .noSuchContent))
        case "skipForward", "skipBackward":
            // The host fills `interval` from preferredIntervals[0] when the sender gave none.
            guard let interval = number("interval") else { return .failure(.init(.commandFailed)) }
            let signed = command == "skipForward" ? interval : -interval
            if signed > 0, let e = elapsed, let d = state.duration, state.current != nil, e + signed >= d { return .success(toEnd(state)) }
            return .success(.init(commands: [["seek", .double(signed), "relative+exact"]], awaitsRestart: true))
        case "changePlaybackPosition":
            guard let position = number("position"), position >= 0 else { return .failure(.init(.commandFailed)) }
            if let d = state.duration, state.current != nil, position >= d { return .success(toEnd(state)) }
            return .success(.init(commands: [["seek", .double(position), "absolute+exact"]], awaitsRestart: true))
        case "changePlaybackRate":
            guard let rate = number("rate"), rate > 0 else { return .failure(.init(.commandFailed)) }
            return .success(.init(commands: [["set_property", "speed", .double(rate)]]))
        case "changeRepeatMode":
            let (file, list): (JSON, JSON)
            switch event["repeatType"]?.stringValue {
            case "off": (file, list) = ("no", "no")
            case "one": (file, list) = ("inf", "no")
            case "all": (file, list) = ("no", "inf")
            default: return .failure(.init(.commandFailed))
            }
            return .success(.init(commands: [["set_property", "loop-file", file], ["set_property", "loop-playlist", list]]))
        case "changeShuffleMode":
            switch event["shuffleType"]?.stringValue {
            case "off":
                return .success(.init(commands: [["playlist-unshuffle"]], ignoresRefusal: true, shuffle: "off"))
            case let t? where t == "items" || t == "collections":
                // mpv has no collections: shuffling its items is the nearest it has.
                return .success(.init(commands: [["playlist-shuffle"]], shuffle: t))
            default:
                return .failure(.init(.commandFailed))
            }
        default:
            return .failure(.init(.commandFailed))
        }
    }

    /// `changeVolume`: the level (host units, 1 = as recorded; mpv's are percent) and/or the
    /// mute, whichever the event has. The host checked the level against `maximumVolume` (mpv's
    /// `volume-max`); a negative or missing one sets no level, and neither is nothing to do.
    static func volume(_ level: Double?, muted: Bool?) -> Result<MPVCommandPlan, StatusOnly> {
        var commands: [[JSON]] = []
        if let v = level, v >= 0 { commands.append(["set_property", "volume", .double(v * 100)]) }
        if let m = muted { commands.append(["set_property", "mute", .bool(m)]) }
        guard !commands.isEmpty else { return .failure(.init(.commandFailed)) }
        return .success(.init(commands: commands))
    }

    /// A seek to the end of the current item, or past it: what mpv does when it plays to there,
    /// in one step. (A seek there lands, restarts playback at the end — which answered the
    /// command — and only then does mpv end the file and open the next or go idle: the answer
    /// showed the item before, or the next one half-loaded and paused at 0:00, at random;
    /// issue 22 item 10.) The file loops, or the next item plays (the first, the playlist
    /// looping), or the queue ends at the end of the last, mpv idle.
    static func toEnd(_ state: MPVState) -> MPVCommandPlan {
        if state.loopFile { return .init(commands: [["seek", 0, "absolute+exact"]], awaitsRestart: true) }
        let last = state.playlistPos >= state.playlist.count - 1 && !state.loopPlaylist
        // `force`: at the last item mpv stops playback (idle, the playlist kept) instead of refusing.
        return .init(commands: [["playlist-next", "force"]], awaitsRestart: true, endsQueue: last)
    }

    /// A status answered without asking mpv (a `Result` needs an `Error`).
    struct StatusOnly: Error, Equatable {
        let status: CommandStatus
        init(_ status: CommandStatus) { self.status = status }
    }
}
