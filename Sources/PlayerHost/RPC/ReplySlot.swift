/// One reply (or one batch's replies) that may not be ready yet.
final class ReplySlot {
    private var single: [UInt8]?
    private var parts: [[UInt8]?]
    private var missing: Int
    /// Bytes filled in so far.
    private(set) var byteCount = 0
    /// Written out (without request order a slot is sent on its own, exactly once).
    var isSent = false

    init(parts: Int) {
        self.parts = Array(repeating: nil, count: parts)
        self.missing = parts
    }

    /// Fills batch member `i`; returns the bytes added.
    func fill(_ i: Int, _ bytes: [UInt8]) -> Int {
        guard parts[i] == nil else { return 0 }
        missing -= 1
        parts[i] = bytes
        byteCount += bytes.count
        return bytes.count
    }

    /// Sets the reply of a single request; returns the bytes added.
    func setSingle(_ bytes: [UInt8]) -> Int {
        guard single == nil else { return 0 }
        single = bytes
        byteCount += bytes.count
        return bytes.count
    }

    /// The bytes to send, once everything is known.
    func bytes() -> [UInt8]? {
        if parts.isEmpty { return single.map { $0 + [0x0A] } }
        guard missing == 0 else { return nil }
        var out: [UInt8] = [0x5B]
        for (i, p) in parts.enumerated() {
            if i > 0 { out.append(0x2C) }
            out.append(contentsOf: p ?? [])  // all filled: missing == 0
        }
        out.append(contentsOf: [0x5D, 0x0A])
        return out
    }
}
