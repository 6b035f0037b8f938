import PlayerHostBase

/// Command centers: `command.enable/configure/addTarget/removeTarget/bindDefaults/send`.
extension NowPlayingModel {
    /// `command.enable`.
    public mutating func enableCommand(session id: SessionID, _ command: RemoteCommandKind, enabled: Bool,
                                       now: MonotonicInstant) throws -> ModelResult<RemoteCommand> {
        try perform(now) { m, _ in
            _ = try m.session(id)
            m.sessions[id]!.commandCenter.setEnabled(command, enabled)
            return m.sessions[id]!.commandCenter[command]
        }
    }

    /// `command.configure` with the command's properties (`preferredIntervals`,
    /// `supportedPlaybackRates`, `currentRepeatType`, …); a property the command does not have
    /// is `invalidArgument`. (The wire's object is decoded by the host: Host/ModelJSON.)
    public mutating func configureCommand(session id: SessionID, _ command: RemoteCommandKind,
                                          properties: CommandConfigurationPatch,
                                          now: MonotonicInstant) throws -> ModelResult<RemoteCommand> {
        try perform(now) { m, _ in
            let s = try m.session(id)
            let c = try s.commandCenter[command].configuration.applying(properties, for: command)
            m.sessions[id]!.commandCenter.setConfiguration(command, c)
            return m.sessions[id]!.commandCenter[command]
        }
    }

    /// `command.addTarget` from a connection: it handles the command out of process (the host
    /// sends it `command.handle`). Returns the token. The target goes when the client does.
    public mutating func addTarget(session id: SessionID, _ command: RemoteCommandKind, client: ClientID,
                                   now: MonotonicInstant) throws -> ModelResult<Int> {
        try addTarget(session: id, command, handler: .external(client), now: now)
    }

    /// Adds a target with any handler (built-in bindings to the session's players, for
    /// in-process plugins). Player indices must exist.
    public mutating func addTarget(session id: SessionID, _ command: RemoteCommandKind, handler: CommandHandler,
                                   now: MonotonicInstant) throws -> ModelResult<Int> {
        try perform(now) { m, _ in
            let s = try m.session(id)
            if case .players(let idx) = handler {
                guard !idx.isEmpty, idx.allSatisfy({ s.playerIDs.indices.contains($0) }) else {
                    throw ModelError(.playerNotFound, "session '\(id)' has players 0..<\(s.playerIDs.count)")
                }
            }
            guard s.commandCenter[command].targets.count < m.limits.targetsPerCommand else {
                throw ModelLimits.exceeded("max_targets_per_command", m.limits.targetsPerCommand,
                                           "\(command.rawValue) of session '\(id)' has that many targets")
            }
            let token = m.nextToken
            m.nextToken += 1
            m.sessions[id]!.commandCenter.addTarget(command, CommandTarget(token: token, handler: handler))
            return token
        }
    }

    /// `command.removeTarget`: one target by token (`targetNotFound` if it is not on that
    /// command) or, with nil, all of the caller's own (the host: all of them). A connection may not remove another connection's
    /// external target (`notOwner`).
    public mutating func removeTarget(session id: SessionID, _ command: RemoteCommandKind, token: Int?,
                                      caller: Caller = .host, now: MonotonicInstant) throws -> ModelResult<Void> {
        try perform(now) { m, _ in
            let s = try m.session(id)
            if let token {
                guard let target = s.commandCenter[command].targets.first(where: { $0.token == token }) else {
                    throw ModelError(.targetNotFound, "\(command.rawValue) of session '\(id)' has no target \(token)",
                                     detail: ModelError.Detail(session: id, command: command.rawValue, token: token))
                }
                if case .external(let owner) = target.handler, case .client(let c) = caller, c != owner {
                    throw ModelError(.notOwner, "target \(token) belongs to another client", detail: ModelError.Detail(token: token))
                }
            }
            if token != nil {
                m.sessions[id]!.commandCenter.removeTarget(command, token: token)
            } else if case .client(let c) = caller {
                // Without a token a connection removes its own targets: its out-of-process ones,
                // and the built-in ones only if it owns the session (never another client's).
                let ownsSession = (try? m.appFor(caller)) == s.app
                m.sessions[id]!.commandCenter.removeTargets(command) { target in
                    switch target.handler {
                    case .external(let owner): return owner == c
                    case .players: return ownsSession
                    }
                }
            } else {
                m.sessions[id]!.commandCenter.removeTarget(command, token: nil)
            }
        }
    }

    /// `command.bindDefaults`: targets **and enables** the transport, repeat, shuffle and volume commands
    /// on the session's own players (every player for multi-view, else player 0). Idempotent:
    /// earlier built-in bindings are replaced. `changePlaybackRate` gets common rates if none are
    /// configured; `currentRepeatType`/`currentShuffleType` start from player 0's modes.
    ///
    /// An external session gets the commands enabled but no built-in target: a built-in target
    /// would change the model while the engine plays on. Its backend handles each command it
    /// supports with `command.addTarget`, acts on the engine and reports with `player.sync`
    /// (`doctor` lists the commands still waiting for a target).
    public mutating func bindDefaultCommands(session id: SessionID, now: MonotonicInstant) throws -> ModelResult<CommandCenter> {
        try perform(now) { m, _ in
            let s = try m.session(id)
            let indices = s.kind == .multiview ? Array(s.playerIDs.indices) : [0]
            var center = s.commandCenter
            for kind in RemoteCommandKind.defaultBound {
                for t in center[kind].targets { if case .players = t.handler { center.removeTarget(kind, token: t.token) } }
                if s.driver == .clock {
                    center.addTarget(kind, CommandTarget(token: m.nextToken, handler: .players(indices)))
                    m.nextToken += 1
                }
                center.setEnabled(kind, true)
            }
            if let first = s.playerIDs.first.flatMap({ m.players[$0]?.timeline }) {
                center.follow(repeatMode: first.repeatMode, shuffleMode: first.shuffleMode)
            }
            if center[.changePlaybackRate].configuration.supportedPlaybackRates.isEmpty {
                var c = center[.changePlaybackRate].configuration
                c.supportedPlaybackRates = [0.5, 0.75, 1, 1.25, 1.5, 2]
                center.setConfiguration(.changePlaybackRate, c)
            }
            m.sessions[id]!.commandCenter = center
            return center
        }
    }

    /// `command.send`: to `session`, or the Now Playing session when nil
    /// (`noNowPlayingSession` if there is none). Refused before any handler runs when the
    /// command is disabled (`commandDisabled`), has no target (`commandHasNoTarget`) or its
    /// payload is invalid. A command that starts playback (`play`, `togglePlayPause` while not
    /// playing) on a session whose audio is inactive or interrupted first re-activates it, as
    /// `audio.activate` does (interrupting others under the non-mixable rule), and makes it its
    /// app's active session; if that is refused the command is `commandFailed` with the reason.
    /// Then targets run in order; the result is the first non-success.
    public mutating func sendCommand(_ command: RemoteCommandKind, session: SessionID? = nil,
                                     payload: CommandPayload = CommandPayload(),
                                     now: MonotonicInstant) throws -> ModelResult<CommandProgress> {
        try perform(now) { m, t in
            let (id, c) = try m.sendable(command, session: session)
            let s = try m.session(id)
            let event = try CommandEvent(command: command, payload: payload, configuration: c.configuration)
            if m.startsPlayback(command, s), let refusal = m.reactivateForPlay(id, at: t) {
                let outcome = CommandOutcome(session: id, command: command, status: .commandFailed,
                                             statuses: [.commandFailed], reason: refusal)
                m.emit(.commandHandled(outcome))
                return .finished(outcome)
            }
            var d = CommandDispatch(id: m.nextDispatchID, session: id, event: event, targets: c.targets)
            m.nextDispatchID += 1
            return m.drive(&d, at: t)
        }
    }

    /// The session `command.send` goes to and its command, or why it is refused before the
    /// payload is looked at (`noNowPlayingSession`, `sessionNotFound`, `commandDisabled`,
    /// `commandHasNoTarget`). The host asks this before decoding a wire payload, so a refusal
    /// comes first whatever the payload holds.
    public func sendable(_ command: RemoteCommandKind, session: SessionID?) throws -> (SessionID, RemoteCommand) {
        guard let id = session ?? nowPlayingSession else {
            throw ModelError(.noNowPlayingSession, "no session is Now Playing; name one with session",
                             detail: ModelError.Detail(command: command.rawValue))
        }
        let c = try self.session(id).commandCenter[command]
        let detail = ModelError.Detail(session: id, command: command.rawValue)
        guard c.isEnabled else {
            throw ModelError(.commandDisabled, "\(command.rawValue) is disabled on session '\(id)'", detail: detail)
        }
        guard !c.targets.isEmpty else {
            throw ModelError(.commandHasNoTarget, "\(command.rawValue) has no target on session '\(id)'", detail: detail)
        }
        return (id, c)
    }

    /// The host's answer for `dispatch.awaiting`: the client's status, or `commandFailed` on
    /// timeout, a malformed answer or a disconnect. Runs the remaining targets.
    public mutating func resumeCommand(_ dispatch: CommandDispatch, status: CommandStatus,
                                       now: MonotonicInstant) throws -> ModelResult<CommandProgress> {
        try perform(now) { m, t in
            guard dispatch.awaiting != nil else { throw ModelError.state("this command dispatch is not waiting for a target") }
            var d = dispatch
            d.awaiting = nil
            d.statuses.append(status)
            return m.drive(&d, at: t)
        }
    }

    /// Runs targets from `d.nextTarget` until an external one (→ awaiting) or the end.
    mutating func drive(_ d: inout CommandDispatch, at t: MonotonicInstant) -> CommandProgress {
        while d.nextTarget < d.targets.count {
            let target = d.targets[d.nextTarget]
            d.nextTarget += 1
            guard let s = sessions[d.session] else {
                d.statuses.append(.deviceNotFound)
                break
            }
            guard s.commandCenter[d.command].targets.contains(target) else { continue }
            switch target.handler {
            case .players(let indices):
                d.statuses.append(runBuiltin(d.event, session: d.session, players: indices, at: t))
            case .external(let client):
                let call = ExternalInvocation(dispatchID: d.id, client: client, token: target.token,
                                              session: d.session, event: d.event)
                d.awaiting = call
                return .awaiting(d)
            }
        }
        if d.statuses.isEmpty { d.statuses.append(.commandFailed) }
        let outcome = CommandOutcome(session: d.session, command: d.command, status: d.status, statuses: d.statuses)
        emit(.commandHandled(outcome))
        return .finished(outcome)
    }

    /// Whether `command` would start playback on `s` (a toggle does while it is not playing).
    func startsPlayback(_ command: RemoteCommandKind, _ s: Session) -> Bool {
        switch command {
        case .play: return true
        case .togglePlayPause: return publishedInfo(s).playbackState != .playing
        default: return false
        }
    }

    /// Play means play: a session whose audio is inactive or interrupted activates it before its
    /// targets run, so it never plays silently "interrupted" beside another non-mixable session.
    /// Returns why not when the system holds the audio (nothing changes then).
    mutating func reactivateForPlay(_ id: SessionID, at t: MonotonicInstant) -> String? {
        guard let s = sessions[id], !s.audio.isActive || s.audio.isInterrupted else { return nil }
        if s.audio.interruptions.contains(.system) {
            return "the system has interrupted audio (audio.interrupt began); play again when it ends"
        }
        sessions[id]!.audio.isActive = true
        sessions[id]!.audio.interruptions = []
        sessions[id]!.audio.pausedByInterruption = []
        if !s.audio.isMixable { interruptOthers(by: id, at: t) }
        // The person chose this one: it becomes its app's active session (and so Now Playing,
        // once it plays and its app holds the most recent playback).
        apps[s.app]?.preferredSession = id
        return nil
    }
}
