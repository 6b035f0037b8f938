/// The single gatekeeper: after every step, derive eligibility, each app's active session and
/// the Now Playing slot, then diff every session against what was last published.
extension NowPlayingModel {
    /// Each app's active session: its preferred one while eligible, else its first eligible one.
    func activeSessions(eligible: [SessionID: Bool]) -> [AppID: SessionID] {
        var out: [AppID: SessionID] = [:]
        for s in orderedSessions where eligible[s.id] == true && out[s.app] == nil {
            out[s.app] = s.id
        }
        for app in apps.values {
            if let p = app.preferredSession, sessions[p]?.app == app.id, eligible[p] == true { out[app.id] = p }
        }
        return out
    }

    func isPlaying(_ session: SessionID) -> Bool {
        guard let s = sessions[session] else { return false }
        return s.playerIDs.contains { players[$0]?.timeline.isPlaying == true }
    }

    func baseline(for s: Session, canBecomeActive: Bool, isActive: Bool) -> Baseline {
        Baseline(audio: s.audio, commands: s.commandCenter, players: players(of: s),
                 canBecomeActive: canBecomeActive, isActive: isActive, info: publishedInfo(s))
    }

    mutating func reconcile() {
        followPlayerModes()
        let ordered = orderedSessions
        var eligible: [SessionID: Bool] = [:]
        for s in ordered { eligible[s.id] = Eligibility(s).isEligible }

        // Playback starts (rate 0 → > 0 on any player of a session) stamp the app's recency.
        for s in ordered {
            let was = baselines[s.id]?.players.contains { $0.timeline.isPlaying } ?? false
            if !was, isPlaying(s.id) {
                let stamp = tick()
                apps[s.app]?.lastPlaybackStart = stamp
            }
        }

        let active = activeSessions(eligible: eligible)
        reconcileSlot(active: active, eligible: eligible)

        for s in ordered {
            let isActive = active[s.app] == s.id
            let now = baseline(for: s, canBecomeActive: eligible[s.id] ?? false, isActive: isActive)
            let old = baselines[s.id] ?? now
            if old.audio != now.audio { emit(.audioChanged(s.id, now.audio)) }
            for kind in RemoteCommandKind.allCases where old.commands[kind] != now.commands[kind] {
                emit(.commandChanged(s.id, now.commands[kind]))
            }
            for (i, p) in now.players.enumerated() where i >= old.players.count || old.players[i] != p {
                emit(.playerChanged(s.id, index: i, p))
            }
            if old.canBecomeActive != now.canBecomeActive { emit(.canBecomeActiveChanged(s.id, canBecomeActive: now.canBecomeActive)) }
            if old.isActive != now.isActive { emit(.activeChanged(s.id, isActive: now.isActive)) }
            if old.info != now.info { emit(.infoChanged(s.id, now.info)) }
            baselines[s.id] = now
        }
        for id in baselines.keys where sessions[id] == nil { baselines[id] = nil }

        let deadline = nextDeadline
        if deadline != reportedDeadline {
            reportedDeadline = deadline
            actions.append(.rearmTimer(deadline))
        }
        closedHints = [:]
        promotedHint = nil
    }

    /// Keeps `currentRepeatType`/`currentShuffleType` in step with player 0's modes whichever
    /// way they changed (`player.setRepeat`, the command, `player.sync`). Only a change of the
    /// player's mode moves them, so an app that configures them for state of its own (manual
    /// publishing, its own targets) keeps what it set until its player's mode changes.
    mutating func followPlayerModes() {
        for s in sessions.values {
            guard let pid = s.playerIDs.first, let t = players[pid]?.timeline,
                  let old = baselines[s.id]?.players.first?.timeline else { continue }
            guard old.repeatMode != t.repeatMode || old.shuffleMode != t.shuffleMode else { continue }
            sessions[s.id]!.commandCenter.follow(repeatMode: old.repeatMode != t.repeatMode ? t.repeatMode : nil,
                                                 shuffleMode: old.shuffleMode != t.shuffleMode ? t.shuffleMode : nil)
        }
    }

    /// Across apps: the most recent playback start among apps with an eligible active session
    /// takes the slot; a paused holder keeps it; a holder that drops out is replaced by the most
    /// recently active (played or held the slot) candidate.
    mutating func reconcileSlot(active: [AppID: SessionID], eligible: [SessionID: Bool]) {
        let oldSession = nowPlayingSession
        var holder = nowPlayingApp.flatMap { active[$0] != nil ? $0 : nil }
        let candidates = orderedApps.filter { active[$0.id] != nil }
        let holderStart = holder.flatMap { apps[$0]?.lastPlaybackStart }
        var tookOver = false
        let challengers = candidates.filter { app in
            guard app.id != holder, let start = app.lastPlaybackStart, isPlaying(active[app.id]!) else { return false }
            return holderStart.map { start > $0 } ?? true
        }
        if let best = challengers.max(by: { ($0.lastPlaybackStart ?? 0) < ($1.lastPlaybackStart ?? 0) }) {
            holder = best.id
            tookOver = true
        } else if holder == nil, !candidates.isEmpty {
            func recency(_ a: App) -> UInt64 { max(a.lastPlaybackStart ?? 0, a.lastHeldSlot ?? 0) }
            // max(by:) keeps the last of equals; iterate reversed so ties go to the older app.
            holder = candidates.reversed().max(by: { recency($0) < recency($1) })?.id
        }
        if let h = holder, h != nowPlayingApp {
            let stamp = tick()
            apps[h]?.lastHeldSlot = stamp
        }
        nowPlayingApp = holder
        let newSession = holder.flatMap { active[$0] }
        guard newSession != oldSession else { return }
        let reason: NowPlayingChangeReason
        if tookOver {
            reason = .playbackStarted
        } else if let old = oldSession, let closed = closedHints[old] {
            reason = closed == .closed ? .closed : .appDisconnected
        } else if let old = oldSession, sessions[old] != nil, eligible[old] != true {
            reason = .ineligible
        } else if oldSession == nil {
            reason = .eligible
        } else if promotedHint != nil, promotedHint == newSession {
            reason = .promoted
        } else {
            reason = .activeSessionChanged
        }
        nowPlayingSession = newSession
        lastSlotReason = reason
        emit(.nowPlayingChanged(from: oldSession, to: newSession, reason: reason))
    }
}
