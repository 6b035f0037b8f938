/// Publishing: what a session shows, automatic or manual, and the `nowPlaying.get` read.
extension NowPlayingModel {
    /// The info a session publishes now.
    ///
    /// Automatic: the current item's info (nothing a client wrote: `refuseAutomaticKeys`), then
    /// the automatic keys come from the primary player (player 0): content `duration` and `elapsed`
    /// (ads excluded), `rate` (0 inside an ad, where content time holds), `defaultRate`,
    /// `queueIndex`, `queueCount`; the timestamp is the player's anchor, so it only moves at key
    /// moments. Manual: exactly what was set, stamped when it was set.
    public func publishedInfo(_ s: Session) -> PublishedInfo {
        var published = unvoicedInfo(s)
        published.volume = s.playerIDs.first.flatMap { players[$0]?.timeline.volume } ?? PlayerVolume()
        return published
    }

    /// `publishedInfo` without the volume.
    private func unvoicedInfo(_ s: Session) -> PublishedInfo {
        let interrupted = s.audio.isInterrupted
        guard s.automaticallyPublishes else {
            let info = s.manualInfo
            let state: PlaybackState
            if info.isEmpty { state = .stopped } else if (info.rate ?? 0) > 0 { state = .playing } else { state = .paused }
            return PublishedInfo(info: withResolvedArtwork(info, s), playbackState: interrupted && state != .playing ? .interrupted : state,
                                 timestamp: s.manualTimestamp)
        }
        guard let pid = s.playerIDs.first, let p = players[pid], let item = p.timeline.currentItem else {
            let state: PlaybackState = interrupted ? .interrupted : .stopped
            return PublishedInfo(info: NowPlayingInfo(), playbackState: state, timestamp: players[s.playerIDs.first ?? ""]?.timeline.anchorTime ?? .zero)
        }
        let t = p.timeline
        var info = item.effectiveInfo.removing(InfoKey.automatic)
        let ads = adSchedule(s, t)
        if let d = item.duration { info[.duration] = .number(ads.contentDuration(d)) }
        info[.elapsed] = .number(ads.contentTime(t.anchorElapsed))
        info[.rate] = .number(ads.isInAd(t.anchorElapsed) ? 0 : t.rate)
        info[.defaultRate] = .number(t.defaultRate)
        info[.queueIndex] = .integer(t.position ?? 0)
        info[.queueCount] = .integer(t.items.count)
        var state = p.playbackState
        if interrupted, state != .playing { state = .interrupted }
        return PublishedInfo(info: withResolvedArtwork(info, s), playbackState: state, timestamp: t.anchorTime)
    }

    /// The ads of the current item of an automatically publishing session (from the item's
    /// info); empty for manual sessions, whose app publishes content time itself.
    func adSchedule(_ s: Session, _ t: PlayerTimeline) -> AdSchedule {
        guard s.automaticallyPublishes, let item = t.currentItem else { return AdSchedule([]) }
        return AdSchedule(item.effectiveInfo.adTimeRanges)
    }

    /// A session's published info, or `sessionNotFound`.
    public func publishedInfo(session id: SessionID) throws -> PublishedInfo {
        publishedInfo(try session(id))
    }

    /// `nowPlaying.get`: the Now Playing session's info with `elapsed` inferred for `now`
    /// (and `timestamp` = `now`); nil when the slot is empty.
    public func nowPlaying(at now: MonotonicInstant) -> NowPlayingSnapshot? {
        var caughtUp = self
        let t = max(now, clock)
        caughtUp.settle(to: t)
        guard let id = caughtUp.nowPlayingSession, let s = caughtUp.sessions[id] else { return nil }
        return caughtUp.snapshot(of: s, at: t)
    }

    /// A session's published info with `elapsed` inferred for `now`.
    public func snapshot(of s: Session, at now: MonotonicInstant) -> NowPlayingSnapshot {
        let published = publishedInfo(s)
        var info = published.info
        if s.automaticallyPublishes, let pid = s.playerIDs.first, let t = players[pid]?.timeline, t.currentItem != nil {
            let ads = adSchedule(s, t)
            info[.elapsed] = .number(ads.contentTime(t.elapsed(at: now)))
            return NowPlayingSnapshot(session: s.id, info: info, playbackState: published.playbackState, timestamp: now,
                                      volume: published.volume)
        }
        return published.snapshot(session: s.id, at: now)
    }
}

extension PublishedInfo {
    /// What a reader sees at `now` of info with no player timeline behind it (published by hand,
    /// or nothing playing): `elapsed + rate × (now − timestamp)`, within the duration. The reply
    /// of `info.set`/`info.update` is this, from what the operation returned.
    public func snapshot(session: SessionID, at now: MonotonicInstant) -> NowPlayingSnapshot {
        var shown = info
        if let e = info.elapsed {
            let rate = info.rate ?? 0
            var inferred = max(0, e + rate * max(0, now.seconds(since: timestamp)))
            if let d = info.duration { inferred = min(inferred, d) }
            shown[.elapsed] = .number(inferred)
        }
        return NowPlayingSnapshot(session: session, info: shown, playbackState: playbackState, timestamp: now, volume: volume)
    }
}
