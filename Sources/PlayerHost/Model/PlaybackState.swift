import PlayerHostBase

/// Derived playback state; never set, so it cannot disagree with the rate.
public enum PlaybackState: String, Sendable, Hashable, CaseIterable {
    case playing, paused, stopped, interrupted
}
