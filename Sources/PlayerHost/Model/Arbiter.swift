import HeapModule

/// The arbiter's rules as a value (SPEC §1, "Which session is Now Playing"), with indexes so an
/// update costs O(log n) whatever the number of sessions:
///
/// - **Each app's active session**: its preferred session while that is eligible, else its
///   first eligible session in creation order (a min-heap per app).
/// - **The Now Playing slot**: the app whose active session most recently started playback
///   takes it; a paused holder keeps it; when the holder drops out, the most recently active
///   (played or held the slot) candidate app takes it, ties to the older app (max-heaps).
/// - **The user's choices** (`[arbiter]`, `arbiter.pin`): a pinned session is its app's active
///   session and holds the slot whenever it is eligible, paused or not; an ignored session is
///   never active, so never Now Playing; among apps whose active sessions are playing, a higher
///   priority rank wins over a more recent start (a tie break among the playing only: a paused
///   holder still keeps the slot until some app starts playback after it).
///
/// The model tells it what changed (`updateSession`, `updateApp`, …) and asks `resolve()`;
/// nothing here knows players, audio or commands. Heaps are lazy: an entry that no longer
/// matches the current state is dropped when it reaches the top, and a heap is rebuilt when
/// stale entries outnumber live ones, so memory stays proportional to what is live.
public struct Arbiter: Sendable, Equatable {
    /// Equal when they decide the same: same sessions, same active sessions, same holder
    /// (the heaps are indexes over that).
    public static func == (a: Arbiter, b: Arbiter) -> Bool {
        a.sessions == b.sessions && a.holder == b.holder && a.pinned == b.pinned
            && a.appRecords.mapValues { [$0.active ?? ""] } == b.appRecords.mapValues { [$0.active ?? ""] }
            && a.appRecords.mapValues(\.standing) == b.appRecords.mapValues(\.standing)
    }

    /// What the arbiter needs to know of a session.
    public struct Standing: Sendable, Hashable {
        public var app: AppID
        /// Creation order (unique, increasing).
        public var order: UInt64
        public var eligible: Bool
        public var playing: Bool
        /// `[arbiter] ignore` names it: never its app's active session, so never Now Playing.
        public var ignored: Bool
        /// `[arbiter] priority` rank: higher wins among playing apps; 0 when not listed.
        public var rank: UInt64

        public init(app: AppID, order: UInt64, eligible: Bool, playing: Bool, ignored: Bool = false, rank: UInt64 = 0) {
            self.app = app
            self.order = order
            self.eligible = eligible
            self.playing = playing
            self.ignored = ignored
            self.rank = rank
        }

        /// Whether it can be its app's active session: eligible and not ignored.
        public var isCandidate: Bool { eligible && !ignored }
    }

    /// What the arbiter needs to know of an app.
    public struct AppStanding: Sendable, Hashable {
        /// Registration order (unique, increasing): the older app wins a tie.
        public var order: UInt64
        public var preferred: SessionID?
        /// Logical time it last started playback.
        public var lastPlaybackStart: UInt64?
        /// Logical time it last took the slot.
        public var lastHeldSlot: UInt64?

        public init(order: UInt64, preferred: SessionID? = nil, lastPlaybackStart: UInt64? = nil, lastHeldSlot: UInt64? = nil) {
            self.order = order
            self.preferred = preferred
            self.lastPlaybackStart = lastPlaybackStart
            self.lastHeldSlot = lastHeldSlot
        }

        var recency: UInt64 { max(lastPlaybackStart ?? 0, lastHeldSlot ?? 0) }
    }

    /// How the slot came to change in `resolve()`.
    public enum SlotMove: Sendable, Hashable {
        /// An app's active session started playback more recently than the holder's.
        case tookOver
        /// The holder dropped out (or there was none) and the most recent candidate took it.
        case filled
        /// The holder app kept the slot, with (perhaps) another active session.
        case kept
        /// The pinned session's app took the slot (the pin was set, or the session became eligible).
        case pinned
    }

    /// An app's active session changed from `from` to `to`.
    public struct ActiveChange: Sendable, Hashable {
        public var app: AppID
        public var from: SessionID?
        public var to: SessionID?
    }

    /// A `resolve()` answer: which apps' active session changed, and the slot.
    public struct Resolution: Sendable, Hashable {
        public var activeChanges: [ActiveChange] = []
        /// The app that took the slot this time (to stamp its `lastHeldSlot`), if the holder changed.
        public var newHolder: AppID?
        public var move: SlotMove = .kept
    }

    /// What a slot heap orders an app by: `rank` first (0 in the heaps that ignore priority),
    /// then `key` (a logical time).
    struct RankKey: Comparable, Sendable, Hashable {
        var rank: UInt64 = 0
        var key: UInt64
        static func < (a: RankKey, b: RankKey) -> Bool { (a.rank, a.key) < (b.rank, b.key) }
    }

    struct Ranked: Comparable, Sendable, Hashable {
        var key: RankKey
        /// `UInt64.max - order`, so that among equal keys the older app ranks higher.
        var seniority: UInt64
        var app: AppID

        static func < (a: Ranked, b: Ranked) -> Bool { (a.key, a.seniority) < (b.key, b.seniority) }
    }

    struct Queued: Comparable, Sendable, Hashable {
        var order: UInt64
        var session: SessionID
        static func < (a: Queued, b: Queued) -> Bool { a.order < b.order }
    }

    struct AppRecord: Sendable {
        var standing: AppStanding
        var active: SessionID?
        /// Eligible sessions by creation order (lazy: stale entries pop at the top).
        var eligible = Heap<Queued>()
        var queued: Set<SessionID> = []
        /// The keys last pushed to the two slot heaps (nil: nothing pushed or popped since).
        var pushedStart: RankKey?
        var pushedRanked: RankKey?
        var pushedRecency: RankKey?
    }

    public private(set) var sessions: [SessionID: Standing] = [:]
    private var appRecords: [AppID: AppRecord] = [:]
    private var dirtyApps: Set<AppID> = []
    /// Apps whose active session is playing, by `lastPlaybackStart` (max first).
    private var playingStarts = Heap<Ranked>()
    /// Apps whose active session is playing, by priority rank then `lastPlaybackStart`.
    private var playingRanked = Heap<Ranked>()
    /// Apps with an active session, by recency (max first).
    private var recency = Heap<Ranked>()
    /// The app holding the Now Playing slot.
    public private(set) var holder: AppID?
    /// The pinned session (the model resolves the pinned name to the session it names now).
    public private(set) var pinned: SessionID?

    public init() {}

    // MARK: Reading

    /// The app's active session.
    public func active(of app: AppID) -> SessionID? { appRecords[app]?.active }

    /// Whether the session is its app's active session.
    public func isActive(_ session: SessionID) -> Bool {
        guard let s = sessions[session] else { return false }
        return appRecords[s.app]?.active == session
    }

    /// The Now Playing session: the holder app's active session.
    public var nowPlaying: SessionID? { holder.flatMap { appRecords[$0]?.active } }

    public func standing(of app: AppID) -> AppStanding? { appRecords[app]?.standing }

    /// Entries in each heap, live or stale (tests prove they stay bounded).
    var heapSizes: [Int] { [playingStarts.count, playingRanked.count, recency.count] + appRecords.values.map(\.eligible.count) }

    // MARK: Updates

    /// A session was created or its standing changed.
    public mutating func updateSession(_ id: SessionID, _ new: Standing) {
        let old = sessions[id]
        guard old != new else { return }
        sessions[id] = new
        if let old, old.app != new.app {
            appRecords[old.app]?.queued.remove(id)
            dirtyApps.insert(old.app)
        }
        if new.isCandidate, appRecords[new.app] != nil, appRecords[new.app]?.queued.contains(id) == false {
            appRecords[new.app]?.queued.insert(id)
            appRecords[new.app]?.eligible.insert(Queued(order: new.order, session: id))
        } else if !new.isCandidate {
            appRecords[new.app]?.queued.remove(id)
            compactQueue(new.app)
        }
        dirtyApps.insert(new.app)
    }

    /// A session went away.
    public mutating func removeSession(_ id: SessionID) {
        guard let old = sessions.removeValue(forKey: id) else { return }
        appRecords[old.app]?.queued.remove(id)
        compactQueue(old.app)
        dirtyApps.insert(old.app)
    }

    /// An app appeared or its standing (preference, recency) changed.
    public mutating func updateApp(_ id: AppID, _ standing: AppStanding) {
        if appRecords[id] == nil {
            appRecords[id] = AppRecord(standing: standing)
        } else if appRecords[id]?.standing != standing {
            appRecords[id]?.standing = standing
        } else {
            return
        }
        dirtyApps.insert(id)
    }

    /// An app went away (its sessions were removed or moved first).
    public mutating func removeApp(_ id: AppID) {
        appRecords[id] = nil
        dirtyApps.remove(id)
        if holder == id { holder = nil }
    }

    /// Pins `session` (nil: unpins): while it is a candidate it is its app's active session and
    /// its app holds the slot.
    public mutating func setPinned(_ session: SessionID?) {
        guard session != pinned else { return }
        for id in [pinned, session].compactMap({ $0 }) {
            if let app = sessions[id]?.app { dirtyApps.insert(app) }
        }
        pinned = session
    }

    /// The model moved the slot to another app by rule of its own (a background session's
    /// host inherits its app's standing).
    public mutating func setHolder(_ app: AppID?) { holder = app }

    // MARK: Resolving

    /// Recomputes the active session of every app touched since the last call, then the slot.
    public mutating func resolve() -> Resolution {
        var r = Resolution()
        for app in dirtyApps.sorted(by: { (appRecords[$0]?.standing.order ?? 0) < (appRecords[$1]?.standing.order ?? 0) }) {
            guard var rec = appRecords[app] else { continue }
            let old = rec.active
            rec.active = firstActive(app, &rec)
            if rec.active != old { r.activeChanges.append(ActiveChange(app: app, from: old, to: rec.active)) }
            appRecords[app] = rec
            pushRanks(app)
        }
        dirtyApps = []
        resolveSlot(&r)
        return r
    }

    /// The pinned session while a candidate, else preferred while a candidate, else the first
    /// candidate by creation order.
    private func firstActive(_ app: AppID, _ rec: inout AppRecord) -> SessionID? {
        if let p = pinned, let s = sessions[p], s.app == app, s.isCandidate { return p }
        if let p = rec.standing.preferred, let s = sessions[p], s.app == app, s.isCandidate { return p }
        while let top = rec.eligible.min {
            if let s = sessions[top.session], s.app == app, s.isCandidate, s.order == top.order { return top.session }
            _ = rec.eligible.popMin()
            rec.queued.remove(top.session)
        }
        return nil
    }

    private func startKey(_ app: AppID) -> RankKey? {
        guard let rec = appRecords[app], let a = rec.active, sessions[a]?.playing == true,
              let start = rec.standing.lastPlaybackStart else { return nil }
        return RankKey(key: start)
    }

    private func rankedKey(_ app: AppID) -> RankKey? {
        guard let start = startKey(app), let rec = appRecords[app], let a = rec.active, let s = sessions[a] else { return nil }
        return RankKey(rank: s.rank, key: start.key)
    }

    private func recencyKey(_ app: AppID) -> RankKey? {
        guard let rec = appRecords[app], rec.active != nil else { return nil }
        return RankKey(key: rec.standing.recency)
    }

    private mutating func pushRanks(_ app: AppID) {
        guard let rec = appRecords[app] else { return }
        let seniority = UInt64.max - rec.standing.order
        if let k = startKey(app), rec.pushedStart != k {
            playingStarts.insert(Ranked(key: k, seniority: seniority, app: app))
            appRecords[app]?.pushedStart = k
        }
        if let k = rankedKey(app), rec.pushedRanked != k {
            playingRanked.insert(Ranked(key: k, seniority: seniority, app: app))
            appRecords[app]?.pushedRanked = k
        }
        if let k = recencyKey(app), rec.pushedRecency != k {
            recency.insert(Ranked(key: k, seniority: seniority, app: app))
            appRecords[app]?.pushedRecency = k
        }
        compact()
    }

    /// The top live entry of a slot heap, dropping stale ones on the way.
    private mutating func top(_ heap: WritableKeyPath<Arbiter, Heap<Ranked>>,
                              _ key: (Arbiter, AppID) -> RankKey?,
                              _ pushed: WritableKeyPath<AppRecord, RankKey?>) -> Ranked? {
        while let t = self[keyPath: heap].max {
            if key(self, t.app) == t.key { return t }
            _ = self[keyPath: heap].popMax()
            if appRecords[t.app]?[keyPath: pushed] == t.key { appRecords[t.app]?[keyPath: pushed] = nil }
        }
        return nil
    }

    private mutating func resolveSlot(_ r: inout Resolution) {
        var h = holder.flatMap { appRecords[$0]?.active != nil ? $0 : nil }
        let holderStart = h.flatMap { appRecords[$0]?.standing.lastPlaybackStart }
        // A playing holder is compared by rank then start; a paused one loses only to a start after its own.
        let holderRanked = h.flatMap { rankedKey($0) }
        let newest = top(\.playingStarts, { $0.startKey($1) }, \.pushedStart)
        let best = top(\.playingRanked, { $0.rankedKey($1) }, \.pushedRanked)
        var move = SlotMove.kept
        if let p = pinned, let s = sessions[p], s.isCandidate, appRecords[s.app]?.active == p {
            if h != s.app { move = .pinned }
            h = s.app
        } else if let best, best.app != h,
                  holderRanked.map({ best.key > $0 })
                    ?? holderStart.map({ start in newest.map { $0.key.key > start } ?? false }) ?? true {
            h = best.app
            move = .tookOver
        } else if h == nil, let best = top(\.recency, { $0.recencyKey($1) }, \.pushedRecency) {
            h = best.app
            move = .filled
        }
        if let new = h, new != holder { r.newHolder = new }
        r.move = move
        holder = h
    }

    /// Records that `app` took the slot at `stamp` (its recency), without re-resolving.
    public mutating func heldSlot(_ app: AppID, at stamp: UInt64) {
        guard appRecords[app] != nil else { return }
        appRecords[app]?.standing.lastHeldSlot = stamp
        pushRanks(app)
    }

    /// Rebuilds a slot heap when stale entries outnumber live apps.
    private mutating func compact() {
        let live = appRecords.count
        if playingStarts.count > 2 * live + 32 {
            let keep = playingStarts.unordered.filter { startKey($0.app) == $0.key }
            playingStarts = Heap(keep)
            for app in appRecords.keys { appRecords[app]?.pushedStart = nil }
            for e in keep { appRecords[e.app]?.pushedStart = e.key }
        }
        if playingRanked.count > 2 * live + 32 {
            let keep = playingRanked.unordered.filter { rankedKey($0.app) == $0.key }
            playingRanked = Heap(keep)
            for app in appRecords.keys { appRecords[app]?.pushedRanked = nil }
            for e in keep { appRecords[e.app]?.pushedRanked = e.key }
        }
        if recency.count > 2 * live + 32 {
            let keep = recency.unordered.filter { recencyKey($0.app) == $0.key }
            recency = Heap(keep)
            for app in appRecords.keys { appRecords[app]?.pushedRecency = nil }
            for e in keep { appRecords[e.app]?.pushedRecency = e.key }
        }
    }

    /// Rebuilds an app's queue of eligible sessions when stale entries outnumber live ones.
    private mutating func compactQueue(_ app: AppID) {
        guard let rec = appRecords[app], rec.eligible.count > 2 * rec.queued.count + 32 else { return }
        let live = rec.queued.compactMap { id in sessions[id].map { Queued(order: $0.order, session: id) } }
        appRecords[app]?.eligible = Heap(live)
    }
}
