import HeapModule

/// The instants the model must act at (item ends, ad boundaries), earliest first, so the host
/// arms one timer for `earliest` and the model finds the next one in O(log n) instead of
/// scanning every player.
///
/// Each player has at most one item end and one ad boundary; `set(_:for:)` replaces them. The
/// heap is lazy: a replaced entry stays until it reaches the top, where `prune()` drops it, and
/// the heap is rebuilt when stale entries outnumber live ones.
struct DeadlineQueue: Sendable, Equatable {
    static func == (a: DeadlineQueue, b: DeadlineQueue) -> Bool { a.current == b.current }

    enum Kind: Hashable, Sendable {
        case itemEnd
        /// Crossing into or out of an ad at this media time.
        case adBoundary(Double)

        var rank: Int {
            if case .itemEnd = self { return 0 }
            return 1
        }
    }

    struct Entry: Comparable, Hashable, Sendable {
        var at: MonotonicInstant
        var player: PlayerID
        var kind: Kind

        /// Time first; at one instant item ends before ad boundaries, then by player id, so the
        /// order never depends on hashing.
        static func < (a: Entry, b: Entry) -> Bool {
            if a.at != b.at { return a.at < b.at }
            if a.kind.rank != b.kind.rank { return a.kind.rank < b.kind.rank }
            return a.player < b.player
        }
    }

    private var current: [PlayerID: [Entry]] = [:]
    private var heap = Heap<Entry>()
    private var live = 0

    /// Replaces a player's deadlines (empty: it has none).
    mutating func set(_ entries: [Entry], for player: PlayerID) {
        let old = current[player] ?? []
        guard old != entries else { return }
        live += entries.count - old.count
        current[player] = entries.isEmpty ? nil : entries
        for e in entries where !old.contains(e) { heap.insert(e) }
        if heap.count > 2 * live + 64 {
            heap = Heap(current.values.flatMap { $0 })
        }
    }

    private func isLive(_ e: Entry) -> Bool { current[e.player]?.contains(e) == true }

    /// Drops stale entries at the top, so that `earliest` is live.
    mutating func prune() {
        while let top = heap.min, !isLive(top) { _ = heap.popMin() }
    }

    /// The earliest live deadline (after `prune()`; a stale top is skipped without mutating).
    var earliest: Entry? {
        if let top = heap.min, isLive(top) { return top }
        return heap.unordered.filter(isLive).min()
    }

    /// How many deadlines are live (tests).
    var count: Int { live }
}
