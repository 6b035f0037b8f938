/// The connections waiting to be made writable, handed out at most `perTurn` a loop turn, in the
/// order asked (issue 25: a change sent to 200 pages must not be one turn of 200 writes ahead of
/// a socket client's read). Pure: `WebServer` asks lws for each batch on the loop's next turn.
public struct WritableQueue<Connection: Hashable> {
    /// At most this many a turn.
    public let perTurn: Int
    private var order: [Connection] = []
    private var head = 0
    private var waiting: Set<Connection> = []

    public init(perTurn: Int) {
        self.perTurn = max(perTurn, 1)
    }

    /// Whether nothing waits.
    public var isEmpty: Bool { waiting.isEmpty }

    /// Asks for `c` (once: asking again before its batch changes nothing).
    public mutating func enqueue(_ c: Connection) {
        if waiting.insert(c).inserted { order.append(c) }
    }

    /// `c` is gone (destroyed): it is not handed out (a new connection that reuses its name and is
    /// asked for later is handed out once).
    public mutating func forget(_ c: Connection) {
        waiting.remove(c)
    }

    /// The next turn's batch: at most `perTurn`, oldest first.
    public mutating func nextBatch() -> [Connection] {
        var batch: [Connection] = []
        while batch.count < perTurn, head < order.count {
            let c = order[head]
            head += 1
            if waiting.remove(c) != nil { batch.append(c) }
        }
        if head == order.count {
            order.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 1024 {
            order.removeFirst(head)
            head = 0
        }
        return batch
    }

    /// Drops everything (the server closes).
    public mutating func removeAll() {
        order.removeAll()
        head = 0
        waiting.removeAll()
    }
}
