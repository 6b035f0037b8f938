import PlayerHostBase

/// Audio session category (≈ AVAudioSession.Category).
public enum AudioCategory: String, Sendable, Hashable, CaseIterable {
    /// Non-mixable, the Now Playing category.
    case playback
    case playAndRecord
    /// Apple's default: non-mixable.
    case soloAmbient
    /// Always mixable: never Now Playing.
    case ambient
}

/// Category options (≈ AVAudioSession.CategoryOptions); both make a session mixable
/// (`duckOthers` implies `mixWithOthers`, as on Apple platforms).
public enum AudioOption: String, Sendable, Hashable, CaseIterable, Comparable {
    case mixWithOthers, duckOthers

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// Who interrupted a session.
public enum InterruptionSource: Sendable, Hashable, Comparable {
    /// `audio.interrupt began` (a call, an alarm…).
    case system
    /// Another app's session that activated non-mixable audio.
    case session(SessionID)

    public var name: String {
        switch self {
        case .system: return "system"
        case .session(let s): return "session:\(s)"
        }
    }

    public static func < (a: Self, b: Self) -> Bool { a.name < b.name }
}

/// `began` / `ended`, the `audio.interrupt` type.
public enum InterruptionType: String, Sendable, Hashable, CaseIterable {
    case began, ended
}

/// A session's own audio session (≈ AVAudioSession).
public struct AudioSession: Sendable, Hashable {
    public internal(set) var category: AudioCategory = .soloAmbient
    public internal(set) var options: Set<AudioOption> = []
    public internal(set) var isActive = false
    /// The host's `UIBackgroundModes = audio`: the session outlives its app.
    public internal(set) var backgroundAudio = false
    /// Current interruptions; interrupted while non-empty.
    public internal(set) var interruptions: Set<InterruptionSource> = []
    /// The clock players an interruption paused while they played: its end with
    /// `shouldResume` plays them again (the host is their engine, so it resumes them, as mpv's
    /// plugin resumes mpv). Emptied when the session activates or the interruption ends.
    public internal(set) var pausedByInterruption: Set<PlayerID> = []

    public init() {}

    /// Mixable sessions are never Now Playing.
    public var isMixable: Bool { category == .ambient || !options.isEmpty }
    public var isInterrupted: Bool { !interruptions.isEmpty }
}
