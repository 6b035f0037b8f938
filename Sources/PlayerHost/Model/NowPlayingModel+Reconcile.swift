/// The single gatekeeper: after every step, derive eligibility, each app's active session and
/// the Now Playing slot, then diff every session against what was last published.
extension NowPlayingModel {
    func isPlaying(_ session: SessionID) -> Bool {
        guard let s = sessions[session] else { return false }
        return s.playerIDs.contains { players[$0]?.timeline.isPlaying == true }
    }

    func baseline(for s: Session, canBecomeActive: Bool, isActive: Bool) -> Baseline {
        Baseline(audio: s.audio, commands: s.commandCenter, players: players(of: s),
                 canBecomeActive: canBecomeActive, isActive: isActive, info: publishedInfo(s))
    }

    /// Re-evaluates what the operation touched — the sessions written, the sessions of the
    /// players written, the apps written — and the Now Playing slot; nothing else. Every write
    /// goes through a `TrackedMap`, so nothing changed can be missed.
    mutating func reconcile() {
        syncApps()
        var touched = sessions.takeDirty()
        for pid in players.takeDirty() {
            if let s = players[pid]?.session { touched.insert(s) } else { deadlines.set(deadlineEntries(of: pid), for: pid) }
        }
        followPlayerModes(touched)
        _ = sessions.takeDirty()

        var live: [Session] = []
        var eligible: [SessionID: Bool] = [:]
        for id in touched {
            guard let s = sessions[id] else {
                arbiter.removeSession(id)
                index.update(id, nil)
                baselines[id] = nil
                continue
            }
            live.append(s)
        }
        live.sort { $0.order < $1.order }
        for s in live {
            let e = eligibleForArbiter(s)
            eligible[s.id] = e
            // Playback starts (rate 0 → > 0 on any player of a session) stamp the app's recency.
            let was = baselines[s.id]?.players.contains { $0.timeline.isPlaying } ?? false
            let playing = isPlaying(s.id)
            let ignored = policy.isIgnored(s.id)
            // An ignored session's playback is no claim on the slot for its app either.
            if !was, playing, !ignored {
                let stamp = tick()
                apps[s.app]?.lastPlaybackStart = stamp
            }
            arbiter.updateSession(s.id, Arbiter.Standing(app: s.app, order: s.order, eligible: e, playing: playing,
                                                         ignored: ignored, rank: policy.priorityMatch(s.id)?.rank ?? 0))
            index.update(s.id, s)
            for pid in s.playerIDs { deadlines.set(deadlineEntries(of: pid), for: pid) }
        }
        followPin(live)
        syncApps()
        arbiter.setHolder(nowPlayingApp)
        let resolution = arbiter.resolve()
        reconcileSlot(resolution)
        syncApps()

        // Diff what the operation touched, and the sessions whose active flag moved.
        var diffed = live
        var seen = Set(live.map(\.id))
        for change in resolution.activeChanges {
            for id in [change.from, change.to].compactMap({ $0 }) where !seen.contains(id) {
                guard let s = sessions[id] else { continue }
                seen.insert(id)
                diffed.append(s)
            }
        }
        if diffed.count > live.count { diffed.sort { $0.order < $1.order } }
        for s in diffed {
            reevaluations.value += 1
            let isActive = arbiter.isActive(s.id)
            let canBecomeActive = eligible[s.id] ?? arbiter.sessions[s.id]?.eligible ?? false
            let now = baseline(for: s, canBecomeActive: canBecomeActive, isActive: isActive)
            let old = baselines[s.id] ?? now
            if old.audio != now.audio { emit(.audioChanged(s.id, now.audio)) }
            if old.commands != now.commands {
                for kind in RemoteCommandKind.allCases where old.commands[kind] != now.commands[kind] {
                    emit(.commandChanged(s.id, now.commands[kind]))
                }
            }
            for (i, p) in now.players.enumerated() where i >= old.players.count || old.players[i] != p {
                emit(.playerChanged(s.id, index: i, p))
            }
            if old.canBecomeActive != now.canBecomeActive { emit(.canBecomeActiveChanged(s.id, canBecomeActive: now.canBecomeActive)) }
            if old.isActive != now.isActive { emit(.activeChanged(s.id, isActive: now.isActive)) }
            if old.info != now.info { emit(.infoChanged(s.id, now.info)) }
            baselines[s.id] = now
        }
        _ = baselines.takeDirty()
        _ = clientApps.takeDirty()

        deadlines.prune()
        let deadline = nextDeadline
        if deadline != reportedDeadline {
            reportedDeadline = deadline
            actions.append(.rearmTimer(deadline))
        }
        closedHints = [:]
        promotedHint = nil
    }

    /// Tells the arbiter about every app written since the last call.
    mutating func syncApps() {
        for id in apps.takeDirty() {
            if let a = apps[id] {
                arbiter.updateApp(id, Arbiter.AppStanding(order: a.order, preferred: a.preferredSession,
                                                          lastPlaybackStart: a.lastPlaybackStart, lastHeldSlot: a.lastHeldSlot))
            } else {
                arbiter.removeApp(id)
            }
        }
    }

    /// Keeps `currentRepeatType`/`currentShuffleType` in step with player 0's modes whichever
    /// way they changed (`player.setRepeat`, the command, `player.sync`). Only a change of the
    /// player's mode moves them, so an app that configures them for state of its own (manual
    /// publishing, its own targets) keeps what it set until its player's mode changes.
    mutating func followPlayerModes(_ touched: Set<SessionID>) {
        for id in touched {
            guard let s = sessions[id] else { continue }
            guard let pid = s.playerIDs.first, let t = players[pid]?.timeline,
                  let old = baselines[s.id]?.players.first?.timeline else { continue }
            guard old.repeatMode != t.repeatMode || old.shuffleMode != t.shuffleMode else { continue }
            sessions[s.id]!.commandCenter.follow(repeatMode: old.repeatMode != t.repeatMode ? t.repeatMode : nil,
                                                 shuffleMode: old.shuffleMode != t.shuffleMode ? t.shuffleMode : nil)
        }
    }

    /// Across apps (the rule is the arbiter's): the most recent playback start among apps with
    /// an eligible active session takes the slot; a paused holder keeps it; a holder that drops
    /// out is replaced by the most recently active (played or held the slot) candidate. Here:
    /// stamp the new holder and say why the slot changed.
    mutating func reconcileSlot(_ r: Arbiter.Resolution) {
        let oldSession = nowPlayingSession
        if let h = r.newHolder {
            let stamp = tick()
            apps[h]?.lastHeldSlot = stamp
            arbiter.heldSlot(h, at: stamp)
        }
        nowPlayingApp = arbiter.holder
        let newSession = arbiter.nowPlaying
        guard newSession != oldSession else { return }
        let reason: NowPlayingChangeReason
        if r.move == .tookOver {
            reason = .playbackStarted
        } else if r.move == .pinned {
            reason = .pinned
        } else if let old = oldSession, let closed = closedHints[old] {
            reason = closed == .closed ? .closed : .appDisconnected
        } else if let old = oldSession, sessions[old] != nil, arbiter.sessions[old]?.eligible != true {
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
