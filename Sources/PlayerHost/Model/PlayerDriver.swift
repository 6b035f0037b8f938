/// What moves a session's players.
///
/// - `clock`: the host's own clock player. It advances on the injected clock, moves on at the end
///   of an item, and obeys `player.*` and the built-in command targets.
/// - `external`: a real engine outside the model (an mpv child, an out-of-process plugin's
///   player). The model never advances it, arms no deadline for it and never changes its state
///   itself: only the backend's `player.sync` reports do. Commands reach the backend through the
///   targets it adds with `command.addTarget`; the engine acts, then the backend reports.
public enum PlayerDriver: String, Sendable, Hashable, CaseIterable {
    case clock, external
}
