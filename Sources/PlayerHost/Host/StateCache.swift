import PlayerHostModel
import OrderedCollections

/// The state file kept up to date incrementally: each host session's rendered JSON bytes and a
/// hash of the state they were rendered from, re-captured only when an event said the session
/// changed, and only when a write is due (`render`, at most once a second): a session created
/// and changed many times between two writes is captured and rendered once.
///
/// Memory (issue 7: ≤ 8 KiB per idle session in all): per session only its bytes, copied to an
/// array of exactly their size (a serializer's array grows by doubling), and one `Int` hash —
/// not the captured `SessionState`, which was kept only to see whether anything changed.
///
/// A write with n sessions of which k changed costs the loop k captures and renders, and hands
/// the file over as pieces (`StateFilePieces`: the n kept byte strings, shared, not copied);
/// joining them into the file happens on the writing thread. So the loop's share does not grow
/// with n (at 10 000 host sessions, joining 13 MB on the loop took ~100 ms in a debug build).
/// Closing sessions costs one O(n) compaction at the next render, however many were closed.
/// `captures` counts the sessions captured, so tests prove the incremental path without timing it.
///
/// Positions: a session is captured when it changes, so a playing clock session that plays on
/// without changes keeps, in the file, the position of its own last change; `recaptureAll`
/// (the orderly stop) reads every session again for exact positions.
struct StateCache {
    /// The hash of each host session's last capture (compared, so an event that changed nothing
    /// the file keeps renders nothing). Equal hashes of different states would keep a stale
    /// piece until the session's next change or the orderly stop's full scan; with 64-bit hashes
    /// that is not a practical risk.
    private var hashes: [SessionID: Int] = [:]
    /// Each host session's rendered bytes, in the file's order: creation order, which a
    /// restore replays (a closed id made again is last, where its new creation put it).
    private var pieces: OrderedDictionary<SessionID, [UInt8]> = [:]
    /// Sessions created since the last render, in creation order (they join `pieces` at the end).
    private var created: [SessionID] = []
    private var dirty: Set<SessionID> = []
    /// Sessions closed since the last render (dropped from `pieces` in one pass).
    private var closed: Set<SessionID> = []
    private var needsFullScan = true
    private var configSessions: Set<SessionID> = []
    private var nowPlaying: SessionID?
    private var pinned: String?
    /// Whether the file's content differs from what the last `render` returned.
    private var changedSince = true

    /// Sessions captured (and rendered when changed) since the cache was made.
    private(set) var captures = 0

    /// Marks what `event` touched as needing a new capture.
    mutating func note(_ event: ModelEvent) {
        switch event {
        case .sessionCreated(let s):
            created.append(s)
        case .sessionClosed(let s, _):
            dirty.remove(s)
            closed.insert(s)
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
    var hasWork: Bool { needsFullScan || !dirty.isEmpty || !created.isEmpty || !closed.isEmpty }

    /// The file for `model` at `now` as pieces, and whether it differs from the last render's.
    /// `plugins`: the file's `plugins` section, rendered.
    mutating func render(_ model: NowPlayingModel, now: MonotonicInstant, configSessions: Set<SessionID>,
                         savedAt: Double, plugins: [UInt8]? = nil) -> (pieces: StateFilePieces, changed: Bool) {
        if configSessions != self.configSessions {
            // A reload changed which sessions came from the config: their origin changes.
            self.configSessions = configSessions
            needsFullScan = true
        }
        if needsFullScan {
            fullScan(model, now: now)
        } else {
            if !closed.isEmpty {
                let gone = closed
                let before = pieces.count
                // A closed id made again since is in `created`: it comes back at the end below.
                pieces.removeAll { gone.contains($0.key) }
                for id in gone { hashes[id] = nil }
                if pieces.count != before { changedSince = true }
            }
            for id in created where pieces[id] == nil {
                capture(id, in: model, now: now)
                dirty.remove(id)
            }
            for id in dirty { capture(id, in: model, now: now) }
        }
        created.removeAll(keepingCapacity: true)
        closed.removeAll(keepingCapacity: true)
        dirty.removeAll(keepingCapacity: true)
        let np = model.nowPlayingSession.flatMap { pieces[$0] == nil ? nil : $0 }
        if np != nowPlaying {
            nowPlaying = np
            changedSince = true
        }
        if model.policy.pinned != pinned {
            pinned = model.policy.pinned
            changedSince = true
        }
        let changed = changedSince
        changedSince = false
        return (StateFilePieces(sessions: pieces, nowPlaying: np, savedAt: savedAt, plugins: plugins, pinned: pinned), changed)
    }

    /// Captures one session again; renders it when its state changed. A session that is gone,
    /// or not the host's, leaves the file.
    private mutating func capture(_ id: SessionID, in model: NowPlayingModel, now: MonotonicInstant) {
        guard let s = model.sessions[id], HostSnapshot.isKept(s) else {
            if pieces.removeValue(forKey: id) != nil { changedSince = true }
            hashes[id] = nil
            return
        }
        let state = HostSnapshot.capture(s, in: model, at: now, origin: configSessions.contains(id) ? .config : .client)
        captures += 1
        let hash = state.hashValue
        if hashes[id] == hash, pieces[id] != nil { return }
        hashes[id] = hash
        pieces[id] = Self.rendered(state)
        changedSince = true
    }

    /// `state`'s bytes in an array of exactly their size, kept for as long as the session lives.
    static func rendered(_ state: HostSnapshot.SessionState) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4096)
        StateFile.sessionJSON(state).write(into: &bytes)
        guard bytes.capacity > bytes.count else { return bytes }
        return [UInt8](unsafeUninitializedCapacity: bytes.count) { buffer, count in
            count = buffer.initialize(fromContentsOf: bytes)
        }
    }

    /// Every session captured again, the file's order rebuilt from the model's.
    private mutating func fullScan(_ model: NowPlayingModel, now: MonotonicInstant) {
        let old = pieces
        pieces = [:]
        pieces.reserveCapacity(model.sessions.count)
        var kept: [SessionID: Int] = [:]
        kept.reserveCapacity(model.sessions.count)
        for s in model.orderedSessions where HostSnapshot.isKept(s) {
            let state = HostSnapshot.capture(s, in: model, at: now, origin: configSessions.contains(s.id) ? .config : .client)
            captures += 1
            let hash = state.hashValue
            if hashes[s.id] == hash, let bytes = old[s.id] {
                pieces[s.id] = bytes
            } else {
                pieces[s.id] = Self.rendered(state)
                changedSince = true
            }
            kept[s.id] = hash
        }
        if pieces.keys != old.keys { changedSince = true }
        hashes = kept
        needsFullScan = false
    }
}
