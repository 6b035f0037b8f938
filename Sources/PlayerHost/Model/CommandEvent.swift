import PlayerHostBase

/// A command event as handlers receive it: the command and its normalized payload.
///
/// Normalization fills what the host promises (a skip without `interval` gets
/// `preferredIntervals[0]`) and validates what a handler relies on (a rate among the supported
/// ones, a position, a repeat type…). Fields the command does not read pass through untouched.
public struct CommandEvent: Sendable, Hashable {
    public let command: RemoteCommandKind
    public let payload: CommandPayload

    public var interval: Double? { payload.interval }
    public var position: Double? { payload.position }
    public var rate: Double? { payload.rate }
    /// `changeVolume`'s level and mute (either may be absent: it keeps its value).
    public var volume: Double? { payload.volume }
    public var muted: Bool? { payload.muted }

    /// Validates and completes a sender's payload against the command's configuration. The
    /// host's decoder has checked the wire's types; the values are checked here, so a typed
    /// caller gets the same refusals.
    init(command: RemoteCommandKind, payload raw: CommandPayload, configuration c: CommandConfiguration) throws {
        var p = raw
        func bad(_ message: String) -> ModelError { ModelError.badPayload(command, message) }
        func required(_ value: Double?, _ key: String) throws -> Double {
            guard let d = value, d.isFinite else { throw ModelError.requiredNumber(command, key) }
            return d
        }
        switch command {
        case .skipForward, .skipBackward:
            if let d = p.interval {
                p.interval = try Self.checkedInterval(d, command)
            } else {
                p.interval = c.preferredIntervals.first ?? 15
            }
        case .seekForward, .seekBackward:
            guard p.seekType != nil else {
                throw ModelError.requiredChoice(command, "type", CommandPayload.SeekPhase.allCases.map(\.rawValue))
            }
        case .changePlaybackPosition:
            let position = try required(p.position, "position")
            guard position >= 0 else { throw bad("position must be >= 0") }
            try TimeBound.check(position, "position")
        case .changePlaybackRate:
            let r = try required(p.rate, "rate")
            guard c.supportedPlaybackRates.contains(r) else {
                throw ModelError.invalid(
                    "changePlaybackRate: rate \(r) is not one of supportedPlaybackRates",
                    ModelError.Detail(command: "changePlaybackRate", rate: r, supportedPlaybackRates: c.supportedPlaybackRates))
            }
        case .changeVolume:
            guard p.volume != nil || p.muted != nil else { throw bad("volume (a number) or muted (a boolean) is required") }
            if let d = p.volume {
                guard PlayerVolume.isWithin(d, upTo: c.maximumVolume) else {
                    throw ModelError.invalid(
                        "changeVolume: volume \(d) is outside 0...\(c.maximumVolume) (maximumVolume)",
                        ModelError.Detail(command: "changeVolume", volume: d, maximumVolume: c.maximumVolume))
                }
            }
        case .changeRepeatMode:
            guard p.repeatType != nil else {
                throw ModelError.requiredChoice(command, "repeatType", RepeatMode.allCases.map(\.rawValue))
            }
        case .changeShuffleMode:
            guard p.shuffleType != nil else {
                throw ModelError.requiredChoice(command, "shuffleType", ShuffleMode.allCases.map(\.rawValue))
            }
        case .rating:
            let r = try required(p.rating, "rating")
            guard r >= c.minimumRating, r <= c.maximumRating else {
                throw bad("rating must be within [\(c.minimumRating), \(c.maximumRating)]")
            }
        case .like, .dislike, .bookmark:
            if p.isNegative == nil { p.isNegative = false }
        case .enableLanguageOption, .disableLanguageOption:
            guard p.languageOption != nil else { throw bad("languageOption (an object or a language tag) is required") }
        case .play, .pause, .stop, .togglePlayPause, .nextTrack, .previousTrack:
            break
        }
        self.command = command
        self.payload = p
    }

    /// A skip's interval: a number > 0 within the time bound (shared with the host's decoder,
    /// which checks it in the wire's order).
    package static func checkedInterval(_ d: Double, _ command: RemoteCommandKind) throws -> Double {
        guard d.isFinite, d > 0 else { throw ModelError.badPayload(command, "interval must be a number > 0") }
        return try TimeBound.check(d, "interval")
    }
}
