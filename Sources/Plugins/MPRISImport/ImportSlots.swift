/// Who of the desktop's MPRIS players holds one of the importer's slots, and who waits (issue 21).
///
/// At most `capacity` players are imported at once (each is an app connection to the host); the
/// others wait, in arrival order, at most `waitingCapacity` of them. A waiting player that starts
/// playing takes the slot of the longest-silent imported one (imported and not playing, silent
/// since it last played or since it was imported, whichever is later); a slot that frees goes to
/// a waiting player, one that plays first. So forty silent players never keep out a real one.
///
/// Pure: names only, and a counter for "when" (the order of events is what matters, so no clock).
struct ImportSlots {
    let capacity: Int
    let waitingCapacity: Int
    /// Imported names → the tick they were last heard playing (or were imported).
    private(set) var imported: [String: UInt64] = [:]
    /// Waiting names → the tick they arrived, and whether they play.
    private(set) var waiting: [String: (since: UInt64, playing: Bool)] = [:]
    private var tick: UInt64 = 0

    init(capacity: Int, waitingCapacity: Int) {
        self.capacity = max(0, capacity)
        self.waitingCapacity = max(0, waitingCapacity)
    }

    enum Arrival: Equatable {
        /// Imported now: a slot was free.
        case imported
        /// On the waiting list (`dropped`: the longest-waiting silent name it pushed off the list).
        case waiting(dropped: String?)
        /// Neither: the waiting list is full of players that play.
        case refused
    }

    private mutating func now() -> UInt64 {
        tick &+= 1
        return tick
    }

    /// A name came: imported when a slot is free, else waiting.
    mutating func arrive(_ name: String) -> Arrival {
        guard imported[name] == nil, waiting[name] == nil else { return .refused }
        let t = now()
        if imported.count < capacity {
            imported[name] = t
            return .imported
        }
        var dropped: String?
        if waiting.count >= waitingCapacity {
            guard let oldest = waiting.filter({ !$0.value.playing }).min(by: { $0.value.since < $1.value.since })?.key else {
                return .refused
            }
            waiting[oldest] = nil
            dropped = oldest
        }
        waiting[name] = (t, false)
        return .waiting(dropped: dropped)
    }

    /// An imported player is playing, or just stopped: it is not silent before now.
    mutating func heard(_ name: String) {
        guard imported[name] != nil else { return }
        imported[name] = now()
    }

    /// A waiting player's status: when it plays, it takes the slot of the longest-silent imported
    /// player (`isPlaying` says who plays now). Returns that evicted name (now waiting, as just
    /// arrived), or nil when nothing moved (not playing, or every imported player plays).
    mutating func waitingStatus(_ name: String, playing: Bool, isPlaying: (String) -> Bool) -> String? {
        guard let entry = waiting[name] else { return nil }
        waiting[name] = (entry.since, playing)
        guard playing else { return nil }
        if imported.count < capacity {
            waiting[name] = nil
            imported[name] = now()
            return nil
        }
        guard let victim = imported.filter({ !isPlaying($0.key) }).min(by: { $0.value < $1.value })?.key else { return nil }
        imported[victim] = nil
        waiting[name] = nil
        imported[name] = now()
        waiting[victim] = (now(), false)
        return victim
    }

    /// A name went (imported or waiting). Returns the waiting name now imported into the freed
    /// slot, if any: one that plays first, else the one waiting longest.
    mutating func leave(_ name: String) -> String? {
        waiting[name] = nil
        guard imported.removeValue(forKey: name) != nil else { return nil }
        guard imported.count < capacity, let next = waiting.min(by: { a, b in
            a.value.playing != b.value.playing ? a.value.playing : a.value.since < b.value.since
        })?.key else { return nil }
        waiting[next] = nil
        imported[next] = now()
        return next
    }

    /// Every name gone (the bus went away).
    mutating func removeAll() {
        imported.removeAll()
        waiting.removeAll()
    }
}
