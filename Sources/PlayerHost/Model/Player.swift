import PlayerHostBase

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
