/// TOML's strings, numbers and dates.
extension TOMLParser {
    // MARK: - Strings

    /// A basic string's content after its opening quote, through its closing one.
    mutating func basicString() throws(TOMLParseError) -> String {
        var out: [UInt8] = []
        while true {
            guard let c = peek else { throw error("unterminated string") }
            switch c {
            case 0x22:
                i += 1
                return String(decoding: out, as: UTF8.self)
            case 0x5C:
                try escape(into: &out)
            case 0x0A, 0x0D:
                throw error("a newline in a single-line string")
            default:
                if isControl(c) && c != 0x09 { throw error("control character in a string (escape it)") }
                out.append(c)
                i += 1
            }
        }
    }

    /// A literal string's content after its opening quote, through its closing one.
    mutating func literalString() throws(TOMLParseError) -> String {
        let start = i
        while true {
            guard let c = peek else { throw error("unterminated string") }
            if c == 0x27 {
                let s = String(decoding: bytes[start..<i], as: UTF8.self)
                i += 1
                return s
            }
            if c == 0x0A || c == 0x0D { throw error("a newline in a single-line string") }
            if isControl(c) && c != 0x09 { throw error("control character in a string") }
            i += 1
        }
    }

    /// A `"""` string after its opening delimiter, through its closing one.
    mutating func multilineBasicString() throws(TOMLParseError) -> String {
        _ = try newline()  // a newline right after the opening delimiter is not content
        var out: [UInt8] = []
        while true {
            guard let c = peek else { throw error("unterminated multi-line string") }
            if c == 0x22 {
                if try closeMultiline(quote: 0x22, into: &out) { return String(decoding: out, as: UTF8.self) }
                continue
            }
            if c == 0x5C {
                // A line-ending backslash trims the newline and the whitespace after it.
                var j = i + 1
                while j < bytes.count, bytes[j] == 0x20 || bytes[j] == 0x09 { j += 1 }
                if j < bytes.count, bytes[j] == 0x0A || (bytes[j] == 0x0D && j + 1 < bytes.count && bytes[j + 1] == 0x0A) {
                    i = j
                    while true {
                        skipWhitespace()
                        if !(try newline()) { break }
                    }
                    continue
                }
                try escape(into: &out)
                continue
            }
            if c == 0x0A || c == 0x0D {
                let start = i
                _ = try newline()
                out.append(contentsOf: bytes[start..<i])
                continue
            }
            if isControl(c) && c != 0x09 { throw error("control character in a string (escape it)") }
            out.append(c)
            i += 1
        }
    }

    /// A `'''` string after its opening delimiter, through its closing one.
    mutating func multilineLiteralString() throws(TOMLParseError) -> String {
        _ = try newline()
        var out: [UInt8] = []
        while true {
            guard let c = peek else { throw error("unterminated multi-line string") }
            if c == 0x27 {
                if try closeMultiline(quote: 0x27, into: &out) { return String(decoding: out, as: UTF8.self) }
                continue
            }
            if c == 0x0A || c == 0x0D {
                let start = i
                _ = try newline()
                out.append(contentsOf: bytes[start..<i])
                continue
            }
            if isControl(c) && c != 0x09 { throw error("control character in a string") }
            out.append(c)
            i += 1
        }
    }

    /// At a quote inside a multi-line string: one or two quotes are content; three to five end
    /// the string (the first one or two of them content); six or more are an error.
    private mutating func closeMultiline(quote: UInt8, into out: inout [UInt8]) throws(TOMLParseError) -> Bool {
        var n = 0
        while peek(n) == quote { n += 1 }
        if n < 3 {
            out.append(contentsOf: repeatElement(quote, count: n))
            i += n
            return false
        }
        guard n <= 5 else { throw error("too many quotes at the end of a multi-line string") }
        out.append(contentsOf: repeatElement(quote, count: n - 3))
        i += n
        return true
    }

    /// A backslash escape at `i`.
    private mutating func escape(into out: inout [UInt8]) throws(TOMLParseError) {
        i += 1
        guard let e = peek else { throw error("unterminated escape") }
        i += 1
        switch e {
        case 0x62: out.append(0x08)  // b
        case 0x74: out.append(0x09)  // t
        case 0x6E: out.append(0x0A)  // n
        case 0x66: out.append(0x0C)  // f
        case 0x72: out.append(0x0D)  // r
        case 0x22: out.append(0x22)
        case 0x5C: out.append(0x5C)
        case 0x75, 0x55:  // u, U
            let n = e == 0x75 ? 4 : 8
            var v: UInt32 = 0
            for _ in 0..<n {
                guard let h = peek, let d = hexDigit(h) else { throw error("\\\(e == 0x75 ? "u" : "U") needs \(n) hex digits") }
                v = v << 4 | UInt32(d)
                i += 1
            }
            guard let scalar = Unicode.Scalar(v) else { throw error("\\u escape of a value that is not a Unicode scalar") }
            out.append(contentsOf: Array(String(Character(scalar)).utf8))
        default:
            i -= 1
            throw error("invalid escape '\\\(String(decoding: [e], as: UTF8.self))'")
        }
    }

    private func hexDigit(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        case 0x61...0x66: c - 0x61 + 10
        default: nil
        }
    }

    // MARK: - Numbers and dates

    mutating func numberOrDate() throws(TOMLParseError) -> TOMLValue {
        let start = i
        while let c = peek, isTokenByte(c) { i += 1 }
        // A date followed by a space and a time is one date-time (`1979-05-27 07:32:00`).
        if i - start == 10, peek == 0x20, let h = peek(1), isDigit(h), let h2 = peek(2), isDigit(h2), peek(3) == 0x3A {
            i += 1
            while let c = peek, isTokenByte(c) { i += 1 }
        }
        let token = Array(bytes[start..<i])
        guard !token.isEmpty else { throw error("expected a value") }
        if token.count >= 5, isDigit(token[0]), token[4] == 0x2D || (token.count >= 3 && token[2] == 0x3A) {
            return .dateTime(try dateTime(token, at: start))
        }
        if token.count >= 3, isDigit(token[0]), token[2] == 0x3A {
            return .dateTime(try dateTime(token, at: start))
        }
        return try number(token, at: start)
    }

    private func isTokenByte(_ c: UInt8) -> Bool {
        isDigit(c) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2B || c == 0x2D || c == 0x5F || c == 0x2E || c == 0x3A
    }

    func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

    private func fail(_ reason: String, at start: Int) -> TOMLParseError {
        TOMLParseError(line: line, column: start - lineStart + 1, reason: reason)
    }

    private func number(_ token: [UInt8], at start: Int) throws(TOMLParseError) -> TOMLValue {
        let text = String(decoding: token, as: UTF8.self)
        var body = token[...]
        var negative = false
        if let s = body.first, s == 0x2B || s == 0x2D {
            negative = s == 0x2D
            body = body.dropFirst()
        }
        switch String(decoding: body, as: UTF8.self) {
        case "inf": return .float(negative ? -.infinity : .infinity)
        case "nan": return .float(.nan)
        default: break
        }
        // 0x, 0o, 0b: unsigned, lower-case prefix.
        if body.count > 2, body.first == 0x30, let p = body.dropFirst().first, p == 0x78 || p == 0x6F || p == 0x62 {
            guard body.count == token.count else { throw fail("a sign is not allowed on '\(text)'", at: start) }
            let radix = p == 0x78 ? 16 : p == 0x6F ? 8 : 2
            let digits = try underscored(body.dropFirst(2), text: text, at: start) { c in
                switch radix {
                case 16: hexDigit(c) != nil
                case 8: c >= 0x30 && c <= 0x37
                default: c == 0x30 || c == 0x31
                }
            }
            guard let v = Int64(String(decoding: digits, as: UTF8.self), radix: radix) else {
                throw fail("'\(text)' is out of range for a 64-bit integer", at: start)
            }
            return .integer(v)
        }
        let isFloat = body.contains(0x2E) || body.contains(0x65) || body.contains(0x45)
        if !isFloat {
            let digits = try underscored(body, text: text, at: start, isDigit)
            guard !(digits.count > 1 && digits.first == 0x30) else { throw fail("leading zeros in '\(text)'", at: start) }
            guard let v = Int64((negative ? "-" : "") + String(decoding: digits, as: UTF8.self)) else {
                throw fail("'\(text)' is out of range for a 64-bit integer", at: start)
            }
            return .integer(v)
        }
        // A float: integer part, then a fraction and/or an exponent.
        let expAt = body.firstIndex { $0 == 0x65 || $0 == 0x45 }
        let mantissa = body[..<(expAt ?? body.endIndex)]
        let dot = mantissa.firstIndex(of: 0x2E)
        let intPart = try underscored(mantissa[..<(dot ?? mantissa.endIndex)], text: text, at: start, isDigit)
        guard !(intPart.count > 1 && intPart.first == 0x30) else { throw fail("leading zeros in '\(text)'", at: start) }
        var clean = (negative ? "-" : "") + String(decoding: intPart, as: UTF8.self)
        if let dot {
            let frac = try underscored(mantissa[(dot + 1)...], text: text, at: start, isDigit)
            clean += "." + String(decoding: frac, as: UTF8.self)
        }
        if let expAt {
            var exp = body[(expAt + 1)...]
            var sign = ""
            if let s = exp.first, s == 0x2B || s == 0x2D {
                sign = s == 0x2D ? "-" : ""
                exp = exp.dropFirst()
            }
            let digits = try underscored(exp, text: text, at: start, isDigit)
            clean += "e" + sign + String(decoding: digits, as: UTF8.self)
        }
        guard let v = Double(clean) else { throw fail("'\(text)' is not a valid number", at: start) }
        return .float(v)
    }

    /// `part`'s digits without underscores; each underscore must sit between two digits, and
    /// the part must have at least one digit.
    private func underscored(_ part: ArraySlice<UInt8>, text: String, at start: Int, _ isValid: (UInt8) -> Bool) throws(TOMLParseError) -> [UInt8] {
        var out: [UInt8] = []
        var previousWasDigit = false
        for c in part {
            if c == 0x5F {
                guard previousWasDigit else { throw fail("an underscore must sit between digits in '\(text)'", at: start) }
                previousWasDigit = false
            } else {
                guard isValid(c) else { throw fail("'\(text)' is not a valid value", at: start) }
                out.append(c)
                previousWasDigit = true
            }
        }
        guard previousWasDigit else { throw fail("'\(text)' is not a valid value", at: start) }
        return out
    }

    private func dateTime(_ token: [UInt8], at start: Int) throws(TOMLParseError) -> TOMLDateTime {
        let text = String(decoding: token, as: UTF8.self)
        let bad = fail("'\(text)' is not a valid date or time", at: start)
        func digits(_ from: Int, _ n: Int) throws(TOMLParseError) -> Int {
            guard from + n <= token.count else { throw bad }
            var v = 0
            for k in from..<(from + n) {
                guard isDigit(token[k]) else { throw bad }
                v = v * 10 + Int(token[k] - 0x30)
            }
            return v
        }
        /// HH:MM:SS[.frac] at `from`; returns where it ends.
        func time(_ from: Int) throws(TOMLParseError) -> Int {
            guard from + 8 <= token.count, token[from + 2] == 0x3A, token[from + 5] == 0x3A else { throw bad }
            let h = try digits(from, 2), m = try digits(from + 3, 2), s = try digits(from + 6, 2)
            guard h <= 23, m <= 59, s <= 60 else { throw bad }
            var end = from + 8
            if end < token.count, token[end] == 0x2E {
                end += 1
                let f = end
                while end < token.count, isDigit(token[end]) { end += 1 }
                guard end > f else { throw bad }
            }
            return end
        }
        var out = token
        if token.count >= 3, token[2] == 0x3A {
            guard try time(0) == token.count else { throw bad }
            return TOMLDateTime(kind: .localTime, text: text)
        }
        guard token.count >= 10, token[4] == 0x2D, token[7] == 0x2D else { throw bad }
        let y = try digits(0, 4), mo = try digits(5, 2), d = try digits(8, 2)
        let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...12).contains(mo), d >= 1, d <= days[mo - 1] else { throw bad }
        if token.count == 10 { return TOMLDateTime(kind: .localDate, text: text) }
        guard token[10] == 0x54 || token[10] == 0x74 || token[10] == 0x20 else { throw bad }
        out[10] = 0x54
        let end = try time(11)
        if end == token.count { return TOMLDateTime(kind: .localDateTime, text: String(decoding: out, as: UTF8.self)) }
        if token[end] == 0x5A || token[end] == 0x7A {
            guard end + 1 == token.count else { throw bad }
            out[end] = 0x5A
        } else {
            guard token[end] == 0x2B || token[end] == 0x2D, end + 6 == token.count, token[end + 3] == 0x3A else { throw bad }
            let oh = try digits(end + 1, 2), om = try digits(end + 4, 2)
            guard oh <= 23, om <= 59 else { throw bad }
        }
        return TOMLDateTime(kind: .offsetDateTime, text: String(decoding: out, as: UTF8.self))
    }
}
