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

    public internal(set) var apps: [AppID: App]
    public internal(set) var sessions: [SessionID: Session] = [:]
    public internal(set) var players: [PlayerID: Player] = [:]
    /// The Now Playing session, if any.
    public internal(set) var nowPlayingSession: SessionID?
    /// The latest instant seen.
    public internal(set) var clock: MonotonicInstant = .zero

    var nowPlayingApp: AppID?
    /// Why the slot last changed hands (for `explain`).
    var lastSlotReason: NowPlayingChangeReason?
    var clientApps: [ClientID: AppID] = [:]
    var baselines: [SessionID: Baseline] = [:]
    var reportedDeadline: MonotonicInstant?
    var seq: UInt64 = 0
    var nextToken = 1
    var nextDispatchID: UInt64 = 1
    var rng: SplitMix64

    // Scratch of the running operation.
    var outbox: [ModelEvent] = []
    var actions: [HostAction] = []
    var closedHints: [SessionID: SessionCloseReason] = [:]
    var promotedHint: SessionID?

    /// A host with only its own app. `seed` makes shuffles replayable.
    public init(seed: UInt64 = 0x5EED) {
        rng = SplitMix64(seed: seed)
        apps = [:]
        apps[Self.hostApp] = App(id: Self.hostApp, name: "host", client: nil, order: 0)
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
    public var nextDeadline: MonotonicInstant? { pendingDeadlines().map(\.at).min() }

    /// Handles every deadline up to `now` (call it when the timer fires).
    public mutating func advance(to now: MonotonicInstant) -> ModelResult<Void> {
        perform(now) { _, _ in }
    }

    // MARK: Operation plumbing

    /// Runs `body` on a draft caught up to `now`, then diffs and returns what happened.
    mutating func perform<T>(_ now: MonotonicInstant?,
                             _ body: (inout NowPlayingModel, MonotonicInstant) throws -> T) rethrows -> ModelResult<T> {
        var draft = self
        let t = max(now ?? clock, clock)
        draft.clock = t
        draft.outbox = []
        draft.actions = []
        draft.settle(to: t)
        let value = try body(&draft, t)
        // A seek to an item's end while playing ends it now, not at the next timer.
        draft.settle(to: t)
        draft.reconcile()
        let result = ModelResult(value: value, events: draft.outbox, actions: draft.actions)
        draft.outbox = []
        draft.actions = []
        self = draft
        return result
    }

    mutating func emit(_ e: ModelEvent) { outbox.append(e) }

    mutating func tick() -> UInt64 {
        seq += 1
        return seq
    }

    enum DeadlineKind: Hashable {
        case itemEnd(PlayerID)
        case adBoundary(PlayerID, Double)
    }

    func pendingDeadlines() -> [(at: MonotonicInstant, kind: DeadlineKind)] {
        var out: [(at: MonotonicInstant, kind: DeadlineKind)] = []
        // An external engine moves on by itself and reports it: the host times nothing for it.
        for (id, p) in players where driver(ofPlayer: id) == .clock {
            if let d = p.timeline.itemEndDeadline { out.append((d, .itemEnd(id))) }
        }
        // Ad boundaries are key moments only where published info is computed from a player.
        for s in sessions.values where s.automaticallyPublishes && s.driver == .clock {
            guard let pid = s.playerIDs.first, let t = players[pid]?.timeline, t.rate > 0 else { continue }
            let ads = adSchedule(s, t)
            if let b = ads.nextBoundary(after: t.anchorElapsed, before: t.duration) {
                out.append((t.anchorTime.advanced(bySeconds: (b - t.anchorElapsed) / t.rate), .adBoundary(pid, b)))
            }
        }
        return out
    }

    /// Handles every deadline at or before `t`, in time order, each at its own instant.
    mutating func settle(to t: MonotonicInstant) {
        var sameInstant: [PlayerID: (MonotonicInstant, Int)] = [:]
        for _ in 0..<100_000 {
            guard let next = pendingDeadlines().min(by: { $0.at < $1.at }), next.at <= t else { return }
            switch next.kind {
            case .itemEnd(let pid):
                guard var p = players[pid] else { return }
                // Zero-length items under repeat would end forever at one instant: stop instead.
                let seen = sameInstant[pid].flatMap { $0.0 == next.at ? $0.1 : nil } ?? 0
                sameInstant[pid] = (next.at, seen + 1)
                if seen > p.timeline.order.count + 1 {
                    p.timeline.stop(at: next.at)
                } else {
                    _ = p.timeline.finishItem(at: next.at)
                }
                players[pid] = p
            case .adBoundary(let pid, let b):
                players[pid]?.timeline.reanchor(at: next.at, elapsed: b)
            }
            reconcile()
        }
    }
}
