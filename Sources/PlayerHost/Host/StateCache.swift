import PlayerHostModel

/// The state file kept up to date incrementally: each host session's captured state and its
/// rendered JSON bytes, re-captured only when an event said the session changed.
///
/// A write with n sessions of which k changed costs k captures and renders plus one pass
/// concatenating n cached byte strings (memcpy), instead of n captures and renders (at 10 000
/// host sessions the full pass took seconds in a debug build). `captures` counts the sessions
/// captured, so tests prove the incremental path without timing it.
///
/// Positions: a session is captured when it changes, so a playing clock session that plays on
/// without changes keeps, in the file, the position of its own last change; `recaptureAll`
/// (the orderly stop) reads every session again for exact positions.
struct StateCache {
    private struct Entry {
        var state: HostSnapshot.SessionState
        var bytes: [UInt8]
    }

    private var entries: [SessionID: Entry] = [:]
    /// Every session seen, host-owned or not, in creation order (the file's order, which a
    /// restore replays). Closed ones are dropped at the next render.
    private var order: [SessionID] = []
    private var dirty: Set<SessionID> = []
    private var closedSince = false
    private var needsFullScan = true
    private var configSessions: Set<SessionID> = []
    private var nowPlaying: SessionID?
    /// Whether the file's content differs from what the last `render` returned.
    private var changedSince = true

    /// Sessions captured (and rendered when changed) since the cache was made.
    private(set) var captures = 0

    /// Marks what `event` touched as needing a new capture.
    mutating func note(_ event: ModelEvent) {
        switch event {
        case .sessionCreated(let s):
            order.append(s)
            dirty.insert(s)
        case .sessionClosed(let s, _):
            dirty.remove(s)
            if entries.removeValue(forKey: s) != nil { changedSince = true }
            closedSince = true
        case .nowPlayingChanged(let from, let to, _):
            if let from { dirty.insert(from) }
            if let to { dirty.insert(to) }
        case .appRegistered, .appRemoved:
            break
        default:
            if let s = event.session { dirty.insert(s) }
        }
    }

    /// Forgets every capture: the next render reads every session again (the orderly stop, for
    /// exact positions of playing sessions).
    mutating func recaptureAll() { needsFullScan = true }

    /// Whether a render would capture anything.
    var hasWork: Bool { needsFullScan || !dirty.isEmpty || closedSince }

    /// The file's bytes for `model` at `now`, and whether they differ from the last render's.
    /// `plugins`: the file's `plugins` section, rendered (`StateFile.assemble`).
    mutating func render(_ model: NowPlayingModel, now: MonotonicInstant, configSessions: Set<SessionID>,
                         savedAt: Double, plugins: [UInt8]? = nil) -> (bytes: [UInt8], changed: Bool) {
        if configSessions != self.configSessions {
            // A reload changed which sessions came from the config: their origin changes.
            self.configSessions = configSessions
            needsFullScan = true
        }
        if needsFullScan {
            order = model.orderedSessions.map(\.id)
            dirty = Set(order)
            for id in entries.keys where model.sessions[id] == nil { entries[id] = nil; changedSince = true }
            needsFullScan = false
        }
        if closedSince {
            // A closed id made again sits in the list twice: its place is the last (its new creation).
            var seen = Set<SessionID>()
            var open: [SessionID] = []
            for id in order.reversed() where model.sessions[id] != nil && seen.insert(id).inserted { open.append(id) }
            order = open.reversed()
            closedSince = false
        }
        for id in dirty {
            guard let s = model.sessions[id], s.app == NowPlayingModel.hostApp else {
                if entries.removeValue(forKey: id) != nil { changedSince = true }
                continue
            }
            let state = HostSnapshot.capture(s, in: model, at: now, origin: configSessions.contains(id) ? .config : .client)
            captures += 1
            if entries[id]?.state == state { continue }
            entries[id] = Entry(state: state, bytes: StateFile.sessionJSON(state).serialized())
            changedSince = true
        }
        dirty.removeAll(keepingCapacity: true)
        let np = model.nowPlayingSession.flatMap { entries[$0] == nil ? nil : $0 }
        if np != nowPlaying {
            nowPlaying = np
            changedSince = true
        }
        let changed = changedSince
        changedSince = false
        let kept = self.entries
        return (StateFile.assemble(order.lazy.compactMap { kept[$0]?.bytes }, nowPlaying: np, savedAt: savedAt, plugins: plugins), changed)
    }
}
