import PlayerHostBase

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
