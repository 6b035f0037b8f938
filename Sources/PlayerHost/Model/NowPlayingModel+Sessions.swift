import PlayerHostBase

/// Apps and sessions: `host.hello`, disconnects, `session.create/list/get/close/becomeActiveIfPossible`.
extension NowPlayingModel {
    // MARK: Apps

    /// `host.hello`: the connection (or, with `client` nil, an in-process plugin) becomes an app.
    /// Saying hello again on the same connection returns the same app.
    public mutating func registerApp(name: String, client: ClientID?, desktopEntry: String? = nil,
                                     now: MonotonicInstant) throws -> ModelResult<App> {
        try perform(now) { m, _ in
            if let c = client, let existing = m.clientApps[c], let app = m.apps[existing] { return app }
            let trimmed = String(name.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
            guard !trimmed.isEmpty, trimmed.count <= 128 else { throw ModelError.invalid("an app needs a name (1–128 characters)") }
            let slug = String(trimmed.lowercased().map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "-" })
            var id = slug == Self.hostApp ? "\(slug)-app" : slug
            var n = 2
            while m.apps[id] != nil { id = "\(slug)-\(n)"; n += 1 }
            var app = App(id: id, name: trimmed, client: client, order: m.tick())
            app.desktopEntry = desktopEntry
            m.apps[id] = app
            if let c = client { m.clientApps[c] = id }
            m.emit(.appRegistered(app))
            return app
        }
    }

    /// A connection went away: it loses its external command targets, and if it was an app,
    /// its sessions follow the background-audio rule (see `removeApp`).
    public mutating func disconnectClient(_ client: ClientID, now: MonotonicInstant) -> ModelResult<Void> {
        perform(now) { m, t in
            m.dropTargets(ownedBy: client)
            if let app = m.clientApps[client] { m.removeAppNow(app, at: t) }
        }
    }

    /// An app goes away (a plugin detaches): sessions without `backgroundAudio` are paused and
    /// removed; those with it keep running and now belong to the host (QA1668).
    public mutating func removeApp(_ app: AppID, now: MonotonicInstant) throws -> ModelResult<Void> {
        try perform(now) { m, t in
            guard app != Self.hostApp else { throw ModelError.invalid("the host app cannot be removed") }
            guard m.apps[app] != nil else { throw ModelError.invalid("no app '\(app)'", ModelError.Detail(app: app)) }
            if let c = m.apps[app]?.client { m.dropTargets(ownedBy: c) }
            m.removeAppNow(app, at: t)
        }
    }

    mutating func dropTargets(ownedBy client: ClientID) {
        for id in index.sessions(targetedBy: client).union(sessions.dirty) {
            _ = sessions[id]?.commandCenter.removeTargets(ownedBy: client)
        }
    }

    /// A slice of a disconnect, so that a ping is never stuck behind thousands of closes (issue
    /// 16): the connection's targets go, and at most `limit` of its app's sessions (oldest first)
    /// follow the background-audio rule. The result says whether more remain: the host calls
    /// again on a later loop turn, then `disconnectClient` for the rest (the app itself).
    public mutating func releaseSessions(ofClient client: ClientID, limit: Int, now: MonotonicInstant) -> ModelResult<Bool> {
        perform(now) { m, t in
            m.dropTargets(ownedBy: client)
            guard let appID = m.clientApps[client], let app = m.apps[appID] else { return false }
            let (oldest, total) = m.oldestSessionIDs(of: appID, limit: max(1, limit))
            for id in oldest { m.release(id, of: app, at: t) }
            return total > oldest.count
        }
    }

    /// The app's `limit` oldest sessions, oldest first, and how many it has: one pass over its
    /// sessions keeping the `limit` oldest (a slice must not sort all 10 000 of them each turn).
    private func oldestSessionIDs(of appID: AppID, limit: Int) -> (ids: [SessionID], total: Int) {
        var kept: [(order: UInt64, id: SessionID)] = []
        var total = 0
        let indexed = index.sessions(of: appID)
        for id in sessions.dirty.isEmpty ? indexed : indexed.union(sessions.dirty) {
            guard let s = sessions[id], s.app == appID else { continue }
            total += 1
            if kept.count == limit {
                guard s.order < kept[limit - 1].order else { continue }
                kept.removeLast()
            }
            let at = kept.firstIndex { $0.order > s.order } ?? kept.count
            kept.insert((s.order, id), at: at)
        }
        return (kept.map(\.id), total)
    }

    /// The app's sessions, oldest first.
    private func ownedSessionIDs(of appID: AppID) -> [SessionID] {
        index.sessions(of: appID).union(sessions.dirty)
            .compactMap { id in sessions[id].flatMap { $0.app == appID ? ($0.order, id) : nil } }
            .sorted { $0.0 < $1.0 }.map(\.1)
    }

    mutating func removeAppNow(_ appID: AppID, at t: MonotonicInstant) {
        guard let app = apps[appID] else { return }
        for id in ownedSessionIDs(of: appID) { release(id, of: app, at: t) }
        if let c = app.client { clientApps[c] = nil }
        apps[appID] = nil
        if nowPlayingApp == appID { nowPlayingApp = nil }
        emit(.appRemoved(appID))
    }

    /// One session of a departing app: kept by the host with `backgroundAudio`, else closed.
    private mutating func release(_ id: SessionID, of app: App, at t: MonotonicInstant) {
        guard let s = sessions[id] else { return }
        let appID = app.id
        if s.audio.backgroundAudio {
            sessions[s.id]?.app = Self.hostApp
            emit(.sessionOwnerChanged(s.id, from: appID, to: Self.hostApp))
            // The host inherits the app's standing, so a playing background session keeps the slot.
            if nowPlayingApp == appID, nowPlayingSession == s.id {
                nowPlayingApp = Self.hostApp
                apps[Self.hostApp]?.preferredSession = s.id
            }
            let host = apps[Self.hostApp]
            let start = max(host?.lastPlaybackStart ?? 0, app.lastPlaybackStart ?? 0)
            let held = max(host?.lastHeldSlot ?? 0, app.lastHeldSlot ?? 0)
            apps[Self.hostApp]?.lastPlaybackStart = start == 0 ? nil : start
            apps[Self.hostApp]?.lastHeldSlot = held == 0 ? nil : held
        } else {
            closeNow(s.id, reason: .appDisconnected, at: t)
        }
    }

    // MARK: Sessions

    /// The app a caller acts as.
    func appFor(_ caller: Caller) throws -> AppID {
        switch caller {
        case .host: return Self.hostApp
        case .client(let c): return clientApps[c] ?? Self.hostApp
        case .app(let a):
            guard apps[a] != nil else { throw ModelError.invalid("no app '\(a)'", ModelError.Detail(app: a)) }
            return a
        }
    }

    /// Apps may only close or configure their own sessions; the host and non-app connections
    /// (scripts, `npctl`: they act for the person at the machine, like the host) may act on any.
    package func requireOwner(_ s: Session, _ caller: Caller) throws {
        let app = try appFor(caller)
        guard app == Self.hostApp || app == s.app else {
            throw ModelError(.notOwner, "session '\(s.id)' belongs to app '\(s.app)'; only it may configure the session",
                             detail: ModelError.Detail(session: s.id, app: s.app, owner: s.app))
        }
    }

    /// A free-standing player that a session can adopt later (`adopting:`).
    public mutating func createPlayer(id: PlayerID, now: MonotonicInstant) throws -> ModelResult<Player> {
        try perform(now) { m, _ in
            guard !id.isEmpty else { throw ModelError.invalid("a player needs an id") }
            guard m.players[id] == nil else {
                throw ModelError(.playerInUse, "player '\(id)' already exists", detail: ModelError.Detail(player: id))
            }
            let p = Player(id: id, session: nil, ownedBySession: false)
            m.players[id] = p
            return p
        }
    }

    /// `session.create`. `id` defaults to the kind (`main`, `main-2`, …); `playerCount` to the
    /// kind's (4 for multi-view, which must have exactly 4). `adopting` attaches existing
    /// free players (a player belongs to at most one session: `playerInUse`). `driver` says what
    /// moves its players: the host's clock (default) or an external engine (see `syncPlayer`).
    public mutating func createSession(
        id: SessionID? = nil, kind: SessionKind, playerCount: Int? = nil, adopting: [PlayerID] = [],
        automaticallyPublishes: Bool = true, backgroundAudio: Bool = false, driver: PlayerDriver = .clock,
        caller: Caller = .host, now: MonotonicInstant
    ) throws -> ModelResult<Session> {
        try perform(now) { m, t in
            let app = try m.appFor(caller)
            guard m.index.sessions(of: app).count < m.limits.sessionsPerApp else {
                throw ModelLimits.exceeded("max_sessions_per_app", m.limits.sessionsPerApp, "app '\(app)' has that many sessions")
            }
            if let id {
                guard !id.isEmpty, id.count <= 64, !id.contains(where: { $0.isWhitespace || $0.isNewline }) else {
                    throw ModelError.invalid("session id must be 1–64 characters without spaces")
                }
                guard m.sessions[id] == nil else {
                    throw ModelError(.sessionExists, "session '\(id)' already exists", detail: ModelError.Detail(session: id))
                }
            }
            guard Set(adopting).count == adopting.count else { throw ModelError.invalid("a player is listed twice") }
            for pid in adopting {
                guard let p = m.players[pid] else {
                    throw ModelError(.playerNotFound, "no player '\(pid)'", detail: ModelError.Detail(player: pid))
                }
                if let owner = p.session {
                    throw ModelError(.playerInUse, "player '\(pid)' belongs to session '\(owner)'",
                                     detail: ModelError.Detail(session: owner, player: pid))
                }
            }
            let fresh = playerCount ?? (adopting.isEmpty ? kind.defaultPlayerCount : 0)
            let total = fresh + adopting.count
            guard fresh >= 0, (1...16).contains(total) else { throw ModelError.invalid("a session has 1–16 players") }
            if kind == .multiview, total != 4 { throw ModelError.invalid("a multiview session has exactly 4 players") }
            let sid = id ?? m.firstFreeDefaultID(for: kind)

            var ids = adopting
            for i in 0..<fresh {
                var pid = "\(sid).\(adopting.count + i)"
                while m.players[pid] != nil { pid += "_" }
                m.players[pid] = Player(id: pid, session: sid, ownedBySession: true)
                ids.append(pid)
            }
            for pid in adopting {
                m.players[pid]?.session = sid
                m.players[pid]?.timeline.reanchor(at: t)
            }
            var s = Session(id: sid, kind: kind, app: app, playerIDs: ids,
                            automaticallyPublishes: automaticallyPublishes, order: m.tick())
            s.audio.backgroundAudio = backgroundAudio
            s.driver = driver
            // An adopted player may already repeat or shuffle: remotes show its modes from the start.
            if let first = ids.first.flatMap({ m.players[$0]?.timeline }) {
                s.commandCenter.follow(repeatMode: first.repeatMode, shuffleMode: first.shuffleMode)
            }
            s.manualTimestamp = t
            m.sessions[sid] = s
            m.baselines[sid] = m.baseline(for: s, canBecomeActive: false, isActive: false)
            m.emit(.sessionCreated(sid))
            return s
        }
    }

    /// `session.close`: players pause (and go, unless adopted), sessions it interrupted are
    /// released as if it had deactivated with `notifyOthers` (`ended`, `shouldResume: true`: a
    /// player paused by the interruption plays again), the slot moves on if it held it.
    public mutating func closeSession(_ id: SessionID, caller: Caller = .host, now: MonotonicInstant) throws -> ModelResult<Void> {
        try perform(now) { m, t in
            try m.requireOwner(try m.session(id), caller)
            m.closeNow(id, reason: .closed, at: t)
        }
    }

    /// The first free default id for a kind: `main`, then `main-2`, `main-3`… (the lowest free
    /// suffix, as ever), from the hints rather than by trying every suffix from 2. Called once
    /// the create has been validated (nothing after it fails), so the id given is taken off them.
    mutating func firstFreeDefaultID(for kind: SessionKind) -> SessionID {
        let base = kind.description
        defaultIDHints.probes += 1
        if sessions[base] == nil { return base }
        // Out of the dictionary while it changes: a copy left in it would make the heap's first
        // change copy the whole heap.
        var hints = defaultIDHints.kinds.removeValue(forKey: base) ?? .init()
        defer { defaultIDHints.kinds[base] = hints }
        while let k = hints.freed.popMin() {
            defaultIDHints.probes += 1
            if sessions["\(base)-\(k)"] == nil { return "\(base)-\(k)" }
        }
        while true {
            defaultIDHints.probes += 1
            let n = hints.top
            hints.top += 1
            if sessions["\(base)-\(n)"] == nil { return "\(base)-\(n)" }
        }
    }

    /// A closed default id `kind-n` (n ≥ 2, written as a default would be) below the kind's
    /// `top` is free again: the lowest such is the next one given. (`main-1`, `main-02`: not
    /// default ids, never handed out.)
    private mutating func freeDefaultID(_ id: SessionID) {
        guard let dash = id.lastIndex(of: "-") else { return }
        let suffix = id[id.index(after: dash)...]
        guard let n = Int(suffix), n >= 2, String(n) == suffix else { return }
        let base = String(id[..<dash])
        guard let top = defaultIDHints.kinds[base]?.top, n < top else { return }
        defaultIDHints.kinds[base]?.freed.insert(n)
    }

    mutating func closeNow(_ id: SessionID, reason: SessionCloseReason, at t: MonotonicInstant) {
        guard let s = sessions[id] else { return }
        for pid in s.playerIDs {
            guard var p = players[pid] else { continue }
            if p.ownedBySession {
                players[pid] = nil
            } else {
                p.timeline.pause(at: t)
                p.session = nil
                players[pid] = p
            }
        }
        sessions[id] = nil
        freeDefaultID(id)
        // A closing session (its app exiting included) gives the audio back: what it paused
        // resumes, as after `audio.deactivate` with `notifyOthers` (SPEC, Audio session). With
        // `false` here, mpv stayed paused for good after a plugin that interrupted it exited.
        releaseInterruptions(by: id, shouldResume: true, at: t)
        if apps[s.app]?.preferredSession == id { apps[s.app]?.preferredSession = nil }
        closedHints[id] = reason
        emit(.sessionClosed(id, reason: reason))
    }

    /// `session.becomeActiveIfPossible`: if eligible, the session becomes its app's active one
    /// (and Now Playing, if its app holds the slot); otherwise nothing changes and `reason`
    /// names every failing condition.
    public mutating func becomeActiveIfPossible(_ id: SessionID, now: MonotonicInstant) throws -> ModelResult<BecomeActiveResult> {
        try perform(now) { m, _ in
            let s = try m.session(id)
            let e = Eligibility(s)
            guard e.isEligible else { return BecomeActiveResult(active: false, reason: e.reasons.joined(separator: "; ")) }
            m.apps[s.app]?.preferredSession = id
            m.promotedHint = id
            return BecomeActiveResult(active: true, reason: nil)
        }
    }

    // MARK: Reads

    /// Whether the session is its app's active session (as last reconciled).
    public func isActive(_ id: SessionID) -> Bool { arbiter.isActive(id) }
}

extension NowPlayingModel {
    /// The inverse of a promotion (`npctl demote`): if `id` is its app's active session, the
    /// app's next eligible session becomes active instead. `active` tells whether `id` still is
    /// (it stays when no other session of its app is eligible; `reason` says so).
    public mutating func resignActive(_ id: SessionID, now: MonotonicInstant) throws -> ModelResult<BecomeActiveResult> {
        try perform(now) { m, _ in
            let s = try m.session(id)
            guard m.isActive(id) else { return BecomeActiveResult(active: false, reason: "not its app's active session") }
            let candidates = m.index.sessions(of: s.app).compactMap { m.sessions[$0] }.sorted { $0.order < $1.order }
            guard let other = candidates.first(where: { $0.app == s.app && $0.id != id && Eligibility.isEligible($0) }) else {
                return BecomeActiveResult(active: true, reason: "no other eligible session of app \(s.app) can take over")
            }
            m.apps[s.app]?.preferredSession = other.id
            m.promotedHint = other.id
            return BecomeActiveResult(active: false, reason: nil)
        }
    }
}
