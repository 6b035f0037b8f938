import Glibc
import PlayerHostBase

/// A request id as a reply echoes it: JSON-RPC 2.0 wants it back exactly as the client sent it.
///
/// Strings, integers (what the parser keeps as `.int`) and `null` write back the same from their
/// parsed value. Any other number — more digits than an `Int64` holds, a fraction, an exponent,
/// `-0` — would come back rewritten (`1.2345678901234568e+29` for a 30-digit id), so it keeps
/// its text as sent. Only such ids pay for the text: the common integer id carries none.
struct RequestID: Equatable {
    /// The parsed id: `.string`, `.int`, `.double` or `.null`.
    var value: JSON
    /// The number's text as sent, when writing `value` would not give it back.
    var text: [UInt8]?

    init(_ value: JSON, text: [UInt8]? = nil) {
        self.value = value
        self.text = text
    }

    /// The id of a reply to a request whose id could not be read.
    static let null = RequestID(.null)

    @inline(__always)
    func write(into out: inout [UInt8]) {
        if let text { out.append(contentsOf: text) } else { value.write(into: &out) }
    }

    /// Whether a parsed request's id is a number the writer would not give back as sent (so its
    /// text must be read from the line).
    static func needsText(_ request: JSON) -> Bool {
        if case .double? = request["id"] { return true }
        return false
    }

    /// The text of the `id` member of each request in `line` (one entry for a request object,
    /// one per element for a batch; nil where a request has no number id). The line is one the
    /// strict parser accepted; on anything unexpected the scan stops and returns what it has, so
    /// the caller falls back to the parsed value.
    static func texts(in line: UnsafeRawBufferPointer) -> [[UInt8]?] {
        guard let base = line.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return [] }
        var s = IDScan(p: base, end: line.count)
        s.skipWhitespace()
        switch s.peek {
        case UInt8(ascii: "{"):
            return s.objectIDText().map { [$0] } ?? []
        case UInt8(ascii: "["):
            var out: [[UInt8]?] = []
            s.i += 1
            s.skipWhitespace()
            if s.peek == UInt8(ascii: "]") { return out }
            while s.i < s.end {
                s.skipWhitespace()
                if s.peek == UInt8(ascii: "{") {
                    guard let t = s.objectIDText() else { return out }
                    out.append(t)
                } else {
                    guard s.skipValue() else { return out }
                    out.append(nil)
                }
                s.skipWhitespace()
                guard s.take(UInt8(ascii: ",")) else { break }
            }
            return out
        default:
            return []
        }
    }
}

/// A forward scan over a line the parser already accepted, looking only for `id` members.
private struct IDScan {
    let p: UnsafePointer<UInt8>
    let end: Int
    var i = 0

    var peek: UInt8 { i < end ? p[i] : 0 }

    mutating func take(_ byte: UInt8) -> Bool {
        guard i < end, p[i] == byte else { return false }
        i += 1
        return true
    }

    mutating func skipWhitespace() {
        while i < end, p[i] == 0x20 || p[i] == 0x09 || p[i] == 0x0A || p[i] == 0x0D { i += 1 }
    }

    /// Past a string (at its opening quote); the range of its bytes with the quotes.
    mutating func skipString() -> Range<Int>? {
        let start = i
        guard take(UInt8(ascii: "\"")) else { return nil }
        while i < end {
            switch p[i] {
            case UInt8(ascii: "\\"): i += 2
            case UInt8(ascii: "\""):
                i += 1
                return start..<i
            default: i += 1
            }
        }
        return nil
    }

    /// Past one value of any kind; false if the bytes end first.
    mutating func skipValue() -> Bool {
        switch peek {
        case UInt8(ascii: "\""):
            return skipString() != nil
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while i < end {
                switch p[i] {
                case UInt8(ascii: "\""):
                    guard skipString() != nil else { return false }
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 {
                        i += 1
                        return true
                    }
                default: break
                }
                i += 1
            }
            return false
        default:
            let start = i
            while i < end {
                switch p[i] {
                case UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D: return i > start
                default: i += 1
                }
            }
            return i > start
        }
    }

    /// Past an object (at its `{`): the text of its last `id` member (the parser's choice among
    /// duplicates) when that is a number, `.some(nil)` when it is not; nil if the bytes end first.
    mutating func objectIDText() -> [UInt8]?? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var text: [UInt8]? = nil
        skipWhitespace()
        if take(UInt8(ascii: "}")) { return .some(nil) }
        while i < end {
            skipWhitespace()
            guard let key = skipString() else { return nil }
            skipWhitespace()
            guard take(UInt8(ascii: ":")) else { return nil }
            skipWhitespace()
            let start = i
            let first = peek
            guard skipValue() else { return nil }
            if isID(key) {
                let isNumber = first == UInt8(ascii: "-") || (first >= UInt8(ascii: "0") && first <= UInt8(ascii: "9"))
                text = isNumber ? Array(UnsafeBufferPointer(start: p + start, count: i - start)) : nil
            }
            skipWhitespace()
            if take(UInt8(ascii: ",")) { continue }
            guard take(UInt8(ascii: "}")) else { return nil }
            return .some(text)
        }
        return nil
    }

    /// Whether a key (with its quotes) is `id`, escapes decoded as the parser decodes them.
    private func isID(_ key: Range<Int>) -> Bool {
        let raw = UnsafeRawBufferPointer(start: p + key.lowerBound, count: key.count)
        if key.count == 4 { return memcmp(p + key.lowerBound, "\"id\"", 4) == 0 }
        guard raw.contains(UInt8(ascii: "\\")) else { return false }
        return (try? JSONParser.parse(raw, maxDepth: 0)) == .string("id")
    }
}
