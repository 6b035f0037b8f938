import PlayerHostBase
import PlayerHostModel

// The wire form of the model's values: the model holds typed values, this edge renders them
// into the JSON value tree that RPC writes.

extension NowPlayingModel {
    /// `doctor`: per session (or one) its kind and driver, category, options, active, every
    /// command's enabled and targets, which info keys are present, the explanation and the faults.
    public func doctorJSON(session: SessionID? = nil, now: MonotonicInstant) throws -> JSON {
        var m = self
        let t = max(now, clock)
        m.settle(to: t)
        let list = try session.map { [try m.session($0)] } ?? m.orderedSessions
        return .array(list.map { s in
            let published = m.publishedInfo(s)
            return [
                "session": .string(s.id),
                "kind": .string(s.kind.description),
                "driver": .string(s.driver.rawValue),
                "audio": s.audio.toJSON(),
                "commands": .array(RemoteCommandKind.allCases.map { k in
                    let c = s.commandCenter[k]
                    return ["command": .string(k.rawValue), "isEnabled": .bool(c.isEnabled),
                            "targets": .int(Int64(c.targets.count)), "isAvailable": .bool(c.isAvailable)]
                }),
                "infoKeys": .array(published.info.keys.map { .string($0.rawValue) }),
                "automaticallyPublishes": .bool(s.automaticallyPublishes),
                "explanation": m.explanation(of: s).toJSON(),
                "faults": .array(m.faults(of: s).map { $0.toJSON() }),
            ]
        })
    }
}
