/// Who is where, for the operations that reach across sessions: an app's sessions (disconnect,
/// demote), the sessions playing non-mixable audio (an activation interrupts other apps'), and
/// the sessions each session interrupted (its close releases them). Kept up to date in
/// `reconcile()` from the sessions an operation touched, so none of those operations scans
/// every session.
struct SessionIndex: Sendable, Equatable {
    struct Facts: Sendable, Equatable {
        var app: AppID
        var order: UInt64
        /// Active, non-mixable audio: interrupted by another app's activation.
        var audible: Bool
        var interruptedBy: Set<SessionID>
        /// Clients with an external target on one of its commands.
        var targetClients: Set<ClientID>
    }

    private(set) var facts: [SessionID: Facts] = [:]
    private(set) var byApp: [AppID: Set<SessionID>] = [:]
    private(set) var audibleByApp: [AppID: Set<SessionID>] = [:]
    private(set) var interrupted: [SessionID: Set<SessionID>] = [:]
    private(set) var byTargetClient: [ClientID: Set<SessionID>] = [:]

    /// Records a session's current facts (nil: it is gone).
    mutating func update(_ id: SessionID, _ session: Session?) {
        let new = session.map { s in
            Facts(app: s.app, order: s.order, audible: s.audio.isActive && !s.audio.isMixable,
                  interruptedBy: Set(s.audio.interruptions.compactMap {
                      if case .session(let by) = $0 { return by } else { return nil }
                  }),
                  targetClients: Set(s.commandCenter.commands.values.flatMap { c in
                      c.targets.compactMap { if case .external(let client) = $0.handler { return client } else { return nil } }
                  }))
        }
        let old = facts[id]
        guard old != new else { return }
        if let old {
            byApp[old.app]?.remove(id)
            if byApp[old.app]?.isEmpty == true { byApp[old.app] = nil }
            if old.audible { audibleByApp[old.app]?.remove(id) }
            if audibleByApp[old.app]?.isEmpty == true { audibleByApp[old.app] = nil }
            for by in old.interruptedBy {
                interrupted[by]?.remove(id)
                if interrupted[by]?.isEmpty == true { interrupted[by] = nil }
            }
            for c in old.targetClients {
                byTargetClient[c]?.remove(id)
                if byTargetClient[c]?.isEmpty == true { byTargetClient[c] = nil }
            }
        }
        facts[id] = new
        if let new {
            byApp[new.app, default: []].insert(id)
            if new.audible { audibleByApp[new.app, default: []].insert(id) }
            for by in new.interruptedBy { interrupted[by, default: []].insert(id) }
            for c in new.targetClients { byTargetClient[c, default: []].insert(id) }
        }
    }

    /// The sessions of an app (as of the last reconcile).
    func sessions(of app: AppID) -> Set<SessionID> { byApp[app] ?? [] }

    /// Sessions of other apps with active non-mixable audio.
    func audible(except app: AppID) -> [SessionID] {
        audibleByApp.flatMap { $0.key == app ? [] : Array($0.value) }
    }

    /// Sessions with an external target of `client`.
    func sessions(targetedBy client: ClientID) -> Set<SessionID> { byTargetClient[client] ?? [] }

    /// Sessions `id` interrupted.
    func interrupted(by id: SessionID) -> Set<SessionID> { interrupted[id] ?? [] }
}
