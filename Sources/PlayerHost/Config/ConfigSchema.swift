/// One key a configuration table may hold, and what its value must be.
///
/// The tables of keys (`HostConfig.schema`, `SessionConfig.schema`, …) are the one list of what
/// the file may say: `ConfigSchema.check` walks the parsed TOML against them before anything is
/// decoded, so a typo or a value of the wrong type is refused with the key's path, its line when
/// it can be found, and what was expected — instead of being ignored (unknown keys) or reported
/// by the decoder in its own terms.
public struct ConfigKey: Sendable {
    public var name: String
    public var kind: ConfigValueKind

    public init(_ name: String, _ kind: ConfigValueKind) {
        self.name = name
        self.kind = kind
    }
}

/// The kind of value a `ConfigKey` takes.
public indirect enum ConfigValueKind: Sendable {
    case string
    case integer
    /// An integer or a float (`duration = 324` and `duration = 324.5`).
    case number
    case boolean
    /// An array whose every element is of the kind.
    case array(ConfigValueKind)
    /// A table (`[mpris]`) with these keys.
    case table([ConfigKey])
    /// An array of tables (`[[session]]`), each with these keys.
    case tables([ConfigKey])

    /// "an integer", "an array of strings": how an error says what was expected.
    var expected: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .number: "a number"
        case .boolean: "a boolean"
        case .array(let element): "an array of \(element.plural)"
        case .table: "a table"
        case .tables: "an array of tables"
        }
    }

    private var plural: String {
        switch self {
        case .string: "strings"
        case .integer: "integers"
        case .number: "numbers"
        case .boolean: "booleans"
        case .array: "arrays"
        case .table, .tables: "tables"
        }
    }
}

/// Checks parsed TOML against a table of `ConfigKey`s.
enum ConfigSchema {
    /// Throws the first problem found, as `source[:line]: key.path: what is wrong`. `text` is the
    /// file, used only to find a key's line.
    static func check(_ table: TOMLTable, against keys: [ConfigKey], source: String, text: String) throws(ConfigError) {
        let lines = KeyLines(text)
        try check(table, keys, path: [], source: source, lines: lines)
    }

    private static func check(_ table: TOMLTable, _ keys: [ConfigKey], path: [String], source: String, lines: KeyLines) throws(ConfigError) {
        let known = Dictionary(keys.map { ($0.name, $0.kind) }, uniquingKeysWith: { a, _ in a })
        // Sorted so that the first problem reported does not depend on the table's hash order.
        for key in table.keys.sorted() {
            guard let value = table[key] else { continue }
            let here = path + [key]
            guard let kind = known[key] else {
                var message = "unknown key"
                if let near = nearest(key, in: keys.map(\.name)) { message += " (did you mean '\(near)'?)" }
                message += "; expected one of: " + keys.map(\.name).joined(separator: ", ")
                throw fail(source, lines, here, message)
            }
            try check(value, kind, path: here, source: source, lines: lines)
        }
    }

    private static func check(_ value: TOMLValue, _ kind: ConfigValueKind, path: [String], source: String, lines: KeyLines) throws(ConfigError) {
        let matches: Bool
        switch kind {
        case .string: if case .string = value { matches = true } else { matches = false }
        case .integer: if case .integer = value { matches = true } else { matches = false }
        case .number:
            switch value {
            case .integer, .float: matches = true
            default: matches = false
            }
        case .boolean: if case .boolean = value { matches = true } else { matches = false }
        case .array(let element):
            guard let array = value.array else { matches = false; break }
            for (i, item) in array.enumerated() {
                try check(item, element, path: Array(path.dropLast()) + ["\(path.last ?? "")[\(i)]"], source: source, lines: lines)
            }
            matches = true
        case .table(let keys):
            guard let t = value.table else { matches = false; break }
            try check(t, keys, path: path, source: source, lines: lines)
            matches = true
        case .tables(let keys):
            guard let array = value.array else { matches = false; break }
            for (i, item) in array.enumerated() {
                let at = Array(path.dropLast()) + ["\(path.last ?? "")[\(i)]"]
                guard let t = item.table else {
                    throw fail(source, lines, at, "expected a table, found \(found(item))")
                }
                try check(t, keys, path: at, source: source, lines: lines)
            }
            matches = true
        }
        if !matches { throw fail(source, lines, path, "expected \(kind.expected), found \(found(value))") }
    }

    /// `source:line` when the top-level `key` is written once in `text`, else `source`: for
    /// range errors found after decoding, located the way the schema's are.
    static func location(of key: String, source: String, text: String) -> String {
        KeyLines(text).line(of: key).map { "\(source):\($0)" } ?? source
    }

    private static func fail(_ source: String, _ lines: KeyLines, _ path: [String], _ message: String) -> ConfigError {
        let key = path.last.map { $0.split(separator: "[").first.map(String.init) ?? $0 } ?? ""
        let at = lines.line(of: key).map { "\(source):\($0)" } ?? source
        return .config("\(at): \(path.joined(separator: ".")): \(message)")
    }

    private static func found(_ value: TOMLValue) -> String { value.kindDescription }

    /// The known key a typo most likely meant (edit distance ≤ 2), if any.
    static func nearest(_ key: String, in names: [String]) -> String? {
        let scored = names.map { ($0, distance(key, $0)) }.filter { $0.1 <= 2 }
        return scored.min { $0.1 < $1.1 }?.0
    }

    /// Levenshtein distance, with a transposition counting as one edit (`categroy`).
    private static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8), b = Array(b.utf8)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }
}

/// Where keys are written in the file, found by reading its lines (`key = …` at a line's start).
/// Only a key written on exactly one line gets a line number: `id` in three `[[session]]`s is
/// ambiguous, and a wrong line would mislead more than none.
private struct KeyLines {
    private var lines: [String: [Int]] = [:]

    init(_ text: String) {
        for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var s = Substring(line).drop { $0 == " " || $0 == "\t" }
            if s.hasPrefix("#") { continue }
            if s.hasPrefix("[") {
                // `[mpris]` / `[[session]]`: the header names the table.
                s = s.drop { $0 == "[" }
                let name = s.prefix { $0 != "]" }.trimmingCharacters()
                if !name.isEmpty { lines[name, default: []].append(n + 1) }
                continue
            }
            guard let eq = s.firstIndex(of: "=") else { continue }
            var key = s[..<eq].trimmingCharacters()
            if key.count >= 2, key.hasPrefix("\""), key.hasSuffix("\"") { key = String(key.dropFirst().dropLast()) }
            if !key.isEmpty { lines[key, default: []].append(n + 1) }
        }
    }

    func line(of key: String) -> Int? {
        guard let found = lines[key], found.count == 1 else { return nil }
        return found[0]
    }
}

extension Substring {
    fileprivate func trimmingCharacters() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
