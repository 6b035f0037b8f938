import PlayerHostBase

/// Exact powers of ten that a `Double` holds without rounding (5^22 < 2^53), for the fast path.
private let exactPowersOfTen: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
]

// ASCII bytes the grammar cares about, named once so the scanner reads like the RFC.
private let quote = UInt8(ascii: "\"")
private let backslash = UInt8(ascii: "\\")
private let zero = UInt8(ascii: "0")

/// The recursive-descent cursor behind `JSONParser`: one per `parse` call, over the caller's bytes.
///
/// Internal rather than private only because it lives in its own file; nothing but `JSONParser`
/// should create one.
struct JSONReader {
    private let base: UnsafePointer<UInt8>
    private let end: Int
    private let maxDepth: Int
    private var pos = 0
    private var depth = 0
    /// Reused for strings that contain escapes, so only the final `String` allocates.
    private var scratch: [UInt8] = []

    init(base: UnsafePointer<UInt8>, count: Int, maxDepth: Int) {
        self.base = base
        self.end = count
        self.maxDepth = maxDepth
    }

    mutating func parseDocument() throws(JSONParseError) -> JSON {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if pos != end {
            throw Self.fail("unexpected \(describe(pos)) after the JSON value", pos)
        }
        return value
    }

    // MARK: Structure

    private mutating func parseValue() throws(JSONParseError) -> JSON {
        guard pos < end else { throw Self.fail("unexpected end of input", pos) }
        switch base[pos] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case quote: return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), zero...UInt8(ascii: "9"): return try parseNumber()
        default: throw Self.fail("unexpected \(describe(pos)), expected a JSON value", pos)
        }
    }

    private mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        if depth > maxDepth {
            throw Self.fail("nesting deeper than \(maxDepth) levels", pos)
        }
        pos += 1
        skipWhitespace()
    }

    private mutating func parseArray() throws(JSONParseError) -> JSON {
        try enterContainer()
        defer { depth -= 1 }
        if pos < end && base[pos] == UInt8(ascii: "]") {
            pos += 1
            return .array([])
        }
        var elements: [JSON] = []
        while true {
            elements.append(try parseValue())
            skipWhitespace()
            guard pos < end else { throw Self.fail("unterminated array", pos) }
            let byte = base[pos]
            pos += 1
            if byte == UInt8(ascii: ",") {
                skipWhitespace()
            } else if byte == UInt8(ascii: "]") {
                return .array(elements)
            } else {
                throw Self.fail("expected ',' or ']' but found \(describe(pos - 1))", pos - 1)
            }
        }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSON {
        try enterContainer()
        defer { depth -= 1 }
        if pos < end && base[pos] == UInt8(ascii: "}") {
            pos += 1
            return .object([:])
        }
        // Room for a typical RPC envelope up front; the first inserts would otherwise resize and
        // rehash twice. Larger objects grow (and rehash) geometrically as usual.
        var members = [String: JSON](minimumCapacity: 4)
        while true {
            guard pos < end else { throw Self.fail("unterminated object", pos) }
            guard base[pos] == quote else {
                throw Self.fail("expected a string key but found \(describe(pos))", pos)
            }
            let key = try parseString()
            skipWhitespace()
            guard pos < end, base[pos] == UInt8(ascii: ":") else {
                throw Self.fail("expected ':' after object key", pos)
            }
            pos += 1
            skipWhitespace()
            members[key] = try parseValue()  // a repeated key overwrites: last one wins
            skipWhitespace()
            guard pos < end else { throw Self.fail("unterminated object", pos) }
            let byte = base[pos]
            pos += 1
            if byte == UInt8(ascii: ",") {
                skipWhitespace()
            } else if byte == UInt8(ascii: "}") {
                return .object(members)
            } else {
                throw Self.fail("expected ',' or '}' but found \(describe(pos - 1))", pos - 1)
            }
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        let expected = literal.utf8Start
        for k in 0..<count where pos + k >= end || base[pos + k] != expected[k] {
            throw Self.fail("invalid literal, expected '\(literal)'", pos + k)
        }
        pos += count
    }

    @inline(__always)
    private mutating func skipWhitespace() {
        while pos < end {
            switch base[pos] {
            case 0x20, 0x0A, 0x0D, 0x09: pos += 1
            default: return
            }
        }
    }

    // MARK: Strings

    /// Parses a string starting at its opening quote. Strings without escapes are validated in
    /// place and copied once; only strings with escapes go through `scratch`.
    private mutating func parseString() throws(JSONParseError) -> String {
        let open = pos
        pos += 1
        let start = pos
        try scanPlainRun(openedAt: open)
        if base[pos] == quote {
            let text = String(decoding: UnsafeBufferPointer(start: base + start, count: pos - start), as: UTF8.self)
            pos += 1
            return text
        }
        // Slow path: at a backslash. Decode escapes into scratch along with the plain runs.
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(start: base + start, count: pos - start))
        while true {
            try decodeEscape()
            let runStart = pos
            try scanPlainRun(openedAt: open)
            scratch.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: pos - runStart))
            if base[pos] == quote {
                pos += 1
                return String(decoding: scratch, as: UTF8.self)
            }
        }
    }

    /// Advances over string content that needs no decoding, validating it, and stops on the
    /// closing quote or a backslash (so `base[pos]` is one of those on return).
    @inline(__always)
    private mutating func scanPlainRun(openedAt open: Int) throws(JSONParseError) {
        var i = pos
        while true {
            // Eight bytes at a time while none is special; most keys and values are plain ASCII.
            while i + 8 <= end {
                let word = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                if Self.wordNeedsAttention(word) { break }
                i += 8
            }
            guard i < end else {
                throw Self.fail("unterminated string starting at byte \(open)", end)
            }
            let byte = base[i]
            if byte == quote || byte == backslash {
                pos = i
                return
            }
            if byte < 0x20 {
                throw Self.fail("unescaped control character \(Self.hex(byte)) in string", i)
            }
            i = byte < 0x80 ? i + 1 : try validateUTF8Sequence(at: i)
        }
    }

    /// True if any byte of `word` is non-ASCII, a control character, a quote or a backslash.
    /// Uses the classic has-zero-byte/has-less-than bit tricks; they are exact for "any byte".
    @inline(__always)
    private static func wordNeedsAttention(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* UInt64(quote))
        let backslashes = word ^ (ones &* UInt64(backslash))
        let nonASCII = word & high
        let control = (word &- ones &* 0x20) & ~word & high
        let hasQuote = (quotes &- ones) & ~quotes & high
        let hasBackslash = (backslashes &- ones) & ~backslashes & high
        return (nonASCII | control | hasQuote | hasBackslash) != 0
    }

    /// Checks the multi-byte UTF-8 sequence whose lead byte is at `i` against RFC 3629 (no
    /// overlong forms, no surrogates, nothing above U+10FFFF) and returns the index after it.
    private func validateUTF8Sequence(at i: Int) throws(JSONParseError) -> Int {
        let lead = base[i]
        // Allowed range for the first continuation byte, and the sequence length.
        let low: UInt8, high: UInt8, length: Int
        switch lead {
        case 0xC2...0xDF: (low, high, length) = (0x80, 0xBF, 2)
        case 0xE0: (low, high, length) = (0xA0, 0xBF, 3)
        case 0xE1...0xEC, 0xEE...0xEF: (low, high, length) = (0x80, 0xBF, 3)
        case 0xED: (low, high, length) = (0x80, 0x9F, 3)
        case 0xF0: (low, high, length) = (0x90, 0xBF, 4)
        case 0xF1...0xF3: (low, high, length) = (0x80, 0xBF, 4)
        case 0xF4: (low, high, length) = (0x80, 0x8F, 4)
        case 0x80...0xBF: throw Self.fail("invalid UTF-8: unexpected continuation byte \(Self.hex(lead))", i)
        case 0xC0, 0xC1: throw Self.fail("invalid UTF-8: overlong encoding (lead byte \(Self.hex(lead)))", i)
        default: throw Self.fail("invalid UTF-8: byte \(Self.hex(lead)) never appears in UTF-8", i)
        }
        for k in 1..<length {
            let j = i + k
            guard j < end else { throw Self.fail("invalid UTF-8: truncated sequence", j) }
            let byte = base[j]
            let (lo, hi) = k == 1 ? (low, high) : (0x80, 0xBF)
            guard byte >= lo && byte <= hi else {
                if k == 1 && byte >= 0x80 && byte <= 0xBF {
                    let what = lead == 0xED ? "encoded UTF-16 surrogate" : lead == 0xF4 ? "code point above U+10FFFF" : "overlong encoding"
                    throw Self.fail("invalid UTF-8: \(what)", i)
                }
                throw Self.fail("invalid UTF-8: truncated sequence", j)
            }
        }
        return i + length
    }

    /// Decodes the escape at `pos` (a backslash) into `scratch`.
    private mutating func decodeEscape() throws(JSONParseError) {
        let start = pos
        guard pos + 1 < end else { throw Self.fail("unterminated string", end) }
        let kind = base[pos + 1]
        pos += 2
        switch kind {
        case quote, backslash, UInt8(ascii: "/"): scratch.append(kind)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            let unit = try readHex4(escapeAt: start)
            var scalar = unit
            switch unit {
            case 0xD800...0xDBFF:
                // A high surrogate is only meaningful as the first half of a \uD8xx\uDCxx pair.
                guard pos + 1 < end, base[pos] == backslash, base[pos + 1] == UInt8(ascii: "u") else {
                    throw Self.fail("unpaired high surrogate escape \\u\(Self.hex4(unit))", start)
                }
                let lowStart = pos
                pos += 2
                let lowUnit = try readHex4(escapeAt: lowStart)
                guard (0xDC00...0xDFFF).contains(lowUnit) else {
                    throw Self.fail("unpaired high surrogate escape \\u\(Self.hex4(unit))", start)
                }
                scalar = 0x10000 + ((unit - 0xD800) << 10) + (lowUnit - 0xDC00)
            case 0xDC00...0xDFFF:
                throw Self.fail("unpaired low surrogate escape \\u\(Self.hex4(unit))", start)
            default:
                break
            }
            appendUTF8(scalar)
        default:
            throw Self.fail("invalid escape sequence \\\(describeEscape(kind))", start)
        }
    }

    private mutating func readHex4(escapeAt start: Int) throws(JSONParseError) -> UInt32 {
        var value: UInt32 = 0
        for k in 0..<4 {
            guard pos + k < end else { throw Self.fail("truncated \\u escape", start) }
            let byte = base[pos + k]
            let digit: UInt8
            switch byte {
            case zero...UInt8(ascii: "9"): digit = byte - zero
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw Self.fail("invalid \\u escape: expected 4 hex digits", start)
            }
            value = value << 4 | UInt32(digit)
        }
        pos += 4
        return value
    }

    private mutating func appendUTF8(_ scalar: UInt32) {
        switch scalar {
        case 0..<0x80:
            scratch.append(UInt8(scalar))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    // MARK: Numbers

    private mutating func parseNumber() throws(JSONParseError) -> JSON {
        let start = pos
        var i = pos
        let negative = base[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        // All significant digits (integer and fraction) accumulate here while they fit, so the
        // common cases need no second pass over the text.
        var mantissa: UInt64 = 0
        var mantissaExact = true
        @inline(__always) func accumulate(_ byte: UInt8) {
            if mantissa <= (UInt64.max - 9) / 10 {
                mantissa = mantissa * 10 + UInt64(byte - zero)
            } else {
                mantissaExact = false
            }
        }

        guard i < end, isDigit(base[i]) else {
            throw Self.fail("expected a digit after '-'", i)
        }
        if base[i] == zero {
            i += 1
            if i < end && isDigit(base[i]) {
                throw Self.fail("leading zeros are not allowed", start)
            }
        } else {
            while i < end && isDigit(base[i]) {
                accumulate(base[i])
                i += 1
            }
        }

        var isInteger = true
        var fractionDigits = 0
        if i < end && base[i] == UInt8(ascii: ".") {
            isInteger = false
            i += 1
            guard i < end && isDigit(base[i]) else {
                throw Self.fail("expected a digit after the decimal point", i)
            }
            while i < end && isDigit(base[i]) {
                accumulate(base[i])
                fractionDigits += 1
                i += 1
            }
        }

        var exponent = 0
        if i < end && (base[i] == UInt8(ascii: "e") || base[i] == UInt8(ascii: "E")) {
            isInteger = false
            i += 1
            var exponentNegative = false
            if i < end && (base[i] == UInt8(ascii: "+") || base[i] == UInt8(ascii: "-")) {
                exponentNegative = base[i] == UInt8(ascii: "-")
                i += 1
            }
            guard i < end && isDigit(base[i]) else {
                throw Self.fail("expected a digit in the exponent", i)
            }
            while i < end && isDigit(base[i]) {
                // Saturate: anything this large only matters to the slow path, which re-reads text.
                if exponent < 1_000_000 { exponent = exponent * 10 + Int(base[i] - zero) }
                i += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        pos = i

        if isInteger && mantissaExact {
            if !negative {
                if mantissa <= UInt64(Int64.max) { return .int(Int64(mantissa)) }
            } else if mantissa == 0 {
                return .double(-0.0)  // Int64 has no negative zero; keep the sign.
            } else if mantissa <= UInt64(Int64.max) + 1 {
                return .int(Int64(bitPattern: 0 &- mantissa))
            }
        }

        // Clinger's fast path: an exactly representable mantissa times an exactly representable
        // power of ten is a single correctly rounded IEEE operation.
        let scale = exponent - fractionDigits
        if mantissaExact && mantissa <= 1 << 53 && scale >= -22 && scale <= 22 {
            var value = Double(mantissa)
            value = scale >= 0 ? value * exactPowersOfTen[scale] : value / exactPowersOfTen[-scale]
            return .double(negative ? -value : value)
        }

        // Slow path: the standard library's correctly rounded, locale-independent conversion.
        // The grammar was checked above, so the text is always something it accepts.
        let text = String(decoding: UnsafeBufferPointer(start: base + start, count: i - start), as: UTF8.self)
        guard let value = Double(text) else {
            throw Self.fail("invalid number", start)
        }
        guard value.isFinite else {
            throw Self.fail("number out of range", start)
        }
        return .double(value)
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool {
        byte &- zero < 10
    }

    // MARK: Errors (kept out of line so the hot paths stay small)

    @inline(never)
    private static func fail(_ message: String, _ offset: Int) -> JSONParseError {
        JSONParseError(message: message, offset: offset)
    }

    @inline(never)
    private func describe(_ offset: Int) -> String {
        guard offset < end else { return "end of input" }
        let byte = base[offset]
        if byte >= 0x20 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte \(Self.hex(byte))"
    }

    @inline(never)
    private func describeEscape(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? String(Character(Unicode.Scalar(byte))) : Self.hex(byte)
    }

    @inline(never)
    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return byte < 0x10 ? "0x0\(digits)" : "0x\(digits)"
    }

    @inline(never)
    private static func hex4(_ unit: UInt32) -> String {
        let digits = String(unit, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
