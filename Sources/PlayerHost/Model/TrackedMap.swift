/// A dictionary that remembers which keys were written, so the model reconciles only what an
/// operation touched, and can undo an operation that failed by restoring those keys alone.
///
/// Every write goes through the subscript: nothing can change a value without it being
/// marked, which is what makes incremental reconciliation safe (a missed mark would be a
/// stale event). Reads cost what a `Dictionary` read costs.
public struct TrackedMap<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    public private(set) var storage: [Key: Value] = [:]
    /// Keys written since the last `takeDirty()`.
    private(set) var dirty: Set<Key> = []
    /// While recording: each written key's value before its first write (nil: absent).
    private var journal: [Key: Value?]?

    public init() {}

    public subscript(key: Key) -> Value? {
        get { storage[key] }
        set {
            mark(key)
            storage[key] = newValue
        }
        _modify {
            mark(key)
            yield &storage[key]
        }
    }

    private mutating func mark(_ key: Key) {
        dirty.insert(key)
        if journal != nil, journal?.index(forKey: key) == nil {
            journal?.updateValue(storage[key], forKey: key)
        }
    }

    public var count: Int { storage.count }
    public var isEmpty: Bool { storage.isEmpty }
    public var keys: Dictionary<Key, Value>.Keys { storage.keys }
    public var values: Dictionary<Key, Value>.Values { storage.values }

    /// The keys written since the last call, and forgets them.
    mutating func takeDirty() -> Set<Key> {
        defer { dirty = [] }
        return dirty
    }

    var hasDirty: Bool { !dirty.isEmpty }

    /// Starts remembering the old value of every key written from now on.
    mutating func beginRecording() { journal = [:] }

    /// Stops remembering; the writes stand.
    mutating func commit() { journal = nil }

    /// Puts back every key written since `beginRecording()` and forgets the writes.
    mutating func rollback() {
        guard let saved = journal else { return }
        journal = nil
        for (key, old) in saved {
            storage[key] = old
            dirty.remove(key)
        }
    }
}

extension TrackedMap: Equatable where Value: Equatable {
    /// Two maps are equal when they hold the same entries; what was written when is bookkeeping.
    public static func == (a: Self, b: Self) -> Bool { a.storage == b.storage }
}

extension TrackedMap: Sequence {
    public func makeIterator() -> Dictionary<Key, Value>.Iterator { storage.makeIterator() }
}
