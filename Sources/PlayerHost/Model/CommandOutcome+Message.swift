/// A command's outcome in words (issue 22: `nextTrack on mpv: noSuchContent` told a person
/// nothing). npctl prints `message`; the status code stays in the reply (`--json`).
extension CommandOutcome {
    /// What happened, naming the session: nil on success.
    public var message: String? {
        if status == .success { return nil }
        if let reason { return "\(Self.phrase(command)) on \(session) refused: \(reason)" }
        return Self.describe(command, status, session: session)
    }

    /// The sentence for a non-success `status` of `command` on `session`.
    public static func describe(_ command: RemoteCommandKind, _ status: CommandStatus, session: SessionID) -> String {
        switch status {
        case .success:
            return "\(phrase(command)) on \(session): done"
        case .noSuchContent:
            switch command {
            case .nextTrack: return "no next item in the queue of \(session)"
            case .previousTrack: return "no previous item in the queue of \(session)"
            case .play, .togglePlayPause: return "nothing to play in \(session): its queue is empty"
            case .changePlaybackPosition, .skipForward, .skipBackward, .seekForward, .seekBackward:
                return "\(session) cannot \(phrase(command)): no such position in its current item"
            case .enableLanguageOption, .disableLanguageOption: return "\(session) has no such language option"
            default: return "\(session) has nothing to \(phrase(command))"
            }
        case .noActionableNowPlayingItem:
            return "\(session) has no current item to \(phrase(command))"
        case .deviceNotFound:
            return "\(session) cannot \(phrase(command)): its output device is not there"
        case .commandFailed:
            return "\(session) could not \(phrase(command)) (its player or app reported a failure, or did not answer in time)"
        }
    }

    /// The command as a verb phrase: `skip to the next item`, `seek`.
    public static func phrase(_ command: RemoteCommandKind) -> String {
        switch command {
        case .play: return "play"
        case .pause: return "pause"
        case .stop: return "stop"
        case .togglePlayPause: return "play or pause"
        case .nextTrack: return "skip to the next item"
        case .previousTrack: return "go back to the previous item"
        case .skipForward: return "skip forward"
        case .skipBackward: return "skip backward"
        case .seekForward: return "seek forward"
        case .seekBackward: return "seek backward"
        case .changePlaybackPosition: return "seek"
        case .changePlaybackRate: return "change the rate"
        case .changeRepeatMode: return "change the repeat mode"
        case .changeShuffleMode: return "change shuffle"
        case .changeVolume: return "change the volume"
        case .rating: return "rate the item"
        case .like: return "like the item"
        case .dislike: return "dislike the item"
        case .bookmark: return "bookmark the item"
        case .enableLanguageOption: return "turn a language option on"
        case .disableLanguageOption: return "turn a language option off"
        }
    }
}
