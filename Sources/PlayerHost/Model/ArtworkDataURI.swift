/// `data:` artwork sources (issue 22): players such as mpv-mpris 1.1 send an embedded cover as
/// `mpris:artUrl` = `data:image/jpeg;base64,…`. The daemon never decodes one (the helper does);
/// here only what the model needs without decoding: recognising such a source, and a short,
/// stable artwork id for it — `data:` and a content hash — so a cover of hundreds of kilobytes is
/// not its own id in every event, cache key and fault, and the same cover is cached once.
public enum ArtworkDataURI {
    /// Whether `uri` is a `data:` URI (the scheme is case-insensitive).
    public static func isDataURI(_ uri: String) -> Bool {
        let head = Array(uri.utf8.prefix(5))
        guard head.count == 5, head[4] == UInt8(ascii: ":") else { return false }
        return zip(head, "data".utf8).allSatisfy { $0 | 0x20 == $1 }
    }

    /// The artwork id standing for `id`: a `data:` URI (it has a comma before its payload) becomes
    /// `data:` + 32 hex digits of the SHA-256 of the URI; anything else, the short form included,
    /// is returned as it is (so normalising twice changes nothing).
    public static func normalisedID(_ id: String) -> String {
        guard isDataURI(id), id.utf8.contains(UInt8(ascii: ",")) else { return id }
        let digest = id.utf8.withContiguousStorageIfAvailable { sha256(UnsafeRawBufferPointer($0)) }
            ?? Array(id.utf8).withUnsafeBytes(sha256)
        return "data:" + digest.prefix(16).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// The largest `data:` URI the resolver hands to the helper when images may have `maxBytes`
    /// bytes: base64 carries 3 bytes in 4 characters, plus room for the header (`data:image/…;base64,`).
    public static func maxURIBytes(forImageBytes maxBytes: Int) -> Int {
        let groups = maxBytes / 3 + 1
        let (chars, overflow) = groups.multipliedReportingOverflow(by: 4)
        return overflow ? Int.max : chars.addingReportingOverflow(headerAllowance).partialValue
    }

    /// Room for the header of a `data:` URI beyond its base64 payload.
    public static let headerAllowance = 256

    // MARK: - SHA-256 (FIPS 180-4)

    /// A collision-resistant hash: a `data:` id is a content address, and two covers from two
    /// players must never share a cache entry by a crafted collision (FNV would allow one).
    static func sha256(_ data: UnsafeRawBufferPointer) -> [UInt8] {
        var h: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]
        var w = [UInt32](repeating: 0, count: 64)
        // The tail: the last bytes, 0x80, zeros, and the length in bits (big-endian), in one or two blocks.
        let full = data.count - data.count % 64
        var tail = Array(data[full...])
        tail.append(0x80)
        while tail.count % 64 != 56 { tail.append(0) }
        let bits = UInt64(data.count) &* 8
        for shift in stride(from: 56, through: 0, by: -8) { tail.append(UInt8(truncatingIfNeeded: bits >> UInt64(shift))) }
        // Raw pointers throughout: this runs on the daemon's loop for every data: id, at ~10 ms a
        // MiB with checked array accesses.
        h.withUnsafeMutableBufferPointer { h in
            w.withUnsafeMutableBufferPointer { w in
                k.withUnsafeBufferPointer { k in
                    var offset = 0
                    while offset < full {
                        compress(h, w, k, data.baseAddress! + offset)
                        offset += 64
                    }
                    tail.withUnsafeBytes { t in
                        var o = 0
                        while o < t.count {
                            compress(h, w, k, t.baseAddress! + o)
                            o += 64
                        }
                    }
                }
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for v in h { for shift in stride(from: 24, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: v >> UInt32(shift))) } }
        return out
    }

    /// One 64-byte block into the state `h` (8 words); `w` is the 64-word schedule, `k` the constants.
    private static func compress(_ h: UnsafeMutableBufferPointer<UInt32>, _ w: UnsafeMutableBufferPointer<UInt32>,
                                 _ k: UnsafeBufferPointer<UInt32>, _ block: UnsafeRawPointer) {
        let b = block.assumingMemoryBound(to: UInt8.self)
        for i in 0..<16 {
            w[i] = UInt32(b[4 * i]) << 24 | UInt32(b[4 * i + 1]) << 16 | UInt32(b[4 * i + 2]) << 8 | UInt32(b[4 * i + 3])
        }
        for i in 16..<64 {
            let s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3)
            let s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10)
            w[i] = w[i - 16] &+ s0 &+ w[i - 7] &+ s1
        }
        var a = h[0], b1 = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7]
        for i in 0..<64 {
            let s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)
            let ch = (e & f) ^ (~e & g)
            let t1 = hh &+ s1 &+ ch &+ k[i] &+ w[i]
            let s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)
            let maj = (a & b1) ^ (a & c) ^ (b1 & c)
            let t2 = s0 &+ maj
            hh = g; g = f; f = e; e = d &+ t1
            d = c; c = b1; b1 = a; a = t1 &+ t2
        }
        h[0] = h[0] &+ a; h[1] = h[1] &+ b1; h[2] = h[2] &+ c; h[3] = h[3] &+ d
        h[4] = h[4] &+ e; h[5] = h[5] &+ f; h[6] = h[6] &+ g; h[7] = h[7] &+ hh
    }

    @inline(__always) private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 - n)) }

    private static let k: [UInt32] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    ]
}
