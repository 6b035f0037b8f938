import PlayerHostBase

/// What survives a restart: every session the host owns, read through the model's public API
/// and brought back by replaying public operations (`createSession`, `load`, `seek`,
/// `configureCommand`, …). It never touches the model's internals, so it holds whatever shape
/// they take. No wire format here: `StateFile` renders and parses it.
///
/// Kept: sessions of the host app (made by connections that never said `host.hello`, by the
/// config, or inherited from an app as background audio), and background-audio sessions of
/// apps still connected — kept as the host's, as the host inherits them when their app goes
/// away: a daemon that dies takes its apps' connections with it, so a restart after `kill -9`
/// brings back what an orderly stop would have. Not kept: other app and plugin sessions (their
/// plugins re-create them on re-attach) and targets of connected clients (their clients are
/// gone). Only built-in targets (`.players`, what `bindDefaults` binds) are restored.
public struct HostSnapshot: Sendable, Hashable {
    /// Where a kept session came from: a reload closes only config sessions, and a restart
    /// drops a config session the config no longer lists.
    public enum Origin: String, Sendable, Hashable {
        case config, client
    }

    public struct PlayerState: Sendable, Hashable {
        public var items: [MediaItem] = []
        /// Index into `items` of the current item (nil: empty queue).
        public var itemIndex: Int?
        /// The play order when shuffled (indices into `items`; nil: in queue order). Kept so a
        /// restart plays next what would have played next, not a fresh shuffle.
        public var order: [Int]?
        /// Media time in the current item when the snapshot was taken.
        public var elapsed: Double = 0
        /// The rate when taken (> 0: it was playing; it comes back paused).
        public var rate: Double = 0
        public var defaultRate: Double = 1
        public var repeatMode: RepeatMode = .off
        public var shuffleMode: ShuffleMode = .off
        /// Stopped (at the start of its item, or after the end of its queue) rather than paused.
        public var isStopped = false
        /// Level and mute, as `PlayerVolume` (a level outside its range is refused on restore).
        public var volume: Double = 1
        public var isMuted = false

        public init() {}
    }

    public struct CommandState: Sendable, Hashable {
        public var kind: RemoteCommandKind
        public var isEnabled = false
        /// Built-in targets, each the player indices it drives.
        public var builtinTargets: [[Int]] = []
        public var configuration = CommandConfiguration()

        public init(kind: RemoteCommandKind) { self.kind = kind }

        /// A command nobody touched: not worth keeping.
        var isDefault: Bool { self == CommandState(kind: kind) }
    }

    public struct SessionState: Sendable, Hashable {
        public var id: SessionID
        public var kind: String
        public var origin: Origin = .client
        public var driver: PlayerDriver = .clock
        public var automaticallyPublishes = true
        public var backgroundAudio = false
        public var players: [PlayerState] = []
        /// Only commands that differ from a fresh session's.
        public var commands: [CommandState] = []
        public var category: AudioCategory = .soloAmbient
        public var options: [AudioOption] = []
        public var audioActive = false
        /// Info written with `info.set`/`info.update`.
        public var manualInfo = NowPlayingInfo()
        /// Its app's (the host's) active session.
        public var isActive = false

        public init(id: SessionID, kind: String) {
            self.id = id
            self.kind = kind
        }
    }

    public var sessions: [SessionState] = []
    /// The Now Playing session, when the host owned it.
    public var nowPlaying: SessionID?
    /// The pinned player's name (`arbiter.pin`), kept until `arbiter.unpin`.
    public var pinned: String?

    public init(sessions: [SessionState] = [], nowPlaying: SessionID? = nil) {
        self.sessions = sessions
        self.nowPlaying = nowPlaying
    }

    // MARK: Taking

    /// Reads every host-owned session of `model` at `now`. Positions of playing players are
    /// the ones inferred for `now`; `configSessions` are the ids the config made.
    public init(of model: NowPlayingModel, now: MonotonicInstant, configSessions: Set<SessionID>) {
        // A read-only copy caught up to `now` (item ends passed since the last operation).
        var m = model
        _ = m.advance(to: now)
        let t = m.clock
        for s in m.orderedSessions where Self.isKept(s) {
            sessions.append(Self.capture(s, in: m, at: t, origin: configSessions.contains(s.id) ? .config : .client))
        }
        if let np = m.nowPlayingSession, sessions.contains(where: { $0.id == np }) { nowPlaying = np }
        pinned = m.policy.pinned
    }

    /// Whether a restart brings `s` back: the host's sessions, and those it would inherit
    /// (background audio) when their app goes away with the daemon.
    public static func isKept(_ s: Session) -> Bool {
        s.app == NowPlayingModel.hostApp || s.audio.backgroundAudio
    }

    /// One host session of `m` as kept, read at `t` (the state store captures only the sessions
    /// that changed since its last write, one by one, with this).
    public static func capture(_ s: Session, in m: NowPlayingModel, at t: MonotonicInstant, origin: Origin) -> SessionState {
        var state = SessionState(id: s.id, kind: s.kind.description)
        state.origin = origin
        state.driver = s.driver
        state.automaticallyPublishes = s.automaticallyPublishes
        state.backgroundAudio = s.audio.backgroundAudio
        state.category = s.audio.category
        state.options = s.audio.options.sorted()
        state.audioActive = s.audio.isActive
        // An app's active session is its own, not the host's.
        state.isActive = s.app == NowPlayingModel.hostApp && m.isActive(s.id)
        state.manualInfo = Self.paused(s.manualInfo, since: s.manualTimestamp, at: t)
        state.players = m.players(of: s).map { Self.playerState($0.timeline, at: t) }
        for kind in RemoteCommandKind.allCases {
            let c = s.commandCenter[kind]
            var cs = CommandState(kind: kind)
            cs.isEnabled = c.isEnabled
            cs.configuration = c.configuration
            for target in c.targets { if case .players(let idx) = target.handler { cs.builtinTargets.append(idx) } }
            if !cs.isDefault { state.commands.append(cs) }
        }
        return state
    }

    static func playerState(_ tl: PlayerTimeline, at t: MonotonicInstant) -> PlayerState {
        var p = PlayerState()
        p.items = tl.items
        p.itemIndex = tl.currentIndex
        if tl.shuffleMode != .off, !tl.order.elementsEqual(tl.items.indices) { p.order = tl.order }
        p.elapsed = tl.elapsed(at: t)
        p.rate = tl.rate
        p.defaultRate = tl.defaultRate
        p.repeatMode = tl.repeatMode
        p.shuffleMode = tl.shuffleMode
        p.isStopped = tl.isStopped && !tl.items.isEmpty
        p.volume = tl.volume.level
        p.isMuted = tl.volume.isMuted
        return p
    }

    /// Manual info that says it plays comes back paused where it had got to.
    static func paused(_ info: NowPlayingInfo, since: MonotonicInstant, at t: MonotonicInstant) -> NowPlayingInfo {
        guard let rate = info.rate, rate > 0 else { return info }
        var copy = info
        if let e = info.elapsed {
            var inferred = max(0, e + rate * max(0, t.seconds(since: since)))
            if let d = info.duration { inferred = min(inferred, d) }
            copy[.elapsed] = .number(inferred)
        }
        copy[.rate] = .number(0)
        return copy
    }
}

// MARK: - Restoring

extension HostSnapshot {
    /// One step of a restore that the model refused: the session and what went wrong.
    public struct RestoreFailure: Sendable, Hashable {
        public var session: SessionID
        public var message: String
    }

    /// Re-creates every kept session in `model` by public operations, in order, as the host.
    /// Players come back paused at their position. A session whose creation fails is skipped; a
    /// later step that fails is reported and the rest go on. `keep` filters sessions (a
    /// restart drops config sessions the config no longer lists). Returns the failures, with
    /// every event and action of the steps.
    public func restore(into model: inout NowPlayingModel, now: MonotonicInstant,
                        keep: (SessionState) -> Bool = { _ in true }) -> ModelResult<[RestoreFailure]> {
        var r = Replay(model: model, now: now)
        var restored: [SessionState] = []
        for s in sessions where keep(s) {
            let id = s.id
            let created = r.step(id) { m, t in
                try m.createSession(id: id, kind: try SessionKind(s.kind), playerCount: max(s.players.count, 1),
                                    automaticallyPublishes: s.automaticallyPublishes,
                                    backgroundAudio: s.backgroundAudio, driver: s.driver, caller: .host, now: t)
            }
            guard created else { continue }
            restored.append(s)
            r.step(id) { m, t in try m.configureAudio(session: id, category: s.category, options: Set(s.options), now: t) }
            for (i, p) in s.players.enumerated() {
                if s.driver == .external {
                    let sync = PlayerSync(items: p.items, index: p.itemIndex, elapsed: p.itemIndex == nil ? nil : p.elapsed,
                                          rate: 0, repeatMode: p.repeatMode, shuffleMode: p.shuffleMode,
                                          volume: p.volume, muted: p.isMuted)
                    r.step(id) { m, t in try m.syncPlayer(session: id, player: i, state: sync, now: t) }
                } else {
                    r.restoreClockPlayer(p, session: id, index: i)
                }
            }
            for c in s.commands {
                for idx in c.builtinTargets {
                    r.step(id) { m, t in try m.addTarget(session: id, c.kind, handler: .players(idx), now: t) }
                }
                r.step(id) { m, t in try m.enableCommand(session: id, c.kind, enabled: c.isEnabled, now: t) }
                let props = CommandConfigurationPatch(restoring: c.configuration, for: c.kind)
                if !props.isEmpty {
                    r.step(id) { m, t in try m.configureCommand(session: id, c.kind, properties: props, now: t) }
                }
            }
            // Only a manual session has written info: an automatic one's came back in its items
            // (an older file's written info on one is refused, 1030, and reported).
            if !s.manualInfo.isEmpty {
                r.step(id) { m, t in try m.setInfo(session: id, values: s.manualInfo.values, now: t) }
            }
            if s.audioActive { r.step(id) { m, t in try m.activateAudio(session: id, now: t) } }
        }
        // The host's active session last, the Now Playing one last of all, so it is the one
        // the host prefers (and, as no other app exists yet, Now Playing again).
        var promote = restored.filter { $0.isActive && $0.id != nowPlaying }.map(\.id)
        if let np = nowPlaying, restored.contains(where: { $0.id == np }) { promote.append(np) }
        for id in promote {
            r.step(id) { m, t in try m.becomeActiveIfPossible(id, now: t) }
        }
        model = r.model
        return ModelResult(value: r.failures, events: r.events, actions: r.actions)
    }
}

/// Replays operations on a model, collecting their events and actions and the failures.
private struct Replay {
    var model: NowPlayingModel
    let now: MonotonicInstant
    var events: [ModelEvent] = []
    var actions: [HostAction] = []
    var failures: [HostSnapshot.RestoreFailure] = []

    init(model: NowPlayingModel, now: MonotonicInstant) {
        self.model = model
        self.now = now
    }

    @discardableResult
    mutating func step<T>(_ id: SessionID, _ body: (inout NowPlayingModel, MonotonicInstant) throws -> ModelResult<T>) -> Bool {
        do {
            let r = try body(&model, now)
            events += r.events
            actions += r.actions
            return true
        } catch {
            failures.append(.init(session: id, message: "\(error)"))
            return false
        }
    }

    /// Load, modes, the current item, the position; paused (or stopped) whatever it was.
    mutating func restoreClockPlayer(_ p: HostSnapshot.PlayerState, session id: SessionID, index i: Int) {
        guard step(id, { m, t in try m.load(session: id, player: i, items: p.items, now: t) }) else { return }
        if p.shuffleMode != .off { step(id) { m, t in try m.setShuffle(session: id, player: i, p.shuffleMode, now: t) } }
        // The order it was playing in, not the reshuffle's (what plays next stays the same).
        if p.shuffleMode != .off, let order = p.order {
            step(id) { m, t in try m.withPlayer(id, i, now: t) { tl, _, _ in try tl.restorePlayOrder(order, current: p.itemIndex) } }
        }
        // The play order may differ after a reshuffle; walk it to the item that was current.
        if let target = p.itemIndex, p.items.indices.contains(target) {
            for _ in 0..<p.items.count {
                guard let s = model.sessions[id], let pid = s.playerIDs.dropFirst(i).first,
                      let current = model.players[pid]?.timeline.currentIndex, current != target else { break }
                guard step(id, { m, t in try m.next(session: id, player: i, now: t) }) else { break }
            }
        }
        if p.repeatMode != .off { step(id) { m, t in try m.setRepeat(session: id, player: i, p.repeatMode, now: t) } }
        if p.defaultRate != 1 { step(id) { m, t in try m.setDefaultRate(session: id, player: i, rate: p.defaultRate, now: t) } }
        if p.volume != 1 || p.isMuted {
            step(id) { m, t in try m.setVolume(session: id, player: i, volume: p.volume, muted: p.isMuted, now: t) }
        }
        if p.isStopped && p.elapsed == 0 {
            step(id) { m, t in try m.stop(session: id, player: i, now: t) }
        } else if p.elapsed > 0, p.itemIndex != nil {
            step(id) { m, t in try m.seek(session: id, player: i, to: p.elapsed, now: t) }
        }
    }
}
