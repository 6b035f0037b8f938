import PlayerHostBase
import PlayerHostModel

// The wire form of the model's values: the model holds typed values, this edge renders them
// into the JSON value tree that RPC writes.

extension NowPlayingModel {
    /// `info.get`: `{session, info, playbackState, timestamp}` with `elapsed` inferred for
    /// `now` and strings resolved for `language` when given.
    public func infoJSON(session id: SessionID, language: String? = nil, now: MonotonicInstant) throws -> JSON {
        var m = self
        let t = max(now, clock)
        m.settle(to: t)
        return m.snapshot(of: try m.session(id), at: t).toJSON(language: language)
    }

    /// `nowPlaying.get`: the snapshot's JSON, or `null` when nothing is Now Playing.
    public func nowPlayingJSON(language: String? = nil, now: MonotonicInstant) -> JSON {
        nowPlaying(at: now)?.toJSON(language: language) ?? .null
    }
}
