import PlayerHostBase

/// Every remote command of SPEC's table, with its wire name.
public enum RemoteCommandKind: String, Sendable, Hashable, CaseIterable, Comparable {
    case play, pause, stop, togglePlayPause, nextTrack, previousTrack
    case skipForward, skipBackward, seekForward, seekBackward
    case changePlaybackPosition, changePlaybackRate, changeRepeatMode, changeShuffleMode, changeVolume
    case rating, like, dislike, bookmark, enableLanguageOption, disableLanguageOption

    /// What `bindDefaultCommands` targets and enables (for an external session: only enables).
    public static let defaultBound: [RemoteCommandKind] = [
        .play, .pause, .togglePlayPause, .stop, .nextTrack, .previousTrack,
        .skipForward, .skipBackward, .changePlaybackPosition, .changePlaybackRate,
        .changeRepeatMode, .changeShuffleMode, .changeVolume,
    ]

    /// Parses a wire name; unknown names are `invalidArgument`.
    public static func parse(_ name: String) throws -> RemoteCommandKind {
        guard let k = RemoteCommandKind(rawValue: name) else {
            throw ModelError.invalid("unknown command '\(name)'", ModelError.Detail(command: name))
        }
        return k
    }

    /// Configuration properties this command accepts in `command.configure`.
    public var configurationKeys: [String] {
        switch self {
        case .skipForward, .skipBackward: return ["preferredIntervals"]
        case .changePlaybackRate: return ["supportedPlaybackRates"]
        case .changeRepeatMode: return ["currentRepeatType"]
        case .changeShuffleMode: return ["currentShuffleType"]
        case .changeVolume: return ["maximumVolume"]
        case .rating: return ["minimumRating", "maximumRating"]
        case .like, .dislike, .bookmark: return ["isActive", "localizedTitle"]
        default: return []
        }
    }

    public static func < (a: Self, b: Self) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// A handler's result (≈ MPRemoteCommandHandlerStatus), with its numeric value.
public enum CommandStatus: Int, Sendable, Hashable, CaseIterable {
    case success = 0
    case noSuchContent = 100
    case noActionableNowPlayingItem = 110
    case deviceNotFound = 120
    case commandFailed = 200

    /// The wire name (`success`, `noSuchContent`, …).
    public var name: String {
        switch self {
        case .success: return "success"
        case .noSuchContent: return "noSuchContent"
        case .noActionableNowPlayingItem: return "noActionableNowPlayingItem"
        case .deviceNotFound: return "deviceNotFound"
        case .commandFailed: return "commandFailed"
        }
    }

}

/// Per-command configuration; only the properties relevant to a command are shown or accepted.
public struct CommandConfiguration: Sendable, Hashable {
    public var preferredIntervals: [Double] = [15]
    public var supportedPlaybackRates: [Double] = []
    public var currentRepeatType: RepeatMode = .off
    public var currentShuffleType: ShuffleMode = .off
    /// The loudest level `changeVolume` may set: 1 (the media as recorded) unless the driver
    /// amplifies (mpv: its `volume-max`), at most `PlayerVolume.maximum`.
    public var maximumVolume: Double = 1
    public var minimumRating: Double = 0
    public var maximumRating: Double = 5
    public var isActive = false
    public var localizedTitle = ""

    public init() {}
}

/// Who handles a command when it is sent.
public enum CommandHandler: Sendable, Hashable {
    /// Built in: drive these players of the session (indices; all four for multi-view).
    case players([Int])
    /// Out of process: the host asks this client (`command.handle`) and reports its status.
    case external(ClientID)
}

/// One target of a command, identified by a host-wide token.
public struct CommandTarget: Sendable, Hashable {
    public let token: Int
    public let handler: CommandHandler
}

/// One command of a session's command center (≈ MPRemoteCommand).
public struct RemoteCommand: Sendable, Hashable {
    public let kind: RemoteCommandKind
    /// False until set, as the seeds insist.
    public internal(set) var isEnabled = false
    public internal(set) var targets: [CommandTarget] = []
    public internal(set) var configuration = CommandConfiguration()

    public init(kind: RemoteCommandKind) { self.kind = kind }

    /// Enabled and targeted: what eligibility and remote UIs count.
    public var isAvailable: Bool { isEnabled && !targets.isEmpty }
}
