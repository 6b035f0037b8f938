import PlayerHostBase

/// Something the host must do that needs I/O.
public enum HostAction: Sendable, Hashable {
    /// `nextDeadline` changed: re-arm (or, for nil, cancel) the one-shot timer, then call
    /// `advance(to:)` when it fires.
    case rearmTimer(MonotonicInstant?)
}
