import PlayerHostBase

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
