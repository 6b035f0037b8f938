import PlayerHostBase

/// Info: `info.get/set/update`, `nowPlaying.get`, and the publishing mode.
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

    /// `info.set`: replaces the session's info (`null` values are simply absent). While
    /// publishing automatically, writes to automatic keys are refused (`automaticKey`).
    public mutating func setInfo(session id: SessionID, info json: JSON, now: MonotonicInstant) throws -> ModelResult<PublishedInfo> {
        try perform(now) { m, t in
            let s = try m.session(id)
            let patch = try InfoPatch(json: json)
            try m.refuseAutomaticKeys(s, Set(patch.set.keys))
            m.sessions[id]!.manualInfo = NowPlayingInfo(patch.set)
            m.sessions[id]!.manualTimestamp = t
            return m.publishedInfo(m.sessions[id]!)
        }
    }

    /// `info.update`: merges the given keys, keeps the rest, `null` removes a key. The timestamp
    /// moves only when `elapsed` or `rate` is written; a rate change without an elapsed first
    /// re-anchors elapsed to its inferred value, so the position does not jump.
    public mutating func updateInfo(session id: SessionID, info json: JSON, now: MonotonicInstant) throws -> ModelResult<PublishedInfo> {
        try perform(now) { m, t in
            let s = try m.session(id)
            var patch = try InfoPatch(json: json)
            try m.refuseAutomaticKeys(s, patch.keys)
            let touchesTime = patch.keys.contains(.elapsed) || patch.keys.contains(.rate)
            if touchesTime, !patch.keys.contains(.elapsed), let e = s.manualInfo.elapsed {
                var inferred = max(0, e + (s.manualInfo.rate ?? 0) * max(0, t.seconds(since: s.manualTimestamp)))
                if let d = s.manualInfo.duration { inferred = min(inferred, d) }
                patch.set[.elapsed] = .number(inferred)
            }
            m.sessions[id]!.manualInfo = s.manualInfo.applying(patch)
            if touchesTime { m.sessions[id]!.manualTimestamp = t }
            return m.publishedInfo(m.sessions[id]!)
        }
    }

    /// Switches automatic publishing on or off. Turning it on drops manual values of the
    /// automatic keys (the players own them now).
    public mutating func setAutomaticallyPublishes(session id: SessionID, _ on: Bool, now: MonotonicInstant) throws -> ModelResult<PublishedInfo> {
        try perform(now) { m, t in
            _ = try m.session(id)
            m.sessions[id]!.automaticallyPublishes = on
            if on { m.sessions[id]!.manualInfo = m.sessions[id]!.manualInfo.removing(InfoKey.automatic) }
            m.sessions[id]!.manualTimestamp = t
            return m.publishedInfo(m.sessions[id]!)
        }
    }

    func refuseAutomaticKeys(_ s: Session, _ keys: Set<InfoKey>) throws {
        guard s.automaticallyPublishes else { return }
        let refused = keys.intersection(InfoKey.automatic).sorted()
        guard !refused.isEmpty else { return }
        let names = refused.map(\.rawValue)
        throw ModelError(.automaticKey,
                         "session '\(s.id)' publishes \(names.joined(separator: ", ")) automatically from its players; "
                             + "write them only with automaticallyPublishes off",
                         detail: ["session": .string(s.id), "keys": .array(names.map { .string($0) })])
    }
}
