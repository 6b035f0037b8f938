import PlayerHostBase

/// What a sender gives with a command (`command.send`'s fields), typed.
///
/// The host decodes the wire's object into this (Host/ModelJSON/CommandPayload+Decoding.swift),
/// checking each field's type; the model checks the values against the command's configuration
/// (`CommandEvent`). Only the fields the command reads are decoded; the rest travel in `extra`.
public struct CommandPayload: Sendable, Hashable {
    /// `seekForward`/`seekBackward`'s phase (the wire's `type`).
    public enum SeekPhase: String, Sendable, Hashable, CaseIterable {
        case begin, end
    }

    /// `enableLanguageOption`/`disableLanguageOption`'s option: a language tag, or an object the
    /// host never reads.
    public enum LanguageOptionChoice: Sendable, Hashable {
        case tag(String)
        /// Kept as the sender wrote it: it is forwarded to the out-of-process handler unread.
        case object([String: JSON])
    }

    /// `skipForward`/`skipBackward`, seconds (> 0; default `preferredIntervals[0]`).
    public var interval: Double?
    /// `changePlaybackPosition`'s target, seconds (>= 0).
    public var position: Double?
    /// `changePlaybackRate`'s rate (one of `supportedPlaybackRates`).
    public var rate: Double?
    /// `seekForward`/`seekBackward`'s phase (the wire's `type`).
    public var seekType: SeekPhase?
    public var repeatType: RepeatMode?
    public var shuffleType: ShuffleMode?
    /// `changeVolume`'s level (0...maximumVolume) and mute; either may be absent.
    public var volume: Double?
    public var muted: Bool?
    /// `rating`'s value (within minimumRating...maximumRating).
    public var rating: Double?
    /// `like`/`dislike`/`bookmark` (default false).
    public var isNegative: Bool?
    public var languageOption: LanguageOptionChoice?
    /// Fields the host does not read (and `null`s), passed to out-of-process handlers untouched:
    /// a sender and its handler may agree on more than the host knows. JSON because the host
    /// never looks inside.
    public var extra: [String: JSON]

    public init(interval: Double? = nil, position: Double? = nil, rate: Double? = nil, seekType: SeekPhase? = nil,
                repeatType: RepeatMode? = nil, shuffleType: ShuffleMode? = nil, volume: Double? = nil,
                muted: Bool? = nil, rating: Double? = nil, isNegative: Bool? = nil,
                languageOption: LanguageOptionChoice? = nil, extra: [String: JSON] = [:]) {
        self.interval = interval
        self.position = position
        self.rate = rate
        self.seekType = seekType
        self.repeatType = repeatType
        self.shuffleType = shuffleType
        self.volume = volume
        self.muted = muted
        self.rating = rating
        self.isNegative = isNegative
        self.languageOption = languageOption
        self.extra = extra
    }

    /// The wire names of the fields `command` reads (the rest go to `extra`).
    public static func fields(of command: RemoteCommandKind) -> [String] {
        switch command {
        case .skipForward, .skipBackward: return ["interval"]
        case .seekForward, .seekBackward: return ["type"]
        case .changePlaybackPosition: return ["position"]
        case .changePlaybackRate: return ["rate"]
        case .changeVolume: return ["volume", "muted"]
        case .changeRepeatMode: return ["repeatType"]
        case .changeShuffleMode: return ["shuffleType"]
        case .rating: return ["rating"]
        case .like, .dislike, .bookmark: return ["isNegative"]
        case .enableLanguageOption, .disableLanguageOption: return ["languageOption"]
        case .play, .pause, .stop, .togglePlayPause, .nextTrack, .previousTrack: return []
        }
    }
}

extension ModelError {
    /// A payload `command` cannot run with: `invalidArgument`, the message prefixed with the
    /// command, the command as data.
    package static func badPayload(_ command: RemoteCommandKind, _ message: String) -> ModelError {
        ModelError.invalid("\(command.rawValue): \(message)", ModelError.Detail(command: command.rawValue))
    }

    /// The sentence for a missing or mistyped number (`rate (a number) is required`).
    package static func requiredNumber(_ command: RemoteCommandKind, _ key: String) -> ModelError {
        badPayload(command, "\(key) (a number) is required")
    }

    /// The sentence for a missing or unknown enum value (`type must be one of begin, end`).
    package static func requiredChoice(_ command: RemoteCommandKind, _ key: String, _ allowed: [String]) -> ModelError {
        badPayload(command, "\(key) must be one of \(allowed.joined(separator: ", "))")
    }
}
