/// Decoding a `data:` URI's payload (RFC 2397) in the helper: the daemon passes the text and
/// never decodes it. Base64 (`;base64,`, the form players send covers in) and percent-encoded
/// payloads; the decoded bytes are bounded before any are produced.
enum DataURI {
    struct Malformed: Error { var message: String }

    /// The bytes `uri` carries, refused when malformed or when they would exceed `maxBytes`.
    static func decode(_ uri: String, maxBytes: Int) throws(Malformed) -> [UInt8] {
        let bytes = Array(uri.utf8)
        guard bytes.count >= 5, zip(bytes.prefix(4), "data".utf8).allSatisfy({ $0 | 0x20 == $1 }), bytes[4] == UInt8(ascii: ":") else {
            throw Malformed(message: "malformed data: URI: it does not start with data:")
        }
        guard let comma = bytes.firstIndex(of: UInt8(ascii: ",")) else {
            throw Malformed(message: "malformed data: URI: no comma before the payload")
        }
        let header = String(decoding: bytes[5..<comma], as: UTF8.self).lowercased()
        let payload = bytes[(comma + 1)...]
        if header.hasSuffix(";base64") {
            return try base64(payload, maxBytes: maxBytes)
        }
        return try percent(payload, maxBytes: maxBytes)
    }

    private static let table: [UInt8] = {
        var t = [UInt8](repeating: 0xFF, count: 256)
        for (i, c) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8.enumerated() { t[Int(c)] = UInt8(i) }
        t[Int(UInt8(ascii: "-"))] = 62  // base64url
        t[Int(UInt8(ascii: "_"))] = 63
        return t
    }()

    /// Standard or URL-safe base64; ASCII whitespace is skipped, `=` padding ends the data.
    static func base64(_ text: ArraySlice<UInt8>, maxBytes: Int) throws(Malformed) -> [UInt8] {
        // At most 3 bytes per 4 characters: checked before decoding anything.
        guard text.count / 4 <= maxBytes / 3 + 1 else {
            throw Malformed(message: "the data: URI's payload is larger than the \(maxBytes)-byte limit")
        }
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 4 * 3 + 3)
        var acc: UInt32 = 0
        var n = 0
        var padded = false
        for c in text {
            if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { continue }
            if c == UInt8(ascii: "=") { padded = true; continue }
            let v = table[Int(c)]
            guard v != 0xFF, !padded else {
                throw Malformed(message: "malformed data: URI: \(padded ? "data after the padding" : "a character outside base64 (\(c))")")
            }
            acc = acc << 6 | UInt32(v)
            n += 1
            if n == 4 {
                out.append(UInt8(truncatingIfNeeded: acc >> 16))
                out.append(UInt8(truncatingIfNeeded: acc >> 8))
                out.append(UInt8(truncatingIfNeeded: acc))
                acc = 0
                n = 0
            }
        }
        switch n {
        case 0: break
        case 2: out.append(UInt8(truncatingIfNeeded: acc >> 4))
        case 3:
            out.append(UInt8(truncatingIfNeeded: acc >> 10))
            out.append(UInt8(truncatingIfNeeded: acc >> 2))
        default: throw Malformed(message: "malformed data: URI: the base64 payload is truncated")
        }
        guard !out.isEmpty else { throw Malformed(message: "malformed data: URI: an empty payload") }
        guard out.count <= maxBytes else { throw Malformed(message: "the data: URI's payload is larger than the \(maxBytes)-byte limit") }
        return out
    }

    /// A percent-encoded payload (`%XX` escapes, everything else as it is).
    static func percent(_ text: ArraySlice<UInt8>, maxBytes: Int) throws(Malformed) -> [UInt8] {
        var out: [UInt8] = []
        var it = text[...]
        while let b = it.popFirst() {
            if b == UInt8(ascii: "%") {
                guard it.count >= 2, let v = UInt8(String(decoding: it.prefix(2), as: UTF8.self), radix: 16) else {
                    throw Malformed(message: "malformed data: URI: a bad % escape")
                }
                out.append(v)
                it = it.dropFirst(2)
            } else {
                out.append(b)
            }
            guard out.count <= maxBytes else { throw Malformed(message: "the data: URI's payload is larger than the \(maxBytes)-byte limit") }
        }
        guard !out.isEmpty else { throw Malformed(message: "malformed data: URI: an empty payload") }
        return out
    }
}
