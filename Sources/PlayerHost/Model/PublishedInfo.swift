import PlayerHostBase

/// The info a session publishes: what every display shows.
public struct PublishedInfo: Sendable, Hashable {
    public var info: NowPlayingInfo
    public var playbackState: PlaybackState
    /// The instant `elapsed` and `rate` held; readers infer `elapsed + rate × (now − timestamp)`.
    public var timestamp: MonotonicInstant
    /// Player 0's volume (automatic and manual alike: it is player state, not info an app writes).
    public var volume = PlayerVolume()
}
