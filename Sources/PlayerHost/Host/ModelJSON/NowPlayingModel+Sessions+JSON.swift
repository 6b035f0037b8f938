import PlayerHostBase
import PlayerHostModel

// The wire form of the model's values: the model holds typed values, this edge renders them
// into the JSON value tree that RPC writes.

extension NowPlayingModel {
    /// `session.list`: `[{id, kind, app, appName, desktopEntry?, isActive, canBecomeActive,
    /// playbackState, isNowPlaying}]`.
    public func sessionListJSON() -> JSON {
        .array(orderedSessions.map { s in
            var o: [String: JSON] = [
                "id": .string(s.id), "kind": .string(s.kind.description), "app": .string(s.app),
                "isActive": .bool(isActive(s.id)), "canBecomeActive": .bool(Eligibility.isEligible(s)),
                "playbackState": .string(publishedInfo(s).playbackState.rawValue),
                "isNowPlaying": .bool(nowPlayingSession == s.id),
            ]
            appNaming(s.app, into: &o)
            return .object(o)
        })
    }

    /// The app's name as it gave it (`appName`: an imported player's Identity) and its desktop
    /// entry when it said one.
    func appNaming(_ app: AppID, into o: inout [String: JSON]) {
        guard let a = apps[app] else { return }
        o["appName"] = .string(a.name)
        if let d = a.desktopEntry { o["desktopEntry"] = .string(d) }
    }

    /// `session.get`: the full session with players, commands, audio, info and eligibility;
    /// elapsed values are inferred for `now`.
    public func sessionJSON(_ id: SessionID, now: MonotonicInstant) throws -> JSON {
        var m = self
        let t = max(now, clock)
        m.settle(to: t)
        let s = try m.session(id)
        let e = Eligibility(s)
        let published = m.publishedInfo(s)
        var o: [String: JSON] = [
            "id": .string(s.id), "kind": .string(s.kind.description), "app": .string(s.app),
            "players": .array(m.players(of: s).map { $0.toJSON(now: t) }),
            "commands": s.commandCenter.toJSON(),
            "audio": s.audio.toJSON(),
            "info": m.snapshot(of: s, at: t).info.toJSON(),
            "playbackState": .string(published.playbackState.rawValue),
            "timestamp": t.toJSON(),
            "automaticallyPublishes": .bool(s.automaticallyPublishes),
            "driver": .string(s.driver.rawValue),
            "backgroundAudio": .bool(s.audio.backgroundAudio),
            "isActive": .bool(m.isActive(id)),
            "canBecomeActive": .bool(e.isEligible),
            "isNowPlaying": .bool(m.nowPlayingSession == id),
            "eligibility": e.toJSON(),
        ]
        appNaming(s.app, into: &o)
        return .object(o)
    }
}
