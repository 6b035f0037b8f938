import PlayerHostBase

/// `arbiter.explain` for one session: eligible or not and why, active or not and why,
/// Now Playing or not and why.
public struct SessionExplanation: Sendable, Hashable {
    public var session: SessionID
    public var app: AppID
    public var eligibility: Eligibility
    public var isActive: Bool
    public var activeReason: String
    public var isNowPlaying: Bool
    public var nowPlayingReason: String
}

/// One fault `doctor` found, with the fix.
public struct Diagnostic: Sendable, Hashable {
    public enum Severity: String, Sendable, Hashable { case error, warning, info }

    public var severity: Severity
    /// Stable slug (`noTitle`, `rateZeroWhilePlaying`, `audioInactive`, …).
    public var code: String
    public var message: String
    public var fix: String

    /// A fault found outside the model too (the host's own, e.g. its state store's).
    public init(severity: Severity, code: String, message: String, fix: String) {
        self.severity = severity
        self.code = code
        self.message = message
        self.fix = fix
    }
}

extension NowPlayingModel {
    /// Why each session is or is not eligible, active and Now Playing, in creation order.
    public func explain(now: MonotonicInstant) -> [SessionExplanation] {
        var m = self
        m.settle(to: max(now, clock))
        return m.orderedSessions.map { m.explanation(of: $0) }
    }

    package func explanation(of s: Session) -> SessionExplanation {
        let e = Eligibility(s)
        let active = isActive(s.id)
        let app = apps[s.app]
        let appActive = arbiter.active(of: s.app)
        let activeReason: String
        if policy.isIgnored(s.id) {
            activeReason = "ignored by [arbiter] ignore: never its app's active session"
        } else if active, arbiter.pinned == s.id {
            activeReason = "pinned (npctl pin \(policy.pinned ?? s.id)): the active session of app \(s.app)"
                + (e.isEligible ? "" : ", kept through the interruption")
        } else if !e.isEligible {
            activeReason = "not eligible, so it cannot be its app's active session"
        } else if active {
            activeReason = app?.preferredSession == s.id
                ? "promoted with becomeActiveIfPossible: the active session of app \(s.app)"
                : "the first eligible session of app \(s.app), so its active session"
        } else {
            activeReason = "app \(s.app) has made \(appActive ?? "another session") its active session"
        }
        let np = nowPlayingSession == s.id
        let npReason: String
        if np {
            let why: String
            switch lastSlotReason {
            case .playbackStarted?: why = "its app most recently started playback"
            case .promoted?: why = "its app holds the slot and promoted it"
            case .activeSessionChanged?: why = "its app holds the slot and it became the app's active session"
            case .closed?, .appDisconnected?, .ineligible?:
                why = "the previous Now Playing session went away and it was the most recently active eligible session"
            case .eligible?, nil: why = "the slot was empty and it became eligible"
            case .pinned?: why = "pinned"
            }
            if arbiter.pinned == s.id {
                npReason = "Now Playing: pinned (npctl pin \(policy.pinned ?? s.id)), playing or paused, until npctl unpin"
            } else {
                let paused = isPlaying(s.id) ? "" : " (paused: it keeps the slot until another app starts playing)"
                let ranked = policy.priorityMatch(s.id).map { " (priority: \($0.name) is listed in [arbiter] priority)" } ?? ""
                npReason = "Now Playing: " + why + paused + ranked
            }
        } else if policy.isIgnored(s.id) {
            npReason = "not Now Playing: ignored by [arbiter] ignore (reachable with -p, never Now Playing, interrupts no one)"
        } else if !e.isEligible {
            let pinned = policy.isPinned(s.id) ? "pinned, but " : ""
            npReason = "not Now Playing: " + pinned + "not eligible (" + e.reasons.joined(separator: "; ") + ")"
        } else if !active {
            npReason = "not Now Playing: not its app's active session"
        } else if let holder = nowPlayingSession, let h = sessions[holder], arbiter.pinned == holder {
            npReason = "not Now Playing: session \(holder) of app \(h.app) is pinned (npctl unpin to release it)"
        } else if let holder = nowPlayingSession, let h = sessions[holder],
                  let theirs = policy.priorityMatch(holder), isPlaying(holder), isPlaying(s.id),
                  theirs.rank > policy.priorityMatch(s.id)?.rank ?? 0 {
            npReason = "not Now Playing: session \(holder) of app \(h.app) is playing too and has priority "
                + "(\(theirs.name) comes first in [arbiter] priority)"
        } else if let holder = nowPlayingSession, let h = sessions[holder] {
            npReason = "not Now Playing: session \(holder) of app \(h.app) holds the slot; "
                + "this app must start playback to take it"
        } else {
            npReason = "not Now Playing: the slot is empty"
        }
        return SessionExplanation(session: s.id, app: s.app, eligibility: e, isActive: active, activeReason: activeReason,
                                  isNowPlaying: np, nowPlayingReason: npReason)
    }
}
