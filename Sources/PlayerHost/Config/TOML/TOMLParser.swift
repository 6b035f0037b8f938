/// A TOML 1.0 reader with no Foundation: the configuration's parser (issue 24's footprint —
/// TOMLKit brought Foundation and ICU into the daemon for one file read at start).
///
/// Checked against toml-test's valid and invalid cases (`TOMLConformanceTests`). Works on the
/// file's bytes; refuses invalid UTF-8, control characters, and nesting deeper than
/// `maxDepth` (arrays and inline tables: a hostile file cannot exhaust the stack).
public struct TOMLParser {
    /// Deepest nesting of arrays and inline tables accepted.
    public static let maxDepth = 64

    let bytes: [UInt8]
    var i = 0
    var line = 1
    var lineStart = 0
    var depth = 0

    /// Parses `text` into its root table.
    public static func parse(_ text: String) throws(TOMLParseError) -> TOMLTable {
        try parse(bytes: Array(text.utf8))
    }

    /// Parses UTF-8 bytes into their root table.
    public static func parse(bytes: [UInt8]) throws(TOMLParseError) -> TOMLTable {
        var p = TOMLParser(bytes: bytes)
        try p.checkUTF8()
        // A byte order mark is not content.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { p.i = 3; p.lineStart = 3 }
        return try p.document()
    }

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    // MARK: - Errors and bytes

    func error(_ reason: String) -> TOMLParseError {
        TOMLParseError(line: line, column: i - lineStart + 1, reason: reason)
    }

    var atEnd: Bool { i >= bytes.count }
    var peek: UInt8? { i < bytes.count ? bytes[i] : nil }

    func peek(_ offset: Int) -> UInt8? {
        let j = i + offset
        return j < bytes.count ? bytes[j] : nil
    }

    func starts(with s: StaticString) -> Bool {
        let n = s.utf8CodeUnitCount
        guard i + n <= bytes.count else { return false }
        return s.withUTF8Buffer { buf in
            for k in 0..<n where bytes[i + k] != buf[k] { return false }
            return true
        }
    }

    private mutating func checkUTF8() throws(TOMLParseError) {
        var it = bytes.makeIterator()
        var decoder = UTF8()
        var offset = 0
        loop: while true {
            switch decoder.decode(&it) {
            case .scalarValue(let s): offset += UTF8.width(s)
            case .emptyInput: break loop
            case .error:
                i = offset
                // Columns count bytes; the line is the one the bad byte is on.
                line = 1 + bytes[..<min(offset, bytes.count)].lazy.filter { $0 == 0x0A }.count
                lineStart = (bytes[..<min(offset, bytes.count)].lastIndex(of: 0x0A) ?? -1) + 1
                throw error("invalid UTF-8")
            }
        }
    }

    /// Spaces and tabs.
    mutating func skipWhitespace() {
        while let c = peek, c == 0x20 || c == 0x09 { i += 1 }
    }

    /// A newline (LF or CRLF) here: consumes it and counts the line.
    mutating func newline() throws(TOMLParseError) -> Bool {
        if peek == 0x0A {
            i += 1
        } else if peek == 0x0D {
            guard peek(1) == 0x0A else { throw error("a carriage return must be followed by a line feed") }
            i += 2
        } else {
            return false
        }
        line += 1
        lineStart = i
        return true
    }

    /// A comment here, up to (not including) the end of its line.
    mutating func skipComment() throws(TOMLParseError) {
        guard peek == 0x23 else { return }
        i += 1
        while let c = peek, c != 0x0A {
            if c == 0x0D, peek(1) == 0x0A { break }
            if isControl(c) && c != 0x09 { throw error("control character in a comment") }
            i += 1
        }
    }

    /// Whitespace, comments and newlines (inside arrays).
    mutating func skipBlank() throws(TOMLParseError) {
        while true {
            skipWhitespace()
            try skipComment()
            if !(try newline()) { return }
        }
    }

    /// Only whitespace and a comment until the end of the line (or the file).
    mutating func endOfLine() throws(TOMLParseError) {
        skipWhitespace()
        try skipComment()
        if atEnd { return }
        if !(try newline()) { throw error("expected the end of the line") }
    }

    func isControl(_ c: UInt8) -> Bool { c < 0x20 || c == 0x7F }

    // MARK: - Document

    private mutating func document() throws(TOMLParseError) -> TOMLTable {
        let root = TOMLTree(origin: .header)
        var current = root
        while true {
            try skipBlank()
            guard let c = peek else { break }
            if c == 0x5B {  // [
                current = try header(root)
            } else {
                try keyValue(into: current)
            }
            try endOfLine()
        }
        return root.value()
    }

    /// `[a.b]` or `[[a.b]]`: the table later keys go into.
    private mutating func header(_ root: TOMLTree) throws(TOMLParseError) -> TOMLTree {
        let isArray = peek(1) == 0x5B
        i += isArray ? 2 : 1
        skipWhitespace()
        let path = try key()
        skipWhitespace()
        if isArray {
            guard starts(with: "]]") else { throw error("expected ']]' to close the array of tables header") }
            i += 2
        } else {
            guard peek == 0x5D else { throw error("expected ']' to close the table header") }
            i += 1
        }
        var table = root
        for k in path.dropLast() {
            switch table[k] {
            case nil:
                let t = TOMLTree(origin: .implicit)
                table.set(k, .table(t))
                table = t
            case .table(let t)?:
                table = t
            case .arrayOfTables(let ts)?:
                guard let last = ts.last else { throw error("'\(k)' is an empty array of tables") }
                table = last
            case .value?:
                throw error("'\(k)' is already a value, not a table")
            }
        }
        let k = path[path.count - 1]
        if isArray {
            let t = TOMLTree(origin: .header)
            switch table[k] {
            case nil: table.set(k, .arrayOfTables([t]))
            case .arrayOfTables(let ts)?: table.set(k, .arrayOfTables(ts + [t]))
            case .table?: throw error("'\(k)' is already a table, not an array of tables")
            case .value?: throw error("'\(k)' is already a value (a static array cannot be appended to)")
            }
            return t
        }
        switch table[k] {
        case nil:
            let t = TOMLTree(origin: .header)
            table.set(k, .table(t))
            return t
        case .table(let t)?:
            guard t.origin == .implicit else { throw error("table '\(path.joined(separator: "."))' is defined twice") }
            t.origin = .header
            return t
        case .arrayOfTables?: throw error("'\(k)' is already an array of tables")
        case .value?: throw error("'\(k)' is already a value, not a table")
        }
    }

    /// `a.b.c = value` into `table`.
    mutating func keyValue(into table: TOMLTree) throws(TOMLParseError) {
        let path = try key()
        skipWhitespace()
        guard peek == 0x3D else { throw error("expected '=' after the key") }
        i += 1
        skipWhitespace()
        let v = try value()
        var t = table
        for k in path.dropLast() {
            switch t[k] {
            case nil:
                let sub = TOMLTree(origin: .dotted)
                t.set(k, .table(sub))
                t = sub
            case .table(let sub)? where sub.origin == .dotted:
                t = sub
            case .table?, .arrayOfTables?:
                throw error("dotted keys cannot add to '\(k)', a table defined elsewhere")
            case .value?:
                throw error("'\(k)' is already a value, not a table")
            }
        }
        let k = path[path.count - 1]
        guard t[k] == nil else { throw error("key '\(path.joined(separator: "."))' is defined twice") }
        t.set(k, .value(v))
    }

    /// A key: bare, quoted or literal parts joined by dots.
    mutating func key() throws(TOMLParseError) -> [String] {
        var parts: [String] = []
        while true {
            skipWhitespace()
            guard let c = peek else { throw error("expected a key") }
            if c == 0x22 {  // "
                guard !starts(with: "\"\"\"") else { throw error("a key cannot be a multi-line string") }
                i += 1
                parts.append(try basicString())
            } else if c == 0x27 {  // '
                guard !starts(with: "'''") else { throw error("a key cannot be a multi-line string") }
                i += 1
                parts.append(try literalString())
            } else {
                let start = i
                while let c = peek, isBareKey(c) { i += 1 }
                guard i > start else { throw error("expected a key") }
                parts.append(String(decoding: bytes[start..<i], as: UTF8.self))
            }
            skipWhitespace()
            guard peek == 0x2E else { return parts }  // .
            i += 1
        }
    }

    private func isBareKey(_ c: UInt8) -> Bool {
        (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x5F || c == 0x2D
    }

    // MARK: - Values

    mutating func value() throws(TOMLParseError) -> TOMLValue {
        guard let c = peek else { throw error("expected a value") }
        switch c {
        case 0x22:
            if starts(with: "\"\"\"") { i += 3; return .string(try multilineBasicString()) }
            i += 1
            return .string(try basicString())
        case 0x27:
            if starts(with: "'''") { i += 3; return .string(try multilineLiteralString()) }
            i += 1
            return .string(try literalString())
        case 0x5B: return try array()
        case 0x7B: return try inlineTable()
        case 0x74:
            guard starts(with: "true") else { break }
            i += 4
            return .boolean(true)
        case 0x66:
            guard starts(with: "false") else { break }
            i += 5
            return .boolean(false)
        default: break
        }
        return try numberOrDate()
    }

    private mutating func array() throws(TOMLParseError) -> TOMLValue {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else { throw error("arrays and inline tables nested deeper than \(Self.maxDepth)") }
        i += 1
        var items: [TOMLValue] = []
        while true {
            try skipBlank()
            if peek == 0x5D { i += 1; return .array(items) }
            items.append(try value())
            try skipBlank()
            if peek == 0x2C {
                i += 1
            } else if peek == 0x5D {
                i += 1
                return .array(items)
            } else {
                throw error("expected ',' or ']' in an array")
            }
        }
    }

    private mutating func inlineTable() throws(TOMLParseError) -> TOMLValue {
        depth += 1
        defer { depth -= 1 }
        guard depth <= Self.maxDepth else { throw error("arrays and inline tables nested deeper than \(Self.maxDepth)") }
        i += 1
        let table = TOMLTree(origin: .header)
        skipWhitespace()
        if peek == 0x7D { i += 1; return .table(table.value()) }
        while true {
            try keyValue(into: table)
            skipWhitespace()
            if peek == 0x2C {
                i += 1
                skipWhitespace()
                if peek == 0x7D { throw error("no trailing comma in an inline table") }
            } else if peek == 0x7D {
                i += 1
                return .table(table.value())
            } else {
                throw error("expected ',' or '}' in an inline table (it must fit on one line)")
            }
        }
    }
}
