import PlayerHostBase

/// Info: `info.get/set/update`, `nowPlaying.get`, and the publishing mode.
extension NowPlayingModel {

    /// `info.set`: replaces the session's info with the patch's values (its removals are simply
    /// absent). While publishing automatically, writes to any key are refused (`automaticKey`):
    /// the players and the current item own them. (The wire's JSON is decoded by the host.)
    public mutating func setInfo(session id: SessionID, info patch: InfoPatch, now: MonotonicInstant) throws -> ModelResult<PublishedInfo> {
        try perform(now) { m, t in
            let s = try m.session(id)
            try m.refuseAutomaticKeys(s, patch.keys)
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

    /// `info.update`: merges the patch's keys, keeps the rest, drops its removals. The timestamp
    /// moves only when `elapsed` or `rate` is written; a rate change without an elapsed first
    /// re-anchors elapsed to its inferred value, so the position does not jump.
    public mutating func updateInfo(session id: SessionID, info patch: InfoPatch, now: MonotonicInstant) throws -> ModelResult<PublishedInfo> {
        try perform(now) { m, t in
            let s = try m.session(id)
            var patch = patch
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

    /// Switches automatic publishing on or off. Turning it on drops the written info: the players
    /// and the current item own every key now.
    public mutating func setAutomaticallyPublishes(session id: SessionID, _ on: Bool, now: MonotonicInstant) throws -> ModelResult<PublishedInfo> {
        try perform(now) { m, t in
            _ = try m.session(id)
            m.sessions[id]!.automaticallyPublishes = on
            if on { m.sessions[id]!.manualInfo = NowPlayingInfo() }
            m.sessions[id]!.manualTimestamp = t
            return m.publishedInfo(m.sessions[id]!)
        }
    }

    /// Refuses (`automaticKey`, nothing changed) a write to any key an automatically publishing
    /// session takes from its players or its current item, naming where each comes from and the
    /// way to give it: the item's info with `player.load`, or automatic publishing off.
    func refuseAutomaticKeys(_ s: Session, _ keys: Set<InfoKey>) throws {
        guard s.automaticallyPublishes, !keys.isEmpty else { return }
        let fromPlayers = keys.intersection(InfoKey.automatic).sorted().map(\.rawValue)
        let fromItem = keys.intersection(InfoKey.fromItem).sorted().map(\.rawValue)
        var parts: [String] = []
        if !fromItem.isEmpty {
            parts.append("\(fromItem.joined(separator: ", ")) from its current item (give them in the item's info with player.load)")
        }
        if !fromPlayers.isEmpty { parts.append("\(fromPlayers.joined(separator: ", ")) from its players") }
        throw ModelError(.automaticKey,
                         "session '\(s.id)' publishes automatically: \(parts.joined(separator: "; ")); "
                             + "to write info yourself, turn automatic publishing off (info.setAutomatic)",
                         detail: ModelError.Detail(session: s.id, keys: (fromItem + fromPlayers).sorted(), use: "player.load"))
    }
}
