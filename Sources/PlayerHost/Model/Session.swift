import PlayerHostBase

/// What kind of session: the built-in compositions or a plugin's own kind.
public enum SessionKind: Sendable, Hashable, CustomStringConvertible {
    case main, pip, multiview
    case plugin(String)

    /// `main`, `pip`, `multiview`, or any other identifier as a plugin kind.
    public init(_ name: String) throws {
        switch name {
        case "main": self = .main
        case "pip": self = .pip
        case "multiview": self = .multiview
        default:
            guard !name.isEmpty, name.count <= 64,
                name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." })
            else { throw ModelError.invalid("session kind '\(name)' is not an identifier") }
            self = .plugin(name)
        }
    }

    public var description: String {
        switch self {
        case .main: return "main"
        case .pip: return "pip"
        case .multiview: return "multiview"
        case .plugin(let k): return k
        }
    }

    /// Players a session of this kind gets when the creator does not say.
    public var defaultPlayerCount: Int { self == .multiview ? 4 : 1 }
}

/// Derived playback state; never set, so it cannot disagree with the rate.
public enum PlaybackState: String, Sendable, Hashable, CaseIterable {
    case playing, paused, stopped, interrupted
}

/// An owner of sessions: a connection that said `host.hello`, a plugin, or the host itself.
public struct App: Sendable, Hashable {
    public let id: AppID
    /// The name it gave, as given (an imported MPRIS player's `Identity`: "Fake Player").
    public let name: String
    /// Its freedesktop desktop entry (`org.gnome.Rhythmbox3`, an imported player's `DesktopEntry`).
    public internal(set) var desktopEntry: String?
    /// The connection it lives on; nil for the host and in-process plugins.
    public let client: ClientID?
    /// The session it asked to be active (`becomeActiveIfPossible`); sticky while it exists.
    public internal(set) var preferredSession: SessionID?
    /// Logical time it last started playback (rate 0 → > 0).
    public internal(set) var lastPlaybackStart: UInt64?
    /// Logical time it last took the Now Playing slot.
    public internal(set) var lastHeldSlot: UInt64?
    let order: UInt64
}

/// A player known to the host; it belongs to at most one session.
public struct Player: Sendable, Hashable {
    public let id: PlayerID
    public internal(set) var session: SessionID?
    public internal(set) var timeline = PlayerTimeline()
    /// Created by `session.create` (dies with it) rather than adopted (detached on close).
    let ownedBySession: Bool

    /// The player's own state (interruption is a session matter).
    public var playbackState: PlaybackState {
        let t = timeline
        if t.status == .idle || t.status == .failed || t.currentItem == nil { return .stopped }
        if t.rate > 0 { return .playing }
        return t.isStopped ? .stopped : .paused
    }
}

/// A player session (≈ MPNowPlayingSession): players, its own command center, info and audio.
public struct Session: Sendable, Hashable {
    public let id: SessionID
    public let kind: SessionKind
    public internal(set) var app: AppID
    public internal(set) var playerIDs: [PlayerID]
    public internal(set) var commandCenter = CommandCenter()
    public internal(set) var audio = AudioSession()
    public internal(set) var automaticallyPublishes: Bool
    /// What moves its players: the host's clock, or an external engine reporting with `player.sync`.
    public internal(set) var driver: PlayerDriver = .clock
    /// Info written with `info.set` / `info.update` (manual publishing; always empty while automatic).
    public internal(set) var manualInfo = NowPlayingInfo()
    /// When `elapsed`/`rate` of `manualInfo` held.
    public internal(set) var manualTimestamp: MonotonicInstant = .zero
    /// What the current track's artwork resolved to (`NowPlayingModel+Artwork`).
    public internal(set) var artworkOutcome: ArtworkOutcome?
    let order: UInt64
}

/// The info a session publishes: what every display shows.
public struct PublishedInfo: Sendable, Hashable {
    public var info: NowPlayingInfo
    public var playbackState: PlaybackState
    /// The instant `elapsed` and `rate` held; readers infer `elapsed + rate × (now − timestamp)`.
    public var timestamp: MonotonicInstant
    /// Player 0's volume (automatic and manual alike: it is player state, not info an app writes).
    public var volume = PlayerVolume()
}

/// `nowPlaying.get`: the Now Playing session's info with `elapsed` computed for `timestamp`.
public struct NowPlayingSnapshot: Sendable, Hashable {
    public var session: SessionID
    public var info: NowPlayingInfo
    public var playbackState: PlaybackState
    public var timestamp: MonotonicInstant
    /// The session's volume (its player 0's).
    public var volume: PlayerVolume

    package init(session: SessionID, info: NowPlayingInfo, playbackState: PlaybackState, timestamp: MonotonicInstant,
                 volume: PlayerVolume = PlayerVolume()) {
        self.session = session
        self.info = info
        self.playbackState = playbackState
        self.timestamp = timestamp
        self.volume = volume
    }
}

/// `session.becomeActiveIfPossible`'s answer: `{active, reason?}`.
public struct BecomeActiveResult: Sendable, Hashable {
    public var active: Bool
    public var reason: String?
}
