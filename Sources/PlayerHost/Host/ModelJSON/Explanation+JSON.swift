import PlayerHostBase
import PlayerHostModel

// The wire form of the model's values: the model holds typed values, this edge renders them
// into the JSON value tree that RPC writes.

extension SessionExplanation {
    /// `{session, app, eligible, reasons, isActive, activeReason, isNowPlaying, nowPlayingReason}`.
    public func toJSON() -> JSON {
        [
            "session": .string(session), "app": .string(app),
            "eligible": .bool(eligibility.isEligible), "reasons": .array(eligibility.reasons.map { .string($0) }),
            "isActive": .bool(isActive), "activeReason": .string(activeReason),
            "isNowPlaying": .bool(isNowPlaying), "nowPlayingReason": .string(nowPlayingReason),
        ]
    }
}

extension Diagnostic {
    public func toJSON() -> JSON {
        ["severity": .string(severity.rawValue), "code": .string(code), "message": .string(message), "fix": .string(fix)]
    }
}

extension NowPlayingModel {
    /// `arbiter.explain`: `{nowPlaying, sessions: [...]}` — every session in creation order, or
    /// only `session` (O(1): the arbiter knows each app's active session without a scan).
    public func explainJSON(session: SessionID? = nil, now: MonotonicInstant) throws -> JSON {
        var m = self
        m.settle(to: max(now, clock))
        let list = try session.map { [m.explanation(of: try m.session($0))] } ?? m.orderedSessions.map { m.explanation(of: $0) }
        return ["nowPlaying": m.nowPlayingSession.map { .string($0) } ?? .null,
                "pinned": m.policy.pinned.map { .string($0) } ?? .null,
                "pinnedSession": m.arbiter.pinned.map { .string($0) } ?? .null,
                "priority": .array(m.policy.priority.map { .string($0) }),
                "ignore": .array(m.policy.ignore.map { .string($0) }),
                "sessions": .array(list.map { $0.toJSON() })]
    }
}
