import HeapModule

/// The pure, deterministic core of PlayerHost: apps, sessions, players, command centers, audio
/// sessions, publishing and the arbiter (SPEC §1). The RPC layer calls one operation per core
/// method; each returns a `ModelResult` with the events to publish and the actions to perform.
///
/// Rules that hold for every operation:
/// - Time is injected. Operations that depend on time take `now`; an instant earlier than one
///   already seen is treated as that one (the clock is monotonic). Nothing ticks: the host arms
///   one timer for `nextDeadline` and calls `advance(to:)` when it fires. Every operation first
///   catches up to `now` (item ends it has passed are handled at their exact instants).
/// - Operations are atomic: they run on a draft; a thrown `ModelError` leaves the model as it was.
/// - Per-session state is diffed against what was last published after each step, so events
///   describe exactly what changed, and an operation that changes nothing emits nothing.
public struct NowPlayingModel: Sendable, Equatable {
    /// The host's own app: owns sessions made by non-app connections and orphaned
    /// background-audio sessions.
    public static let hostApp: AppID = "host"

    public internal(set) var apps = TrackedMap<AppID, App>()
    public internal(set) var sessions = TrackedMap<SessionID, Session>()
    public internal(set) var players = TrackedMap<PlayerID, Player>()
    /// The Now Playing session, if any.
    public internal(set) var nowPlayingSession: SessionID?
    /// The latest instant seen.
    public internal(set) var clock: MonotonicInstant = .zero
    /// Each app's active session and the slot, kept incrementally.
    public internal(set) var arbiter = Arbiter()
    /// The pin, `[arbiter] priority` and `ignore` (`setArbiterPolicy`).
    public internal(set) var policy = ArbiterPolicy()

    var nowPlayingApp: AppID?
    /// Why the slot last changed hands (for `explain`).
    var lastSlotReason: NowPlayingChangeReason?
    var clientApps = TrackedMap<ClientID, AppID>()
    var baselines = TrackedMap<SessionID, Baseline>()
    var index = SessionIndex()
    var deadlines = DeadlineQueue()
    var reportedDeadline: MonotonicInstant?
    var seq: UInt64 = 0
    var nextToken = 1
    var nextDispatchID: UInt64 = 1
    var rng: SplitMix64
    /// What one client may claim (config keys; see `ModelLimits`).
    public var limits = ModelLimits()
    /// How many times a session was re-evaluated by `reconcile()` since the model was made:
    /// tests prove an operation on one session re-evaluates O(1) sessions, whatever the total.
    public internal(set) var reevaluations = Tally()
    /// Where the search for a free default session id starts, per kind (`createSession`).
    var defaultIDHints = DefaultIDHints()
    /// Default session ids tried since the model was made: tests prove a create tries O(1).
    public var defaultIDProbes: Int { defaultIDHints.probes }

    // Scratch of the running operation.
    var outbox: [ModelEvent] = []
    var actions: [HostAction] = []
    var closedHints: [SessionID: SessionCloseReason] = [:]
    var promotedHint: SessionID?

    /// A host with only its own app. `seed` makes shuffles replayable.
    public init(seed: UInt64 = 0x5EED) {
        rng = SplitMix64(seed: seed)
        apps[Self.hostApp] = App(id: Self.hostApp, name: "host", client: nil, order: 0)
        reconcile()
    }

    /// A count that is bookkeeping, not state: two models that differ only in it are equal.
    public struct Tally: Sendable, Equatable {
        public internal(set) var value = 0
        public static func == (_: Tally, _: Tally) -> Bool { true }
    }

    /// Per kind, what finding the first free default id (`main`, `main-2`, `main-3`…) needs to
    /// know so that creating the 10 000th `main` costs what the first did: `top`, below which
    /// every suffix is taken or in `freed` (the suffixes of closed sessions, lowest first; one
    /// taken again since is dropped when met). A cache, not state: it takes no part in equality
    /// (a failed operation that moved it changed nothing a reader sees).
    struct DefaultIDHints: Sendable, Equatable {
        struct Kind: Sendable {
            var top = 2
            var freed = Heap<Int>()
        }
        var kinds: [String: Kind] = [:]
        /// Ids tried since the model was made (tests count them: amortized O(1) per create).
        var probes = 0
        static func == (_: DefaultIDHints, _: DefaultIDHints) -> Bool { true }
    }

    /// What was last published for a session, to diff against.
    struct Baseline: Sendable, Hashable {
        var audio: AudioSession
        var commands: CommandCenter
        var players: [Player]
        var canBecomeActive: Bool
        var isActive: Bool
        var info: PublishedInfo
    }

    // MARK: Reading

    /// Sessions in creation order.
    public var orderedSessions: [Session] { sessions.values.sorted { $0.order < $1.order } }

    /// Apps in registration order (the host first).
    public var orderedApps: [App] { apps.values.sorted { $0.order < $1.order } }

    /// The app a connection acts as (nil: it never said `host.hello`).
    public func app(ofClient client: ClientID) -> AppID? { clientApps[client] }

    /// A session or `sessionNotFound`.
    public func session(_ id: SessionID) throws -> Session {
        guard let s = sessions[id] else { throw ModelError.sessionNotFound(id) }
        return s
    }

    /// The players of a session, in order.
    public func players(of session: Session) -> [Player] { session.playerIDs.compactMap { players[$0] } }

    /// The earliest instant a playing clock item ends (or, under automatic publishing, enters
    /// or leaves an ad); nil while no clock player plays (external players never have one).
    /// Arm one one-shot timer for it.
    public var nextDeadline: MonotonicInstant? { deadlines.earliest?.at }

    /// Handles every deadline up to `now` (call it when the timer fires).
    public mutating func advance(to now: MonotonicInstant) -> ModelResult<Void> {
        perform(now) { _, _ in }
    }

    // MARK: Operation plumbing

    /// The scalar state an operation may change, to put back if it fails.
    private struct Scalars {
        var nowPlayingSession: SessionID?
        var nowPlayingApp: AppID?
        var lastSlotReason: NowPlayingChangeReason?
        var seq: UInt64
        var nextToken: Int
        var nextDispatchID: UInt64
        var rng: SplitMix64
        var outbox: Int
        var actions: Int
        var closedHints: [SessionID: SessionCloseReason]
        var promotedHint: SessionID?
    }

    /// Catches up to `now`, runs `body` in place, then reconciles what it touched and returns
    /// what happened. If `body` throws, every entry it wrote is put back (the maps journal the
    /// old value of each key they write), so a failed operation changes nothing — at the cost
    /// of what it touched, never a copy of the model. Item ends passed on the way are kept:
    /// they happened whatever the operation did, and their events go out with the next result.
    mutating func perform<T>(_ now: MonotonicInstant?,
                             _ body: (inout NowPlayingModel, MonotonicInstant) throws -> T) rethrows -> ModelResult<T> {
        let t = max(now ?? clock, clock)
        let clockBefore = clock
        clock = t
        let settled = settle(to: t)
        let saved = Scalars(nowPlayingSession: nowPlayingSession, nowPlayingApp: nowPlayingApp, lastSlotReason: lastSlotReason,
                            seq: seq, nextToken: nextToken, nextDispatchID: nextDispatchID, rng: rng,
                            outbox: outbox.count, actions: actions.count, closedHints: closedHints, promotedHint: promotedHint)
        apps.beginRecording(); sessions.beginRecording(); players.beginRecording()
        clientApps.beginRecording(); baselines.beginRecording()
        var succeeded = false
        defer {
            if !succeeded {
                // Nothing happened on the way either: the model is exactly as it was.
                if !settled { clock = clockBefore }
                apps.rollback(); sessions.rollback(); players.rollback(); clientApps.rollback(); baselines.rollback()
                nowPlayingSession = saved.nowPlayingSession
                nowPlayingApp = saved.nowPlayingApp
                lastSlotReason = saved.lastSlotReason
                seq = saved.seq
                nextToken = saved.nextToken
                nextDispatchID = saved.nextDispatchID
                rng = saved.rng
                outbox.removeSubrange(saved.outbox...)
                actions.removeSubrange(saved.actions...)
                closedHints = saved.closedHints
                promotedHint = saved.promotedHint
            }
        }
        let value = try body(&self, t)
        succeeded = true
        apps.commit(); sessions.commit(); players.commit(); clientApps.commit(); baselines.commit()
        // A seek to an item's end while playing ends it now, not at the next timer.
        reconcile()
        settle(to: t)
        let result = ModelResult(value: value, events: outbox, actions: actions)
        outbox = []
        actions = []
        return result
    }

    mutating func emit(_ e: ModelEvent) { outbox.append(e) }

    mutating func tick() -> UInt64 {
        seq += 1
        return seq
    }

    /// A player's deadlines: its item end, and (player 0 of an automatically publishing
    /// session) its next ad boundary. An external engine moves on by itself and reports it:
    /// the host times nothing for it.
    func deadlineEntries(of pid: PlayerID) -> [DeadlineQueue.Entry] {
        guard let p = players[pid] else { return [] }
        let session = p.session.flatMap { sessions[$0] }
        guard session?.driver ?? .clock == .clock else { return [] }
        let t = p.timeline
        var out: [DeadlineQueue.Entry] = []
        if let d = t.itemEndDeadline { out.append(.init(at: d, player: pid, kind: .itemEnd)) }
        // Ad boundaries are key moments only where published info is computed from a player.
        if let s = session, s.automaticallyPublishes, s.playerIDs.first == pid, t.rate > 0 {
            let ads = adSchedule(s, t)
            if let b = ads.nextBoundary(after: t.anchorElapsed, before: t.duration) {
                out.append(.init(at: t.anchorTime.advanced(bySeconds: (b - t.anchorElapsed) / t.rate), player: pid, kind: .adBoundary(b)))
            }
        }
        return out
    }

    /// Handles every deadline at or before `t`, in time order, each at its own instant. A
    /// repeating item is not iterated one repetition at a time: whole periods are skipped from
    /// the clock, so a 1 µs item on repeat costs one step per call, not one per microsecond.
    @discardableResult
    package mutating func settle(to t: MonotonicInstant) -> Bool {
        var sameInstant: [PlayerID: (MonotonicInstant, Int)] = [:]
        var handled = false
        for _ in 0..<100_000 {
            guard let next = deadlines.earliest, next.at <= t else { return handled }
            handled = true
            let pid = next.player
            switch next.kind {
            case .itemEnd:
                guard var p = players[pid] else { deadlines.set([], for: pid); continue }
                // Zero-length items under repeat would end forever at one instant: stop instead.
                let seen = sameInstant[pid].flatMap { $0.0 == next.at ? $0.1 : nil } ?? 0
                sameInstant[pid] = (next.at, seen + 1)
                if seen > p.timeline.order.count + 1 {
                    p.timeline.stop(at: next.at)
                } else {
                    _ = p.timeline.finishItem(at: p.timeline.lastRepeat(endingAt: next.at, upTo: t))
                }
                players[pid] = p
            case .adBoundary(let b):
                players[pid]?.timeline.reanchor(at: next.at, elapsed: b)
            }
            reconcile()
        }
        return handled
    }
}
