import PlayerHostPluginAPI

/// Reporting mpv's true state to the host (`player.sync`) at key moments only.
///
/// Observed property changes and playback restarts schedule a report on the next loop turn (what
/// mpv said in one read makes one report). A report reads what moves — `time-pos`, `pause`,
/// `speed`, `playlist-pos`, `volume`, `mute`, `idle-active` — with `get_property` at that moment, so it is
/// consistent with mpv even when a property-change event is still on its way. Reports are held
/// while a file opens or a seek lands (its tags and position are not known yet), at most
/// `maxHoldNS`. Nothing else is decided here: the model ignores a report that agrees with what it
/// infers, and the host's gate coalesces and deduplicates what is published (issue 8: one
/// gatekeeper). Steady playback changes no property, so it reports nothing.
extension MPVSessionMachine {
    /// Past this, a hold is over whatever mpv says, so a lost event cannot silence the session.
    static let maxHoldNS: UInt64 = 2_000_000_000
    /// What a report reads besides `time-pos` (volume and mute too: a `changeVolume` answers
    /// with this report, and mpv may send the property change after its reply to `set_property`;
    /// `idle-active` too: mpv sends its `idle` event, which answers a seek past the end of the
    /// queue, before the property change, and a report from the mirror then missed that the
    /// queue had ended — the answer showed the position before the seek, 3 runs in 10).
    static let moving = ["pause", "speed", "playlist-pos", "volume", "mute", "idle-active"]
    /// What the first report after a file started reads too: mpv sends the new file's tags as
    /// property changes that may come after its `playback-restart` (under load, `npctl open`
    /// answered with the title but no artist or album yet).
    static let tags = ["metadata", "media-title", "duration"]

    var isHolding: Bool {
        (loadingFile || seeking || restoreStage != nil) && (now < holdSince ? 0 : now - holdSince) < Self.maxHoldNS
    }

    /// The position now, inferred from the last report like any reader does (nil before one).
    var inferredElapsed: Double? {
        guard let a = lastAnchor else { return nil }
        var e = a.elapsed + a.rate * Double(now < a.at ? 0 : now - a.at) / 1e9
        if let d = state.duration { e = min(e, d) }
        return max(0, e)
    }

    /// A key moment happened: report on the next loop turn (or after `delay`).
    mutating func scheduleSync(afterMS delay: UInt64 = 0) {
        guard isRunning, !syncScheduled else { return }
        syncScheduled = true
        emit(.arm(.sync, afterMS: delay))
    }

    /// Reports now (once the hold is over), then answers `then` (the host applies the report
    /// before anything sent after it).
    mutating func syncNow(_ then: RestartWaiter?) {
        if let then { syncDone.append(then) }
        emit(.cancel(.sync))
        syncScheduled = false
        flushSync()
    }

    mutating func flushSync() {
        syncScheduled = false
        guard isRunning, link == .up else { return releaseSyncWaiters() }
        if isHolding {
            // The event ending the hold reports; this re-check is the safety net.
            return scheduleSync(afterMS: 250)
        }
        if syncRound != nil {
            syncAgain = true
            return
        }
        syncRound = SyncRound(waiting: syncDone)
        syncDone.removeAll()
        let tags = tagsUnread ? Self.tags : []
        tagsUnread = false
        // mpv answers in order, so `time-pos` (asked last) answers last.
        for name in Self.moving + tags + ["time-pos"] { get(name, for: .sync(name)) }
    }

    /// One value of the report being read; `time-pos`, the last, sends it.
    mutating func syncValue(_ name: String, _ result: Result<JSON, MPVError>, live: Bool) {
        guard var round = syncRound else { return }
        if case .success(let v) = result { round.fresh[name] = v }
        syncRound = round
        guard name == "time-pos" else { return }
        if live {
            for n in Self.moving + Self.tags { if let v = round.fresh[n], !v.isNull { state.apply(n, v) } }
            send(report: state.report(elapsed: round.fresh["time-pos"]?.doubleValue, loading: loadingFile))
        }
        syncRound = nil
        for w in round.waiting { emit(.answer(w.token, w.answer)) }
        if syncAgain {
            syncAgain = false
            flushSync()
        }
    }

    mutating func releaseSyncWaiters() {
        let waiting = syncDone
        syncDone.removeAll()
        for w in waiting { emit(.answer(w.token, w.answer)) }
    }

    /// Sends a report; keeps the anchor readers infer from (for a restart's restore).
    private mutating func send(report: [String: JSON]) {
        let elapsed = report["elapsed"]?.doubleValue
        let rate = report["rate"]?.doubleValue ?? 0
        lastAnchor = Anchor(elapsed: elapsed ?? inferredElapsed ?? 0, rate: rate, at: now)
        emit(.report(report))
    }

    /// mpv died: the session shows `failed` (playbackState follows) at the last known position.
    mutating func reportFailure() {
        let position = inferredElapsed
        lastAnchor = Anchor(elapsed: position ?? 0, rate: 0, at: now)
        emit(.report(state.report(elapsed: position, failed: true)))
    }

    // MARK: - Kept across restarts

    /// What to keep of this session at monotonic `now` and wall-clock `wallClock` (seconds), or
    /// nil when it has nothing to play. A restore still under way (after a restart, or mpv's
    /// death) keeps what it is restoring. (Outputs and shuffle are the caller's to add.)
    func saved(now: UInt64, wallClock: Double) -> MPVSavedSession? {
        if let r = restore, !r.urls.isEmpty {
            var s = MPVSavedSession(session: session, urls: r.urls, index: min(r.index, r.urls.count - 1),
                                    elapsed: r.position, rate: 0, at: 0)
            s.loopFile = r.loopFile
            s.loopPlaylist = r.loopPlaylist
            s.volume = r.volume.map { $0 / 100 } ?? s.volume
            s.muted = r.mute ?? s.muted
            return s
        }
        guard state.hasItems else { return nil }
        let index = state.playlistPos >= 0 ? state.playlistPos : min(state.lastIndex, state.playlist.count - 1)
        var s = MPVSavedSession(session: session, urls: state.playlist.map(\.filename), index: index, elapsed: 0, rate: 0, at: 0)
        if let a = lastAnchor {
            s.elapsed = a.elapsed
            s.rate = a.rate
            // To the millisecond, so that the same anchor saves the same value each time.
            s.at = ((wallClock - Double(now < a.at ? 0 : now - a.at) / 1e9) * 1000).rounded() / 1000
        }
        if s.rate == 0 { s.at = 0 }  // paused: when does not matter
        s.duration = state.duration
        s.loopFile = state.loopFile
        s.loopPlaylist = state.loopPlaylist
        s.volume = state.volume / 100
        s.muted = state.mute
        return s
    }
}
