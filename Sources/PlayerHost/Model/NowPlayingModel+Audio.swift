/// Audio sessions: `audio.configure/activate/deactivate/interrupt` and interruptions.
extension NowPlayingModel {
    /// Parses `audio.configure` options (`["mixWithOthers", "duckOthers"]`).
    public static func parseAudioOptions(_ names: [String]) throws -> Set<AudioOption> {
        Set(try names.map {
            guard let o = AudioOption(rawValue: $0) else {
                throw ModelError.invalid("unknown audio option '\($0)' (mixWithOthers, duckOthers)", ModelError.Detail(option: $0))
            }
            return o
        })
    }

    /// `audio.configure`: category and options. A session that becomes non-mixable while
    /// active interrupts other apps' sessions, as activation does.
    public mutating func configureAudio(session id: SessionID, category: AudioCategory, options: Set<AudioOption> = [],
                                        now: MonotonicInstant) throws -> ModelResult<AudioSession> {
        try perform(now) { m, t in
            var s = try m.session(id)
            let wasMixable = s.audio.isMixable
            s.audio.category = category
            s.audio.options = options
            m.sessions[id] = s
            if wasMixable, !s.audio.isMixable, s.audio.isActive, !s.audio.isInterrupted { m.interruptOthers(by: id, at: t) }
            return m.sessions[id]!.audio
        }
    }

    /// Sets whether the session outlives its app (`backgroundAudio`).
    public mutating func setBackgroundAudio(session id: SessionID, _ on: Bool, now: MonotonicInstant) throws -> ModelResult<AudioSession> {
        try perform(now) { m, _ in
            _ = try m.session(id)
            m.sessions[id]!.audio.backgroundAudio = on
            return m.sessions[id]!.audio
        }
    }

    /// `audio.activate`. Re-activating ends an interruption by another app (and interrupts it
    /// back); it is refused while the system interrupts (`invalidState`), as a call would.
    /// A non-mixable session interrupts every active non-mixable session of another app.
    public mutating func activateAudio(session id: SessionID, now: MonotonicInstant) throws -> ModelResult<AudioSession> {
        try perform(now) { m, t in
            let s = try m.session(id)
            if s.audio.interruptions.contains(.system) {
                throw ModelError.state("the system has interrupted audio; wait for the interruption to end",
                                       ModelError.Detail(session: id))
            }
            if s.audio.isActive, !s.audio.isInterrupted { return s.audio }
            m.sessions[id]!.audio.isActive = true
            m.sessions[id]!.audio.interruptions = []
            m.sessions[id]!.audio.pausedByInterruption = []
            if !s.audio.isMixable { m.interruptOthers(by: id, at: t) }
            return m.sessions[id]!.audio
        }
    }

    /// `audio.deactivate`: the session's players pause (no audio without an active session).
    /// With `notifyOthers`, the sessions it interrupted get `ended, shouldResume: true`;
    /// without, they stay interrupted until they activate again (as on Apple platforms).
    public mutating func deactivateAudio(session id: SessionID, notifyOthers: Bool = false,
                                         now: MonotonicInstant) throws -> ModelResult<AudioSession> {
        try perform(now) { m, t in
            let s = try m.session(id)
            guard s.audio.isActive else { return s.audio }
            m.sessions[id]!.audio.isActive = false
            m.sessions[id]!.audio.interruptions = []
            m.sessions[id]!.audio.pausedByInterruption = []
            m.pausePlayers(of: id, at: t)
            if notifyOthers { m.releaseInterruptions(by: id, shouldResume: true, at: t) }
            return m.sessions[id]!.audio
        }
    }

    /// `audio.interrupt`: an external interruption of every active session. `began` pauses
    /// them all; `ended` releases them with `shouldResume` (default true).
    public mutating func interruptAudio(_ type: InterruptionType, shouldResume: Bool? = nil,
                                        now: MonotonicInstant) -> ModelResult<Void> {
        perform(now) { m, t in
            for s in m.orderedSessions {
                switch type {
                case .began:
                    guard s.audio.isActive, !s.audio.interruptions.contains(.system) else { continue }
                    m.sessions[s.id]!.audio.interruptions.insert(.system)
                    m.pausePlayers(of: s.id, at: t, forInterruption: true)
                    m.emit(.interruptionBegan(s.id, source: .system))
                case .ended:
                    guard s.audio.interruptions.contains(.system) else { continue }
                    m.sessions[s.id]!.audio.interruptions.remove(.system)
                    if !m.sessions[s.id]!.audio.isInterrupted {
                        m.endInterruption(of: s.id, shouldResume: shouldResume ?? true, at: t)
                    }
                }
            }
        }
    }

    /// `session` activated non-mixable audio: interrupt other apps' active non-mixable sessions.
    mutating func interruptOthers(by id: SessionID, at t: MonotonicInstant) {
        // `[arbiter] ignore`: an ignored player's audio interrupts no one.
        guard let me = sessions[id], !policy.isIgnored(id) else { return }
        let candidates = Set(index.audible(except: me.app)).union(sessions.dirty).compactMap { sessions[$0] }
        for other in candidates.sorted(by: { $0.order < $1.order })
        where other.app != me.app && other.audio.isActive && !other.audio.isMixable && !outranksWhilePlaying(other.id, id) {
            guard !other.audio.interruptions.contains(.session(id)) else { continue }
            sessions[other.id]!.audio.interruptions.insert(.session(id))
            pausePlayers(of: other.id, at: t, forInterruption: true)
            emit(.interruptionBegan(other.id, source: .session(id)))
        }
    }

    /// Ends interruptions `id` caused; a session with none left gets `ended`.
    mutating func releaseInterruptions(by id: SessionID, shouldResume: Bool, at t: MonotonicInstant) {
        let candidates = index.interrupted(by: id).union(sessions.dirty).compactMap { sessions[$0] }
        for other in candidates.sorted(by: { $0.order < $1.order }) where other.audio.interruptions.contains(.session(id)) {
            sessions[other.id]!.audio.interruptions.remove(.session(id))
            if !sessions[other.id]!.audio.isInterrupted {
                endInterruption(of: other.id, shouldResume: shouldResume, at: t)
            }
        }
    }

    /// A session's last interruption ended: `ended` goes to its app, and with `shouldResume`
    /// the clock players the interruptions paused play again. (An external engine's backend
    /// resumes its own engine on the event: mpv's plugin and the MPRIS importer do.)
    mutating func endInterruption(of id: SessionID, shouldResume: Bool, at t: MonotonicInstant) {
        let paused = sessions[id]?.audio.pausedByInterruption ?? []
        sessions[id]?.audio.pausedByInterruption = []
        if shouldResume, sessions[id]?.driver == .clock {
            for pid in paused.sorted() where players[pid]?.session == id { _ = try? players[pid]?.timeline.play(at: t) }
        }
        emit(.interruptionEnded(id, shouldResume: shouldResume))
    }

    /// Pauses a clock session's players. An external engine is paused by its backend (its app
    /// gets the interruption) and reported with `player.sync`: pausing the model alone would
    /// publish a pause the engine never made. `forInterruption` remembers which were playing,
    /// so the end of the interruption can resume them.
    mutating func pausePlayers(of id: SessionID, at t: MonotonicInstant, forInterruption: Bool = false) {
        guard sessions[id]?.driver == .clock else { return }
        for pid in sessions[id]?.playerIDs ?? [] {
            if players[pid]?.timeline.pause(at: t) == true, forInterruption {
                sessions[id]?.audio.pausedByInterruption.insert(pid)
            }
        }
    }
}
