import Glibc
import PlayerHostBase

/// A fast path for the common request line, which skips building a `JSON` object (a hashed
/// dictionary) for the envelope.
///
/// It accepts only a small subset of JSON, and only where the strict parser would accept the same
/// line and produce exactly the same member values: one object whose keys are plain printable
/// ASCII strings (no escapes), each key at most once among id/jsonrpc/method/params, with values
/// that are plain printable-ASCII strings, integers of at most 18 digits (no `-0`), `true`,
/// `false`, `null`, `{}` or `[]`; JSON whitespace between tokens; a `method` member present (so it
/// is not a response). Anything else returns nil and the caller takes the general path, which then
/// reports errors exactly as before.
enum RequestScanner {
    static func scan(_ line: UnsafeRawBufferPointer, maxDepth: Int) -> RequestEnvelope? {
        // `{}`/`[]` inside the object is depth 2; below that the parser's depth errors apply.
        guard maxDepth >= 2, let base = line.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        var s = Cursor(p: base, end: line.count)
        var e = RequestEnvelope()
        s.skipWhitespace()
        guard s.take(UInt8(ascii: "{")) else { return nil }
        s.skipWhitespace()
        if s.peek == UInt8(ascii: "}") { return nil }  // `{}`: let the general path say why
        while true {
            guard let key = s.plainString() else { return nil }
            s.skipWhitespace()
            guard s.take(UInt8(ascii: ":")) else { return nil }
            s.skipWhitespace()
            guard let value = s.simpleValue() else { return nil }
            switch key.count {
            case 2 where key.equals("id"):
                if e.id != nil { return nil }
                e.id = value
            case 6 where key.equals("method"):
                if e.method != nil { return nil }
                e.method = value
            case 6 where key.equals("params"):
                if e.params != nil { return nil }
                e.params = value
            case 7 where key.equals("jsonrpc"):
                if e.version != nil { return nil }
                e.version = value
            default:
                break  // ignored by the dispatcher, as in the general path
            }
            s.skipWhitespace()
            if s.take(UInt8(ascii: ",")) {
                s.skipWhitespace()
                continue
            }
            guard s.take(UInt8(ascii: "}")) else { return nil }
            break
        }
        s.skipWhitespace()
        guard s.atEnd, e.method != nil else { return nil }
        return e
    }

    /// A key's bytes, still in the line.
    struct Bytes {
        let p: UnsafePointer<UInt8>
        let count: Int

        @inline(__always)
        func equals(_ literal: StaticString) -> Bool {
            literal.utf8CodeUnitCount == count && memcmp(p, literal.utf8Start, count) == 0
        }
    }

    struct Cursor {
        let p: UnsafePointer<UInt8>
        let end: Int
        var i = 0

        var atEnd: Bool { i == end }
        var peek: UInt8 { i < end ? p[i] : 0 }

        @inline(__always)
        mutating func take(_ byte: UInt8) -> Bool {
            guard i < end, p[i] == byte else { return false }
            i += 1
            return true
        }

        @inline(__always)
        mutating func skipWhitespace() {
            while i < end {
                switch p[i] {
                case 0x20, 0x09, 0x0A, 0x0D: i += 1
                default: return
                }
            }
        }

        /// `"…"` holding printable ASCII other than `"` and `\`; the bytes between the quotes.
        mutating func plainString() -> Bytes? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = i
            while i < end {
                let b = p[i]
                if b == UInt8(ascii: "\"") {
                    i += 1
                    return Bytes(p: p + start, count: i - 1 - start)
                }
                guard b >= 0x20, b < 0x7F, b != UInt8(ascii: "\\") else { return nil }
                i += 1
            }
            return nil
        }

        mutating func simpleValue() -> JSON? {
            guard i < end else { return nil }
            switch p[i] {
            case UInt8(ascii: "\""):
                guard let b = plainString() else { return nil }
                return .string(String(decoding: UnsafeBufferPointer(start: b.p, count: b.count), as: UTF8.self))
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return integer()
            case UInt8(ascii: "{"):
                guard i + 1 < end, p[i + 1] == UInt8(ascii: "}") else { return nil }
                i += 2
                return .object([:])
            case UInt8(ascii: "["):
                guard i + 1 < end, p[i + 1] == UInt8(ascii: "]") else { return nil }
                i += 2
                return .array([])
            case UInt8(ascii: "t"): return literal("true", .bool(true))
            case UInt8(ascii: "f"): return literal("false", .bool(false))
            case UInt8(ascii: "n"): return literal("null", .null)
            default: return nil
            }
        }

        private mutating func literal(_ text: StaticString, _ value: JSON) -> JSON? {
            let n = text.utf8CodeUnitCount
            guard end - i >= n, memcmp(p + i, text.utf8Start, n) == 0 else { return nil }
            i += n
            return value
        }

        /// `-?(0|[1-9][0-9]{0,17})` not followed by `.`, `e` or `E`: what the parser turns into
        /// `.int` with no possibility of overflow. `-0` (a double to the parser) is left to it.
        private mutating func integer() -> JSON? {
            var j = i
            let negative = p[j] == UInt8(ascii: "-")
            if negative { j += 1 }
            guard j < end else { return nil }
            let first = p[j]
            var magnitude: Int64
            if first == UInt8(ascii: "0") {
                if negative { return nil }
                magnitude = 0
                j += 1
            } else if first >= UInt8(ascii: "1") && first <= UInt8(ascii: "9") {
                magnitude = Int64(first - UInt8(ascii: "0"))
                j += 1
                var digits = 1
                while j < end, p[j] >= UInt8(ascii: "0"), p[j] <= UInt8(ascii: "9") {
                    digits += 1
                    if digits > 18 { return nil }
                    magnitude = magnitude * 10 + Int64(p[j] - UInt8(ascii: "0"))
                    j += 1
                }
            } else {
                return nil
            }
            if j < end {
                switch p[j] {
                case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    return nil  // a fraction, an exponent or a leading zero: the parser decides
                default: break
                }
            }
            i = j
            return .int(negative ? -magnitude : magnitude)
        }
    }
}
