import Logging
import PlayerHostBase
import PlayerHostLoop
import PlayerHostModel

/// The one path from model events to everything that consumes them (DESIGN "The publication
/// path"): every event the model produces goes to the sinks registered for its topic, once, in
/// order; the Now Playing value goes through the `NowPlayingGate` first (coalesced, deduplicated,
/// placeholder-guarded). Nothing else publishes.
///
/// Each published slot has a gate of its own: the global Now Playing slot (socket subscribers),
/// and each slot a `SlotSink` shows (the MPRIS export's session). A sink sees only what its
/// slot's gate let through, so no consumer shows a value a gate still holds back.
///
/// One timer (the scheduler's) closes the gates' windows (armed for the earliest); it is armed
/// only while a value waits, so an idle host has no timer and no wake-ups.
public final class Publisher: NowPlayingReading {
    let scheduler: Scheduler
    let logger: Logger
    /// The service whose model is published (weak: the service owns the publisher).
    weak var service: NowPlayingService?
    /// The JSON-RPC subscribers (a sink like any other; registered at init).
    public let subscribers: RPCSubscribers
    /// The gate: its counters are in `host.stats`.
    public private(set) var gate: NowPlayingGate

    private var sinks: [EventTopic: [EventSink]] = [:]
    /// The slots besides Now Playing, each with its gate, in registration order.
    private var slots: [GatedSlot] = []
    /// The window deadline the timer is armed for (the earliest of the gates'); nil: disarmed.
    private var armedWindow: MonotonicInstant?
    private var timer: HostTimer?
    /// Whether the gate's window timer is armed (a value waits): `host.stats.gateTimerArmed`.
    public var isWindowTimerArmed: Bool { timer?.isActive ?? false }
    /// Writes the subscribers' queued events on the next loop turn; armed only while some wait.
    private var flushTimer: HostTimer?
    private var isClosed = false
    /// Work that arrived while a publication was under way (a subscriber cut off mid-delivery
    /// disconnects, which publishes again): done after, in order.
    private var backlog: [Work] = []
    private var isPublishing = false

    /// A `SlotSink`'s slot and the gate that stands before it.
    private final class GatedSlot {
        let sink: SlotSink
        var gate: NowPlayingGate
        init(sink: SlotSink, gate: NowPlayingGate) {
            self.sink = sink
            self.gate = gate
        }
    }

    private enum Work {
        case events([ModelEvent])
        case windowClosed
        case event(PublishedEvent)
    }

    public init(scheduler: Scheduler, logger: Logger, configuration: NowPlayingGate.Configuration = .init(),
                maxSubscriptions: Int = RPCSubscribers.defaultMaxSubscriptions) {
        self.scheduler = scheduler
        self.logger = logger
        gate = NowPlayingGate(configuration)
        subscribers = RPCSubscribers(maxSubscriptions: maxSubscriptions)
        add(subscribers)
    }

    /// Replaces the gate's configuration (before anything is published: the host's config).
    public func configure(_ configuration: NowPlayingGate.Configuration) {
        gate = NowPlayingGate(configuration)
        for slot in slots { slot.gate = NowPlayingGate(configuration) }
        armedWindow = nil
        timer?.stop()
    }

    // MARK: - Sinks

    /// Registers a sink for `topics` (default: all). It receives each event once, in order.
    public func add(_ sink: EventSink, topics: Set<EventTopic> = Set(EventTopic.allCases)) {
        for t in topics where !(sinks[t]?.contains { $0 === sink } ?? false) { sinks[t, default: []].append(sink) }
    }

    /// Unregisters a sink from every topic.
    public func remove(_ sink: EventSink) {
        for t in sinks.keys { sinks[t]?.removeAll { $0 === sink } }
        slots.removeAll { $0.sink === sink as AnyObject }
    }

    /// Registers a slot of its own for `sink`, gated by a gate of its own (the Now Playing
    /// gate's configuration). A value it shows already is offered at once (a new gate is quiet:
    /// it goes out).
    public func addSlot(_ sink: SlotSink) {
        guard !slots.contains(where: { $0.sink === sink }) else { return }
        slots.append(GatedSlot(sink: sink, gate: NowPlayingGate(gate.configuration)))
        offerSlots()
    }

    /// Offers every slot's current value again (a sink changed what its slot shows: the MPRIS
    /// export's mode). Through the gate like any change.
    public func offerSlots() {
        guard !slots.isEmpty else { return }
        run(.events([]))
    }

    // MARK: - Publishing

    /// Publishes what one model operation produced.
    func publish(_ events: [ModelEvent]) {
        guard !events.isEmpty else { return }
        run(.events(events))
    }

    /// Publishes an event that is not a model event (an artwork resolution settling).
    func publish(_ event: PublishedEvent) {
        run(.event(event))
    }

    private func run(_ work: Work) {
        backlog.append(work)
        guard !isPublishing else { return }
        isPublishing = true
        defer { isPublishing = false }
        var i = 0
        while i < backlog.count {
            switch backlog[i] {
            case .events(let events): deliver(events)
            case .windowClosed: windowClosed()
            case .event(let e): dispatch(e)
            }
            i += 1
        }
        backlog.removeAll()
        if subscribers.hasUnflushed { scheduleFlush() }
    }

    /// Subscribers' bytes are written on the next loop turn, once, whatever number of events
    /// the requests read in this turn produced (redis writes its clients once per turn too).
    private func scheduleFlush() {
        guard !isClosed, !(flushTimer?.isActive ?? false) else { return }
        if flushTimer == nil { flushTimer = scheduler.makeTimer() }
        guard let flushTimer else { return subscribers.flush() }
        flushTimer.start(after: 0) { [weak self] in self?.subscribers.flush() }
    }

    private func deliver(_ events: [ModelEvent]) {
        guard let service else { return }
        let model = service.model
        for event in events {
            dispatch(PublishedEvent(.model(event), owner: Self.ownerClient(of: event, in: model)))
            if case .sessionClosed(let s, _) = event {
                gate.forget(session: s)
                for slot in slots { slot.gate.forget(session: s) }
            }
        }
        let now = service.now
        if Self.touchesNowPlaying(events, in: model) {
            let before = gate.counters.placeholdersBlocked
            let actions = gate.offer(Self.candidate(service.model), now: now)
            if gate.counters.placeholdersBlocked > before {
                logger.debug("nowPlaying: placeholder kept from replacing a real value of the playing item")
            }
            apply(actions)
        }
        // A slot's value may change with any event (its session's info, the session it shows,
        // a close): offered after every publication; an unchanged value is dropped by its gate.
        for slot in slots {
            guard let current = self.service else { break }
            let candidate = slot.sink.slotCandidate(in: current.model)
            // Empty before its first value is where the sink starts: sending that would open a
            // window and hold the slot's real first value (the Now Playing gate is offered only
            // once its slot is touched).
            if candidate == nil, case .none = slot.gate.published { continue }
            apply(slot.gate.offer(candidate, now: now), to: slot)
        }
        rearmWindow()
    }

    private func windowClosed() {
        guard let service else { return }
        // The timer was armed for the earliest window; a gate whose window ends later keeps it.
        let fired = armedWindow ?? service.now
        armedWindow = nil
        let at = max(service.now, fired)
        apply(gate.windowClosed(at: at))
        for slot in slots { apply(slot.gate.windowClosed(at: at), to: slot) }
        rearmWindow()
    }

    /// Carries out the Now Playing gate's sends (its timer requests are folded into `rearmWindow`).
    private func apply(_ actions: [NowPlayingGate.Action]) {
        for case .send(let value) in actions { dispatch(PublishedEvent(.nowPlaying(value))) }
    }

    /// Hands a slot's sink what its gate sent.
    private func apply(_ actions: [NowPlayingGate.Action], to slot: GatedSlot) {
        for case .send(let value) in actions { slot.sink.slotPublished(value) }
    }

    /// One timer for every gate: armed for the earliest window that holds a value, stopped
    /// when none does.
    private func rearmWindow() {
        let earliest = ([gate.deadline] + slots.map(\.gate.deadline)).compactMap { $0 }.min()
        guard earliest != armedWindow else { return }
        armedWindow = earliest
        if let earliest { arm(earliest) } else { timer?.stop() }
    }

    private func dispatch(_ event: PublishedEvent) {
        guard let targets = sinks[event.topic] else { return }
        for sink in targets { sink.receive(event) }
    }

    private func arm(_ deadline: MonotonicInstant) {
        guard !isClosed, let service else { return }
        if timer == nil { timer = scheduler.makeTimer() }
        let nowNS = service.now.nanoseconds
        let waitNS = deadline.nanoseconds > nowNS ? deadline.nanoseconds - nowNS : 0
        // Round up: firing a fraction early would find the window still open.
        timer?.start(after: (waitNS + 999_999) / 1_000_000) { [weak self] in self?.run(.windowClosed) }
    }

    /// Whether the window timer is armed (tests prove nothing waits when nothing is pending).
    public var isTimerArmed: Bool { timer?.isActive ?? false }
    /// Whether subscribers' events wait for the next loop turn's write.
    public var isFlushPending: Bool { flushTimer?.isActive ?? false }

    /// Stops the timer for good (shutdown).
    func close() {
        isClosed = true
        subscribers.flush()
        timer?.close()
        timer = nil
        flushTimer?.close()
        flushTimer = nil
    }

    // MARK: - Reading

    public func currentNowPlaying() -> NowPlayingSnapshot? {
        guard let service, let value = service.model.nowPlaying(at: service.now) else { return nil }
        return gate.guarded(value)
    }

    public var publishedNowPlaying: NowPlayingSnapshot? {
        if case .some(let v) = gate.published { return v }
        return nil
    }

    /// `nowPlaying.get`: the current guarded value, strings resolved for `language` if given.
    public func nowPlayingJSON(language: String? = nil) -> JSON {
        currentNowPlaying()?.toJSON(language: language) ?? .null
    }

    /// Whether events change what the Now Playing slot shows: it changed hands, or its session's
    /// published info changed.
    static func touchesNowPlaying(_ events: [ModelEvent], in model: NowPlayingModel) -> Bool {
        events.contains { event in
            switch event {
            case .nowPlayingChanged: return true
            case .infoChanged(let s, _): return s == model.nowPlayingSession
            default: return false
            }
        }
    }

    /// The value the slot would show after the last operation: the Now Playing session's
    /// published info, anchored (elapsed as of its timestamp).
    static func candidate(_ model: NowPlayingModel) -> NowPlayingSnapshot? {
        guard let id = model.nowPlayingSession, let s = model.sessions[id] else { return nil }
        let p = model.publishedInfo(s)
        return NowPlayingSnapshot(session: id, info: p.info, playbackState: p.playbackState, timestamp: p.timestamp,
                                  volume: p.volume)
    }

    /// The client owning the session an app-facing event is about (activeChanged,
    /// canBecomeActiveChanged, interruptions go to the app even unsubscribed).
    static func ownerClient(of event: ModelEvent, in model: NowPlayingModel) -> ClientID? {
        let session: SessionID
        switch event {
        case .activeChanged(let s, _), .canBecomeActiveChanged(let s, _),
             .interruptionBegan(let s, _), .interruptionEnded(let s, _):
            session = s
        default:
            return nil
        }
        guard let app = model.sessions[session]?.app else { return nil }
        return model.apps[app]?.client
    }
}
