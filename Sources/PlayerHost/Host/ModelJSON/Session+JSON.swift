import PlayerHostBase
import PlayerHostModel

// The wire form of the model's values: the model holds typed values, this edge renders them
// into the JSON value tree that RPC writes.

extension App {
    public func toJSON() -> JSON {
        var o: [String: JSON] = ["id": .string(id), "name": .string(name)]
        if let client { o["client"] = .int(Int64(bitPattern: client)) }
        return .object(o)
    }
}

extension Player {
    /// `{id, session, status, rate, defaultRate, volume, muted, elapsed, duration, timestamp,
    /// queueCount, currentItem, …}` with `elapsed` inferred for `now`. Never the whole queue: replies and
    /// events stay small however long it is (`player.queue` pages through it).
    public func toJSON(now: MonotonicInstant) -> JSON {
        let t = timeline
        var o: [String: JSON] = [
            "id": .string(id),
            "status": .string(t.status.rawValue),
            "rate": .double(t.rate),
            "defaultRate": .double(t.defaultRate),
            "elapsed": .double(t.elapsed(at: now)),
            "timestamp": now.toJSON(),
            "playbackState": .string(playbackState.rawValue),
            "repeatMode": .string(t.repeatMode.rawValue),
            "shuffleMode": .string(t.shuffleMode.rawValue),
            "queueCount": .int(Int64(t.items.count)),
            "volume": .double(t.volume.level),
            "muted": .bool(t.volume.isMuted),
        ]
        o["session"] = session.map { .string($0) } ?? .null
        if let d = t.duration { o["duration"] = .double(d) }
        if let p = t.position { o["queueIndex"] = .int(Int64(p)) }
        if let i = t.currentIndex { o["itemIndex"] = .int(Int64(i)) }
        if let item = t.currentItem { o["currentItem"] = item.toJSON() }
        return .object(o)
    }
}

extension PublishedInfo {
    /// `{info, playbackState, timestamp, volume, muted}`.
    public func toJSON(language: String? = nil) -> JSON {
        ["info": info.toJSON(language: language), "playbackState": .string(playbackState.rawValue),
         "timestamp": timestamp.toJSON(), "volume": .double(volume.level), "muted": .bool(volume.isMuted)]
    }
}

extension NowPlayingSnapshot {
    /// `{session, info, playbackState, timestamp, volume, muted}`, strings resolved for
    /// `language` if given. `volume`/`muted` are the session's player 0's.
    public func toJSON(language: String? = nil) -> JSON {
        ["session": .string(session), "info": info.toJSON(language: language),
         "playbackState": .string(playbackState.rawValue), "timestamp": timestamp.toJSON(),
         "volume": .double(volume.level), "muted": .bool(volume.isMuted)]
    }
}

extension BecomeActiveResult {
    public func toJSON() -> JSON {
        var o: [String: JSON] = ["active": .bool(active)]
        if let reason { o["reason"] = .string(reason) }
        return .object(o)
    }
}
