/// The one gatekeeper between the model and everything that shows Now Playing (SPEC §1 "One
/// gatekeeper, coalesced"; the radio seed's lock screen flickered because three paths published,
/// too often, and "Loading stream..." overwrote the real title).
///
/// A pure value: no loop, no wire format, time passed in. The `Publisher` offers it every value
/// the Now Playing slot would show, and carries out what it returns:
///
/// - **Coalescing.** The first change after a quiet window goes out at once. Further changes
///   within `coalesce` of the last send wait; the last one wins and goes out when the window
///   closes (`arm` asks for a timer then). `coalesce` 0 sends every change.
/// - **Dedupe.** A value that renders the same as the one published sends nothing: same session,
///   state and info, and the same position as a function of time (a paused player re-anchored at
///   the same elapsed, or a playing one whose anchor moved along its own line, is no change).
/// - **Placeholder guard.** A placeholder (`""`, `Loading…`, …; trimmed, case-insensitive)
///   never replaces a real `title`, `artist` or `albumTitle` of the item the session is showing:
///   the value keeps the real one. An item that only has a placeholder so far shows it.
///
/// An item is known by its session plus what identifies media apart from its text: queue index,
/// `assetURL` and `duration`. Give a new item an `assetURL` (or load it as a new queue entry) and
/// its placeholder shows; within the same item it never does.
public struct NowPlayingGate: Sendable {
    /// What the gate does; from the config's `coalesce_ms` and `placeholders`.
    public struct Configuration: Sendable, Equatable {
        /// The coalescing window; 0 turns coalescing off.
        public var coalesceNanoseconds: UInt64
        /// Values that never replace a real title, artist or album title.
        public var placeholders: [String]

        public static let defaultCoalesceMilliseconds = 250
        public static let defaultPlaceholders = ["", "Loading…", "Loading...", "Connecting…", "Connecting..."]

        public init(coalesceMilliseconds: Int = defaultCoalesceMilliseconds, placeholders: [String] = defaultPlaceholders) {
            coalesceNanoseconds = UInt64(max(0, coalesceMilliseconds)) * 1_000_000
            self.placeholders = placeholders
        }
    }

    /// What the caller must do.
    public enum Action: Sendable, Equatable {
        /// Publish this Now Playing value (nil: the slot is empty) to every sink.
        case send(NowPlayingSnapshot?)
        /// Call `windowClosed(at:)` at this instant (one timer; re-arming replaces it).
        case arm(MonotonicInstant)
        /// Nothing is pending any more: stop the timer.
        case disarm
    }

    /// What the gate has done since it was made (`host.stats`).
    public struct Counters: Sendable, Equatable {
        /// Values offered (every change that touched the Now Playing value).
        public var offered = 0
        /// Values sent.
        public var sent = 0
        /// Values merged into a later one within a window, never sent.
        public var coalesced = 0
        /// Values that rendered the same as what was published.
        public var droppedIdentical = 0
        /// Placeholder fields kept from replacing a real value (per offered value and field).
        public var placeholdersBlocked = 0
    }

    /// The keys a placeholder is kept from replacing.
    public static let guardedKeys: [InfoKey] = [.title, .artist, .albumTitle]

    public let configuration: Configuration
    public private(set) var counters = Counters()
    /// The last value sent: `.none` before the first send, `.some(nil)` after an empty slot was sent.
    public private(set) var published: NowPlayingSnapshot?? = .none
    /// The value waiting for the window to close (`.some(nil)`: an empty slot is waiting).
    public private(set) var pending: NowPlayingSnapshot?? = .none
    /// When the window that delays `pending` closes; nil while nothing is pending.
    public private(set) var deadline: MonotonicInstant?
    private var lastSentAt: MonotonicInstant?
    private var memory: [SessionID: ItemMemory] = [:]
    private let placeholderSet: Set<String>

    /// The real guarded values of the item a session shows.
    private struct ItemMemory: Sendable {
        var item: ItemIdentity
        var real: [InfoKey: InfoValue]
    }

    public init(_ configuration: Configuration = Configuration()) {
        self.configuration = configuration
        placeholderSet = Set(configuration.placeholders.map(Self.normalized))
    }

    // MARK: - Offering

    /// Offers the value the Now Playing slot shows after a change (nil: the slot is empty).
    public mutating func offer(_ value: NowPlayingSnapshot?, now: MonotonicInstant) -> [Action] {
        counters.offered += 1
        var candidate = value
        if let v = value { candidate = remember(v) }
        var actions: [Action] = []
        // A late timer: the window ended before this offer; close it first.
        if let d = deadline, now >= d { actions += windowClosed(at: now) }
        let window = configuration.coalesceNanoseconds
        let quiet = pending == nil && (lastSentAt.map { now.nanoseconds >= $0.nanoseconds &+ window } ?? true)
        if quiet {
            if case .some(let p) = published, Self.rendersSame(p, candidate) {
                counters.droppedIdentical += 1
                return actions
            }
            return actions + [send(candidate, now: now)]
        }
        if case .some(let p) = published, Self.rendersSame(p, candidate) {
            // Back to what subscribers already have: the waiting change is moot.
            counters.droppedIdentical += 1
            if pending != nil {
                counters.coalesced += 1
                pending = .none
                deadline = nil
                actions.append(.disarm)
            }
            return actions
        }
        if pending != nil { counters.coalesced += 1 }
        pending = .some(candidate)
        if deadline == nil, let last = lastSentAt {
            let d = MonotonicInstant(nanoseconds: last.nanoseconds &+ window)
            deadline = d
            actions.append(.arm(d))
        }
        return actions
    }

    /// The window closed (the timer armed by `arm` fired): sends what waits, if anything.
    public mutating func windowClosed(at now: MonotonicInstant) -> [Action] {
        guard let d = deadline, now >= d else { return [] }
        deadline = nil
        guard case .some(let value) = pending else { return [.disarm] }
        pending = .none
        return [send(value, now: now)]
    }

    /// A closed session's memory goes (its id may be reused by a new session).
    public mutating func forget(session: SessionID) {
        memory[session] = nil
    }

    private mutating func send(_ value: NowPlayingSnapshot?, now: MonotonicInstant) -> Action {
        published = .some(value)
        lastSentAt = now
        counters.sent += 1
        return .send(value)
    }

    // MARK: - Placeholder guard

    /// `value` with every placeholder that would replace a real guarded value of the same item
    /// put back to the real one. Reading only: what `nowPlaying.get` shows.
    public func guarded(_ value: NowPlayingSnapshot) -> NowPlayingSnapshot {
        guard let m = memory[value.session], m.item == ItemIdentity(value.info) else { return value }
        var out = value
        for key in Self.guardedKeys {
            if let real = m.real[key], isPlaceholder(value.info[key]) { out.info[key] = real }
        }
        return out
    }

    /// Guards `value` and remembers its real values (a new item starts a new memory).
    private mutating func remember(_ value: NowPlayingSnapshot) -> NowPlayingSnapshot {
        let item = ItemIdentity(value.info)
        var m = memory[value.session].flatMap { $0.item == item ? $0 : nil } ?? ItemMemory(item: item, real: [:])
        var out = value
        for key in Self.guardedKeys {
            guard let v = value.info[key] else { continue }
            if isPlaceholder(v) {
                if let real = m.real[key] {
                    out.info[key] = real
                    counters.placeholdersBlocked += 1
                }
            } else {
                m.real[key] = v
            }
        }
        memory[value.session] = m
        return out
    }

    /// A text value every language of which is in the placeholder list.
    public func isPlaceholder(_ value: InfoValue?) -> Bool {
        guard case .text(let s)? = value else { return false }
        return s.values.values.allSatisfy { placeholderSet.contains(Self.normalized($0)) }
    }

    static func normalized(_ s: String) -> String {
        var scalars = Substring(s).unicodeScalars
        while let f = scalars.first, f.properties.isWhitespace { scalars.removeFirst() }
        while let l = scalars.last, l.properties.isWhitespace { scalars.removeLast() }
        return String(String.UnicodeScalarView(scalars)).lowercased()
    }

    // MARK: - Rendering the same

    /// Whether two values would show the same: same session, state, volume and info apart from
    /// `elapsed`, and the same position as a function of time (within a millisecond).
    public static func rendersSame(_ a: NowPlayingSnapshot?, _ b: NowPlayingSnapshot?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        guard a.session == b.session, a.playbackState == b.playbackState, a.volume == b.volume,
              a.info.removing([.elapsed]) == b.info.removing([.elapsed]) else { return false }
        let ea = a.info.elapsed, eb = b.info.elapsed
        guard let ea, let eb else { return ea == nil && eb == nil }
        let rate = a.info.rate ?? 0
        // Where a's line is at b's timestamp.
        let aAtB = ea + rate * (b.timestamp.seconds - a.timestamp.seconds)
        return abs(aAtB - eb) < 0.001
    }
}

/// What tells one item from another apart from its text (which a placeholder may stand in for).
struct ItemIdentity: Sendable, Hashable {
    var queueIndex: InfoValue?
    var assetURL: InfoValue?
    var duration: InfoValue?

    init(_ info: NowPlayingInfo) {
        queueIndex = info[.queueIndex]
        assetURL = info[.assetURL]
        duration = info[.duration]
    }
}
