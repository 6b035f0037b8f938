import PlayerHostBase

/// The user's choices for the arbiter (`ArbiterPolicy`): setting them re-evaluates every
/// session once (a pin, `[arbiter]` reload — rare, O(n)); afterwards `reconcile()` follows the
/// pinned name to the session it names as players come and go, O(1) per touched session.
extension NowPlayingModel {
    /// Replaces the pin, priority and ignore lists; the slot moves at once where they say.
    public mutating func setArbiterPolicy(_ new: ArbiterPolicy, now: MonotonicInstant) -> ModelResult<Void> {
        perform(now) { m, _ in
            guard m.policy != new else { return }
            m.policy = new
            for id in Array(m.sessions.keys) { m.sessions[id] = m.sessions[id] }
            m.arbiter.setPinned(m.pinnedCandidate(among: m.sessions.values.sorted { $0.order < $1.order }))
        }
    }

    /// Eligibility as the arbiter takes it: the pinned player's is not lost to another app's
    /// audio interrupting it (it is paused, as any interrupted player, but keeps the slot —
    /// what the pin is for); everything else as `Eligibility` says.
    func eligibleForArbiter(_ s: Session) -> Bool {
        if Eligibility.isEligible(s) { return true }
        guard policy.isPinned(s.id) else { return false }
        let a = s.audio
        return !a.isMixable && a.isActive && s.commandCenter.hasAvailableCommand
    }

    /// Whether `other` is playing with a higher `[arbiter] priority` than `activating`: then the
    /// activation does not interrupt it, so both stay eligible and priority decides between
    /// them (without this, every activation interrupts the rest and no two apps ever play
    /// eligible at once: priority would never have a tie to break).
    func outranksWhilePlaying(_ other: SessionID, _ activating: SessionID) -> Bool {
        guard let theirs = policy.priorityMatch(other)?.rank, isPlaying(other) else { return false }
        return theirs > policy.priorityMatch(activating)?.rank ?? 0
    }

    /// The oldest of `sessions` the pinned name names, if anything is pinned.
    func pinnedCandidate(among sessions: [Session]) -> SessionID? {
        guard let name = policy.pinned else { return nil }
        return sessions.first { ArbiterPolicy.names(name, $0.id) }?.id
    }

    /// Follows the pin after sessions came and went: a pinned session that went away is
    /// replaced by one of `live` the name names (a restarted player under the same name).
    mutating func followPin(_ live: [Session]) {
        guard policy.pinned != nil else { return }
        if let p = arbiter.pinned, sessions[p] != nil { return }
        arbiter.setPinned(pinnedCandidate(among: live))
    }
}
