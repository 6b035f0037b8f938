import PlayerHostBase

/// Info: `info.get/set/update`, `nowPlaying.get`, and the publishing mode.
extension NowPlayingModel {

    /// `info.set`: replaces the session's info (`null` values are simply absent). While
    /// publishing automatically, writes to automatic keys are refused (`automaticKey`).
    public mutating func setInfo(session id: SessionID, info json: JSON, now: MonotonicInstant) throws -> ModelResult<PublishedInfo> {
        try perform(now) { m, t in
            let s = try m.session(id)
            let patch = try InfoPatch(json: json)
            return try m.replaceInfo(s, with: patch.set, now: t)
        }
    }

    /// `setInfo` with values already validated: a state snapshot's restore.
    package mutating func setInfo(session id: SessionID, values: [InfoKey: InfoValue], now: MonotonicInstant) throws -> ModelResult<PublishedInfo> {
        try perform(now) { m, t in try m.replaceInfo(try m.session(id), with: values, now: t) }
    }

    private mutating func replaceInfo(_ s: Session, with values: [InfoKey: InfoValue], now t: MonotonicInstant) throws -> PublishedInfo {
        try refuseAutomaticKeys(s, Set(values.keys))
        sessions[s.id]!.manualInfo = NowPlayingInfo(values)
        sessions[s.id]!.manualTimestamp = t
        return publishedInfo(sessions[s.id]!)
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
