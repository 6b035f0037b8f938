import PlayerHostRPC

/// The subscribers of one topic: a contiguous array an event walks (no hashing per subscriber),
/// and each connection's place in it, so joining and leaving cost O(1).
struct SubscriberRoster {
    /// The connections, in no particular order (leaving moves the last one into the gap).
    private(set) var members: [RPCConnection] = []
    /// Connection id → index in `members`.
    private var place: [Int: Int] = [:]

    var count: Int { members.count }
    var isEmpty: Bool { members.isEmpty }

    func contains(_ id: Int) -> Bool { place[id] != nil }

    /// Adds the connection (nothing if it is already in).
    mutating func insert(_ rpc: RPCConnection) {
        guard place[rpc.id] == nil else { return }
        place[rpc.id] = members.count
        members.append(rpc)
    }

    /// Takes the connection out (nothing if it is not in).
    mutating func remove(id: Int) {
        guard let i = place.removeValue(forKey: id) else { return }
        let last = members.count - 1
        if i != last {
            members[i] = members[last]
            place[members[i].id] = i
        }
        members.removeLast()
    }
}
