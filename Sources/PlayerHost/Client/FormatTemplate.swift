import PlayerHostBase

/// A playerctl-style `--format` template: text with `{{expression}}` placeholders.
///
/// An expression is a key — npctl's (`status`, `position`, `duration`, `session`, any info key
/// such as `artist` or `albumTitle`, dotted names into `extra`) or playerctl's (`xesam:title`,
/// `xesam:artist`, `xesam:album`, `mpris:length`, `playerName`, `album`, …) — a string literal
/// (`"…"`), or a helper applied to expressions:
///
/// - `duration(x)`: a time as `m:ss` / `h:mm:ss` (seconds, or microseconds for `mpris:length`)
/// - `lc(x)`, `uc(x)`: lower / upper case
/// - `markup_escape(x)`: `&`, `<`, `>`, `'`, `"` escaped for Pango markup (status bars)
/// - `default(x, y)`: `x` when it has a non-empty value, else `y`
/// - `emoji(x)`: `status` as ▶ ⏸ ⏹, `volume` as 🔈 🔉 🔊
///
/// An absent key prints nothing, as in playerctl, so one template serves sessions with and
/// without, say, an album. The template is parsed once, up front, so a typo fails before
/// anything is printed.
public struct FormatTemplate: Sendable {
    indirect enum Expr: Sendable {
        case key(String)
        case literal(String)
        case call(String, [Expr])
    }

    enum Piece: Sendable {
        case text(String)
        case expr(Expr)
    }

    /// A value as the evaluator sees it: JSON, tagged when its numbers are microseconds.
    struct Value {
        var json: JSON
        var micros = false
        var text: String { TimeText.text(json) }
    }

    let pieces: [Piece]

    /// Helper name → number of arguments.
    public static let helpers: [String: Int] = [
        "duration": 1, "lc": 1, "uc": 1, "markup_escape": 1, "default": 2, "emoji": 1,
    ]

    /// Parses `source`; a malformed template throws `TemplateError` with one line to show.
    public init(_ source: String) throws(TemplateError) {
        var pieces: [Piece] = []
        var rest = Substring(source)
        while let open = rest.firstRange(of: "{{") {
            if open.lowerBound > rest.startIndex { pieces.append(.text(String(rest[..<open.lowerBound]))) }
            guard let close = rest[open.upperBound...].firstRange(of: "}}") else {
                throw TemplateError("'{{' without '}}' in \(source)")
            }
            var parser = ExpressionParser(text: rest[open.upperBound..<close.lowerBound], source: source)
            pieces.append(.expr(try parser.parseWhole()))
            rest = rest[close.upperBound...]
        }
        if !rest.isEmpty { pieces.append(.text(String(rest))) }
        self.pieces = pieces
    }

    /// The template filled in from `snapshot` at host time `now`.
    public func render(_ snapshot: InfoSnapshot, at now: Double) -> String {
        pieces.map { piece in
            switch piece {
            case .text(let s): return s
            case .expr(let e): return Self.evaluate(e, snapshot, now)?.text ?? ""
            }
        }.joined()
    }

    public func render(_ snapshot: InfoSnapshot) -> String { render(snapshot, at: InfoSnapshot.hostNow()) }

    static func evaluate(_ e: Expr, _ s: InfoSnapshot, _ now: Double) -> Value? {
        switch e {
        case .literal(let text): return Value(json: .string(text))
        case .key(let key):
            // Dotted names reach into `extra` (plugin keys): {{extra.station}}.
            let parts = key.split(separator: ".").map(String.init)
            guard let head = parts.first else { return nil }
            var v = s.value(head, at: now)
            for p in parts.dropFirst() { v = v?[p] }
            return v.map { Value(json: $0, micros: InfoSnapshot.isMicroseconds(head)) }
        case .call(let helper, let args):
            if helper == "default" {
                if let v = evaluate(args[0], s, now), !v.text.isEmpty { return v }
                return evaluate(args[1], s, now)
            }
            guard let v = evaluate(args[0], s, now) else { return nil }
            switch helper {
            case "duration":
                guard let d = v.json.doubleValue else { return v }
                return Value(json: .string(TimeText.format(v.micros ? d / 1e6 : d)))
            case "lc": return Value(json: .string(v.text.lowercased()))
            case "uc": return Value(json: .string(v.text.uppercased()))
            case "markup_escape": return Value(json: .string(Self.markupEscape(v.text)))
            default: return Value(json: .string(Self.emoji(v)))
            }
        }
    }

    static func markupEscape(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "'": out += "&#39;"
            case "\"": out += "&quot;"
            default: out.append(c)
            }
        }
        return out
    }

    /// playerctl's emoji: statuses, or a volume level for numbers.
    static func emoji(_ v: Value) -> String {
        if let level = v.json.doubleValue, v.json.stringValue == nil {
            return level < 0.33 ? "🔈" : level < 0.66 ? "🔉" : "🔊"
        }
        switch v.text.lowercased() {
        case "playing": return "▶️"
        case "paused": return "⏸️"
        case "stopped": return "⏹️"
        default: return v.text
        }
    }
}

/// A `--format` template that cannot be read; `message` is one line naming the problem.
public struct TemplateError: Error, CustomStringConvertible, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The expression inside `{{ }}`: `key`, `"literal"`, `helper(expr, …)`, spaces anywhere between.
struct ExpressionParser {
    var text: Substring
    let source: String

    mutating func parseWhole() throws(TemplateError) -> FormatTemplate.Expr {
        let whole = text
        let e = try parse()
        skipSpaces()
        guard text.isEmpty else { throw TemplateError("cannot read '{{\(whole)}}' in \(source)") }
        return e
    }

    private mutating func skipSpaces() { while text.first == " " { text.removeFirst() } }

    private static func isKeyCharacter(_ c: Character) -> Bool {
        c.isLetter || c.isNumber || c == "_" || c == "." || c == ":" || c == "-"
    }

    private mutating func parse() throws(TemplateError) -> FormatTemplate.Expr {
        skipSpaces()
        if let quote = text.first, quote == "\"" || quote == "'" {
            text.removeFirst()
            guard let end = text.firstIndex(of: quote) else { throw TemplateError("unterminated string in \(source)") }
            let literal = String(text[..<end])
            text = text[text.index(after: end)...]
            return .literal(literal)
        }
        let name = String(text.prefix(while: Self.isKeyCharacter))
        guard !name.isEmpty else { throw TemplateError("cannot read '{{\(text)}}' in \(source)") }
        text.removeFirst(name.count)
        skipSpaces()
        guard text.first == "(" else { return .key(name) }
        text.removeFirst()
        guard let arity = FormatTemplate.helpers[name] else {
            throw TemplateError("unknown helper '\(name)' (known: \(FormatTemplate.helpers.keys.sorted().joined(separator: ", ")))")
        }
        var args: [FormatTemplate.Expr] = []
        while true {
            args.append(try parse())
            skipSpaces()
            if text.first == "," { text.removeFirst(); continue }
            guard text.first == ")" else { throw TemplateError("missing ')' after \(name)( in \(source)") }
            text.removeFirst()
            break
        }
        guard args.count == arity else {
            throw TemplateError("\(name) takes \(arity) argument\(arity == 1 ? "" : "s"), not \(args.count)")
        }
        return .call(name, args)
    }
}
