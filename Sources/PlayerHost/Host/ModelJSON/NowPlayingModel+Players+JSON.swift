import PlayerHostBase
import PlayerHostModel

// The wire form of the model's values: the model holds typed values, this edge renders them
// into the JSON value tree that RPC writes.

extension NowPlayingModel {
    /// A player as JSON with `elapsed` inferred for `now` (`player.*` results).
    public func playerJSON(session: SessionID, player: Int = 0, now: MonotonicInstant) throws -> JSON {
        var m = self
        let t = max(now, clock)
        m.settle(to: t)
        return m.players[try m.playerID(session, player)]!.toJSON(now: t)
    }

    /// `player.queue`: `{session, player, offset, count, items}` — up to `limit` items of the
    /// queue in play order from `offset` (`count` is the whole queue's length).
    public func queueJSON(session: SessionID, player: Int = 0, offset: Int = 0, limit: Int = 100) throws -> JSON {
        guard offset >= 0 else { throw ModelError.invalid("offset must be >= 0", ModelError.Detail(field: "offset")) }
        guard (1...Self.queuePageLimit).contains(limit) else {
            throw ModelError.invalid("limit must be 1–\(Self.queuePageLimit)", ModelError.Detail(field: "limit"))
        }
        let t = try players[playerID(session, player)]!.timeline
        // `offset` comes from a client: past the end it is an empty page, never an overflow.
        let end = offset >= t.order.count ? offset : min(t.order.count, offset + limit)
        let page = offset < end ? t.order[offset..<end].map { t.items[$0].toJSON() } : []
        return ["session": .string(session), "player": .int(Int64(player)), "offset": .int(Int64(offset)),
                "count": .int(Int64(t.items.count)), "items": .array(page)]
    }
}
