import PlayerHostModel
import PlayerHostRPC

/// The JSON-RPC `events.subscribe` subscribers, as one `EventSink`.
///
/// Connections are indexed by topic, so an event touches only its own subscribers (never a scan
/// of every connection), and every subscriber gets the same bytes: the event's notification line,
/// rendered once. The per-event work is a walk over one contiguous array per topic, and the
/// connections to write are an array too (a flag on the connection says it is in it), so a
/// fan-out costs one append and one write per subscriber and no hashing. A client that stops
/// reading is still cut off by its own output limit.
public final class RPCSubscribers: EventSink {
    /// The default most topics one client may hold (`*` counts as one).
    public static let defaultMaxSubscriptions = 16
    /// The topic names `events.subscribe` takes.
    public static let topicNames = EventTopic.allCases.map(\.rawValue) + ["*"]

    /// Most topics one client may hold (config `max_subscriptions_per_client`); over it
    /// `events.subscribe` fails with `limitExceeded` naming the key. A reload changes it for
    /// later subscribes (topics already held are kept).
    public var maxSubscriptions: Int
    /// Finds a connection by client id (owners get app-facing events unsubscribed).
    var connection: (ClientID) -> RPCConnection? = { _ in nil }
    /// Notifications queued to connections since start.
    public private(set) var deliveries = 0

    private var byTopic: [EventTopic: SubscriberRoster] = [:]
    /// The Now Playing value each connection was given on subscribing, until the next one is
    /// published: a value that waited in the gate and shows the same is not sent to it again.
    private var joined: [Int: NowPlayingSnapshot?] = [:]
    // `@exclusivity(unchecked)` below: touched per subscriber of every event; why it is safe in
    // `RPCConnection`'s comment.
    /// Connections with events queued but not yet written (`flush()` writes them); each has
    /// `isQueuedForFlush` set while it is here, so it is here once.
    @exclusivity(unchecked) private var unflushed: [RPCConnection] = []
    /// `flush()`'s batch, kept to reuse its storage.
    @exclusivity(unchecked) private var flushing: [RPCConnection] = []

    public init(maxSubscriptions: Int = defaultMaxSubscriptions) {
        self.maxSubscriptions = maxSubscriptions
    }

    /// Subscribers of a topic (tests, stats).
    public func count(_ topic: EventTopic) -> Int { byTopic[topic]?.count ?? 0 }

    /// Adds `names` to the connection's topics. Unknown names or going over the limit fail and
    /// change nothing. Returns the topics it did not have before (their current values are due).
    @discardableResult
    public func subscribe(_ rpc: RPCConnection, _ names: [String]) throws(RPCError) -> Set<EventTopic> {
        for t in names where !Self.topicNames.contains(t) {
            throw RPCError(.invalidArgument, "unknown topic '\(t)' (known: \(Self.topicNames.joined(separator: ", ")))",
                           data: ["topic": .string(t)])
        }
        let client = rpc.client
        let wanted = client.topics.union(names)
        guard wanted.count <= maxSubscriptions else {
            throw RPCError(.limitExceeded, "Limit exceeded: \(wanted.count) subscriptions for one client (max_subscriptions_per_client = \(maxSubscriptions))",
                           data: ["limit": "max_subscriptions_per_client", "value": .int(Int64(maxSubscriptions)),
                                  "actual": .int(Int64(wanted.count))])
        }
        let before = Self.effective(client.topics)
        client.topics = wanted
        let after = Self.effective(wanted)
        for t in after.subtracting(before) { byTopic[t, default: SubscriberRoster()].insert(rpc) }
        return after.subtracting(before)
    }

    /// Removes `names` from the connection's topics (all when nil).
    public func unsubscribe(_ rpc: RPCConnection, _ names: [String]?) {
        let client = rpc.client
        let before = Self.effective(client.topics)
        if let names { client.topics.subtract(names) } else { client.topics.removeAll() }
        for t in before.subtracting(Self.effective(client.topics)) { byTopic[t]?.remove(id: rpc.id) }
    }

    /// The connection went away: out of every index.
    public func remove(connectionID id: Int) {
        for t in byTopic.keys { byTopic[t]?.remove(id: id) }
        joined[id] = nil
    }

    /// Sends a new `nowPlaying` subscriber the value it starts from (the current one, so it is
    /// never stale), remembered until the next publication so it does not get it twice.
    public func start(_ rpc: RPCConnection, from value: NowPlayingSnapshot?) {
        rpc.sendEncoded(PublishedEvent(.nowPlaying(value)).notificationLine)
        joined[rpc.id] = .some(value)
    }

    public func receive(_ event: PublishedEvent) {
        let roster = byTopic[event.topic] ?? SubscriberRoster()
        // Subscribers that joined since the last value and were given one that shows the same.
        var given: Set<Int> = []
        if case .nowPlaying(let value) = event.payload, !joined.isEmpty {
            for (id, start) in joined where roster.contains(id) && NowPlayingGate.rendersSame(start, value) { given.insert(id) }
            joined.removeAll()
        }
        var owner: RPCConnection?
        if let o = event.owner, !roster.contains(Int(o)) { owner = connection(o) }
        let count = roster.count - given.count + (owner == nil ? 0 : 1)
        guard count > 0 else { return }
        let line = event.notificationLine
        // Queued now, written by `flush()`: a burst of events costs each subscriber one write.
        // (`members` is a copy of the roster: a subscriber cut off later leaves it, nothing more.)
        // Unmanaged: the roster holds each connection for the whole walk, so the loop need not
        // retain and release every one of a thousand subscribers (cold cache lines each).
        roster.members.withUnsafeBufferPointer { members in
            for i in members.indices {
                Unmanaged.passUnretained(members[i])._withUnsafeGuaranteedRef { rpc in
                    if given.isEmpty || !given.contains(rpc.id) { queue(line, rpc) }
                }
            }
        }
        if let owner { queue(line, owner) }
        deliveries += count
    }

    @inline(__always)
    private func queue(_ line: [UInt8], _ rpc: RPCConnection) {
        if rpc.queueEvent(line) { unflushed.append(rpc) }
    }

    /// Whether events wait to be written.
    public var hasUnflushed: Bool { !unflushed.isEmpty }

    /// Writes what `receive` queued (each connection's transport cuts off a client past its
    /// output limit, as for any write).
    public func flush() {
        // The batch moves aside first: a write that cuts a client off may publish (its sessions
        // go), and what that queues waits for the next flush.
        swap(&unflushed, &flushing)
        do {
            // A local copy (one reference, no element copied): even a flush re-entered from a
            // write could not change what this walk reads. Unmanaged, as in `receive`.
            let batch = flushing
            batch.withUnsafeBufferPointer { batch in
                for i in batch.indices {
                    Unmanaged.passUnretained(batch[i])._withUnsafeGuaranteedRef { $0.flushQueued() }
                }
            }
        }
        flushing.removeAll(keepingCapacity: true)
    }

    /// The topics a set of names stands for (`*`: all).
    static func effective(_ names: Set<String>) -> Set<EventTopic> {
        names.contains("*") ? Set(EventTopic.allCases) : Set(names.compactMap(EventTopic.init(rawValue:)))
    }
}
