/// What one client may claim in the model. Each limit is a config key; going over it is a
/// `limitExceeded` (1050) error whose `data` names the key and its value, checked before any
/// work, so the model is unchanged and other clients are unaffected.
public struct ModelLimits: Sendable, Equatable {
    /// Sessions one app may own (`max_sessions_per_app`). The host app counts as one app: its
    /// sessions are those of every connection that never said `host.hello`.
    public var sessionsPerApp = 1_000
    /// Targets one command of one session may have (`max_targets_per_command`).
    public var targetsPerCommand = 64
    /// Items in one player's queue (`max_queue_items`).
    public var itemsPerQueue = 10_000

    public init() {}

    /// The error for going over the limit named `key` with value `value`.
    static func exceeded(_ key: String, _ value: Int, _ what: String) -> ModelError {
        ModelError(.limitExceeded, "Limit exceeded: \(what) (\(key) = \(value))",
                   detail: ModelError.Detail(limit: key, limitValue: value))
    }
}
