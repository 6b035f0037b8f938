/// Externally driven players (`driver: external`): a backend reports the engine's true state
/// with `player.sync`; the model publishes it exactly as it publishes a clock player's.
extension NowPlayingModel {
    /// The driver of the session a player belongs to (`clock` for a free player).
    func driver(ofPlayer pid: PlayerID) -> PlayerDriver {
        players[pid]?.session.flatMap { sessions[$0]?.driver } ?? .clock
    }

    /// Refuses the host's own player operations on an external player: the engine would never
    /// hear of them, so the published state would lie.
    func requireClockDriven(_ session: SessionID, _ index: Int) throws {
        guard try self.session(session).driver == .external else { return }
        throw ModelError.state(
            "player \(index) of session '\(session)' is driven by its backend: send a command or player.sync",
            ModelError.Detail(session: session, playerIndex: index, driver: "external"))
    }

    /// `player.sync`: an external backend reports its player's true state at a key moment
    /// (loaded, started, paused, seeked, moved to another item, changed rate or status). Absent
    /// fields keep their value. Elapsed, rate and timestamp are re-anchored from the report;
    /// publishing, the derived `playbackState`, eligibility and the arbiter follow as for a
    /// clock player, and a report that changes nothing emits nothing. Between reports readers
    /// infer `elapsed + rate × (now − timestamp)`, clamped to the item's duration: the backend
    /// reports again when the engine moves on. Refused (`invalidState`) for clock players,
    /// which the host drives itself.
    public mutating func syncPlayer(session: SessionID, player: Int = 0, state: PlayerSync,
                                    now: MonotonicInstant) throws -> ModelResult<Player> {
        if let items = state.items, items.count > limits.itemsPerQueue {
            throw ModelLimits.exceeded("max_queue_items", limits.itemsPerQueue, "a queue of \(items.count) items")
        }
        return try perform(now) { m, t in
            let pid = try m.playerID(session, player)
            guard m.sessions[session]!.driver == .external else {
                throw ModelError.state(
                    "session '\(session)' has clock players, which the host drives: use player.* or create it with driver external",
                    ModelError.Detail(session: session, driver: "clock"))
            }
            var p = m.players[pid]!
            try p.timeline.sync(state, at: t)
            m.players[pid] = p
            return p
        }
    }
}
