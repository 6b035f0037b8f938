import PlayerHostBase

/// Players: `player.load/play/pause/stop/seek/setRate/next/previous` and modes. `player` is
/// the index of the player in its session (default 0). Positions are media time.
extension NowPlayingModel {
    package func playerID(_ session: SessionID, _ index: Int) throws -> PlayerID {
        let s = try self.session(session)
        guard s.playerIDs.indices.contains(index) else {
            throw ModelError(.playerNotFound, "session '\(session)' has no player \(index) (it has \(s.playerIDs.count))",
                             detail: ModelError.Detail(session: session, playerIndex: index))
        }
        return s.playerIDs[index]
    }

    /// Runs `body` on one player's timeline inside an operation and returns the player as the
    /// operation left it (settled at its instant: a seek to an item's end has ended the item),
    /// so a reply is made from the result without reading the model again.
    /// External players are refused unless the operation is a report of their state.
    mutating func withPlayer(
        _ session: SessionID, _ index: Int, now: MonotonicInstant, report: Bool = false,
        _ body: (inout PlayerTimeline, MonotonicInstant, inout SplitMix64) throws -> Void
    ) throws -> ModelResult<Player> {
        let result = try perform(now) { m, t in
            let pid = try m.playerID(session, index)
            if !report { try m.requireClockDriven(session, index) }
            var p = m.players[pid]!
            try body(&p.timeline, t, &m.rng)
            m.players[pid] = p
            return p
        }
        let settled = players[result.value.id] ?? result.value
        return ModelResult(value: settled, events: result.events, actions: result.actions)
    }

    /// `player.load`: replaces the queue; paused at the first item.
    public mutating func load(session: SessionID, player: Int = 0, items: [MediaItem], now: MonotonicInstant) throws -> ModelResult<Player> {
        guard items.count <= limits.itemsPerQueue else {
            throw ModelLimits.exceeded("max_queue_items", limits.itemsPerQueue, "a queue of \(items.count) items")
        }
        return try withPlayer(session, player, now: now) { tl, t, rng in tl.load(items, at: t, rng: &rng) }
    }

    /// `player.play` (`invalidState` without items).
    public mutating func play(session: SessionID, player: Int = 0, now: MonotonicInstant) throws -> ModelResult<Player> {
        try withPlayer(session, player, now: now) { tl, t, _ in try tl.play(at: t) }
    }

    /// `player.pause`.
    public mutating func pause(session: SessionID, player: Int = 0, now: MonotonicInstant) throws -> ModelResult<Player> {
        try withPlayer(session, player, now: now) { tl, t, _ in tl.pause(at: t) }
    }

    /// `player.stop`: paused at the start of the current item, `stopped`.
    public mutating func stop(session: SessionID, player: Int = 0, now: MonotonicInstant) throws -> ModelResult<Player> {
        try withPlayer(session, player, now: now) { tl, t, _ in tl.stop(at: t) }
    }

    /// `player.seek` to `position` seconds of media time (clamped to the item); rate kept.
    public mutating func seek(session: SessionID, player: Int = 0, to position: Double, now: MonotonicInstant) throws -> ModelResult<Player> {
        if position.isFinite { try TimeBound.check(position, "position") }
        return try withPlayer(session, player, now: now) { tl, t, _ in try tl.seek(to: position, at: t) }
    }

    /// `player.setRate`: 0 pauses, > 0 plays at that rate.
    public mutating func setRate(session: SessionID, player: Int = 0, rate: Double, now: MonotonicInstant) throws -> ModelResult<Player> {
        try withPlayer(session, player, now: now) { tl, t, _ in try tl.setRate(rate, at: t) }
    }

    /// `player.setVolume`: the level (`0...PlayerVolume.maximum`) and/or the mute; nil keeps it.
    /// The host's own setting for a clock player (remotes go through `changeVolume`, bounded by
    /// its `maximumVolume`); an external player's volume is its engine's (`player.sync`).
    public mutating func setVolume(session: SessionID, player: Int = 0, volume: Double?, muted: Bool?,
                                   now: MonotonicInstant) throws -> ModelResult<Player> {
        guard volume != nil || muted != nil else { throw ModelError.invalid("volume or muted is required") }
        return try withPlayer(session, player, now: now) { tl, _, _ in try tl.setVolume(volume, muted: muted) }
    }

    /// The rate `play` uses.
    public mutating func setDefaultRate(session: SessionID, player: Int = 0, rate: Double, now: MonotonicInstant) throws -> ModelResult<Player> {
        try withPlayer(session, player, now: now) { tl, _, _ in try tl.setDefaultRate(rate) }
    }

    /// `player.next` (`invalidState` at the end of the queue without repeat all).
    public mutating func next(session: SessionID, player: Int = 0, now: MonotonicInstant) throws -> ModelResult<Player> {
        try withPlayer(session, player, now: now) { tl, t, _ in try tl.next(at: t) }
    }

    /// `player.previous` (at the first item: restarts it).
    public mutating func previous(session: SessionID, player: Int = 0, now: MonotonicInstant) throws -> ModelResult<Player> {
        try withPlayer(session, player, now: now) { tl, t, _ in try tl.previous(at: t) }
    }

    /// Repeat mode of one player.
    public mutating func setRepeat(session: SessionID, player: Int = 0, _ mode: RepeatMode, now: MonotonicInstant) throws -> ModelResult<Player> {
        try withPlayer(session, player, now: now) { tl, _, _ in tl.setRepeat(mode) }
    }

    /// Shuffle mode of one player (deterministic for the model's seed).
    public mutating func setShuffle(session: SessionID, player: Int = 0, _ mode: ShuffleMode, now: MonotonicInstant) throws -> ModelResult<Player> {
        try withPlayer(session, player, now: now) { tl, _, rng in tl.setShuffle(mode, rng: &rng) }
    }

    /// For backends that load asynchronously (mpv): report the player's status. `failed` and
    /// `loading` pause it. Allowed on external players too (it is a report, like `player.sync`).
    public mutating func setPlayerStatus(session: SessionID, player: Int = 0, _ status: PlayerStatus,
                                         now: MonotonicInstant) throws -> ModelResult<Player> {
        try withPlayer(session, player, now: now, report: true) { tl, t, _ in
            if status == .idle, tl.currentItem != nil { throw ModelError.invalid("a player with items is not idle") }
            if status == .failed || status == .loading { tl.pause(at: t) }
            tl.status = status
        }
    }

    /// The most items one `player.queue` page holds.
    public static let queuePageLimit = 500
}
