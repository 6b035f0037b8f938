import PlayerHostBase

/// A playerctl `--format` template: text with `{{expression}}` placeholders, read and expanded
/// exactly as playerctl 2.4 does (`playerctl-formatter.c`, ported step by step so quirks and
/// error messages match):
///
/// - a variable: any metadata key (`xesam:title`, `mpris:length`), `artist`, `album`,
///   `title`, `playerName`, `playerInstance`, `status`, `loop`, `shuffle`, `volume`,
///   `position` (µs), and npctl's own (`session`, `albumTitle`, …);
/// - a string literal `"…"` or a number `1.5`;
/// - `+ - * /` (with unary `+`/`-`, `*`/`/` binding tighter, parentheses);
/// - helpers: `lc(x)`, `uc(x)`, `duration(x)` (µs as `m:ss`/`h:mm:ss`), `markup_escape(x)`,
///   `default(x, y)`, `emoji(x)` (status or volume), `trunc(x, n)`.
///
/// An absent variable prints nothing. The template is parsed once, up front, so a typo fails
/// before anything is printed.
public struct FormatTemplate: Sendable {
    indirect enum Token: Sendable {
        case variable(String)
        case string(String)
        case number(Double)
        case function(String, [Token])
    }

    let tokens: [Token]

    /// The helpers and operators playerctl knows.
    public static let functions = ["lc", "uc", "duration", "markup_escape", "default", "emoji", "trunc", "+", "-", "*", "/"]

    /// Parses `source`; a malformed template throws with playerctl's message.
    public init(_ source: String) throws(TemplateError) {
        tokens = try Tokenizer(Array(source.utf8)).format()
    }

    /// True when the template names `key` anywhere (playerctl's `contains_key`: `--follow`
    /// with `{{position}}` ticks every second).
    public func contains(_ key: String) -> Bool {
        func has(_ t: Token) -> Bool {
            switch t {
            case .variable(let k): return k == key
            case .function(_, let args): return args.contains(where: has)
            default: return false
            }
        }
        return tokens.contains(where: has)
    }

    /// The template filled in from `context`; an evaluation error (`1 / 0`, `uc()` of two
    /// values) throws with playerctl's message.
    public func expand(_ context: (String) -> PlayerValue?) throws(TemplateError) -> String {
        var out = ""
        for t in tokens {
            if let v = try Self.evaluate(t, context) { out += v.printed }
        }
        return out
    }

    /// `expand` for display paths that have no error to report: an error expands to "".
    public func render(_ context: (String) -> PlayerValue?) -> String {
        (try? expand(context)) ?? ""
    }

    static func evaluate(_ t: Token, _ context: (String) -> PlayerValue?) throws(TemplateError) -> PlayerValue? {
        switch t {
        case .string(let s): return .string(s)
        case .number(let d): return .double(d)
        case .variable(let k): return context(k)
        case .function(let name, let argTokens):
            var args: [PlayerValue?] = []
            for a in argTokens { args.append(try evaluate(a, context)) }
            return try FormatFunctions.call(name, argTokens, args)
        }
    }
}

/// A `--format` template that cannot be read or expanded; `message` is playerctl's.
public struct TemplateError: Error, CustomStringConvertible, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// playerctl's `tokenize_format` / `tokenize_expression`, over the template's bytes.
struct Tokenizer {
    typealias Token = FormatTemplate.Token
    let f: [UInt8]
    init(_ f: [UInt8]) { self.f = f }

    enum Level { case full, nextIdent, multDiv }

    func at(_ i: Int) -> UInt8 { i >= 0 && i < f.count ? f[i] : 0 }

    static func isIdentStart(_ c: UInt8) -> Bool { (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c == 95 }
    static func isIdentChar(_ c: UInt8) -> Bool { isIdentStart(c) || (c >= 48 && c <= 57) || c == 58 }
    static func isNumeric(_ c: UInt8) -> Bool { (c >= 48 && c <= 57) || c == 46 }
    static func text(_ b: [UInt8]) -> String { String(decoding: b, as: UTF8.self) }

    func format() throws(TemplateError) -> [Token] {
        let len = f.count
        if len >= 1028 { throw TemplateError("the maximum format string length is 1028") }
        var tokens: [Token] = []
        var buf: [UInt8] = []
        var i = 0
        while i < len {
            if f[i] == UInt8(ascii: "{"), at(i + 1) == UInt8(ascii: "{") {
                if !buf.isEmpty { tokens.append(.string(Self.text(buf))); buf = [] }
                i += 2
                var end = 0
                tokens.append(try expression(i, &end, .full))
                i = end
                while i < len, f[i] == 32 { i += 1 }
                if i >= len || f[i] != UInt8(ascii: "}") || at(i + 1) != UInt8(ascii: "}") {
                    throw TemplateError("expecting \"}}\" (position \(i))")
                }
                i += 2
            } else {
                buf.append(f[i])
                i += 1
            }
        }
        if !buf.isEmpty { tokens.append(.string(Self.text(buf))) }
        return tokens
    }

    static func infix(_ c: UInt8) -> String { String(UnicodeScalar(c)) }

    // swiftlint:disable:next cyclomatic_complexity function_body_length
    func expression(_ pos: Int, _ end: inout Int, _ level: Level) throws(TemplateError) -> Token {
        let len = f.count
        var buf: [UInt8] = []
        var tok: Token?
        enum State { case expression, identifier, string, number }
        var state = State.expression
        if pos > len - 1 { throw TemplateError("unexpected end of expression") }
        var i = pos
        scan: while i < len {
            let c = f[i]
            switch state {
            case .expression:
                if c == 32 { i += 1; continue }
                if c == UInt8(ascii: "(") {
                    let inner = try expression(i + 1, &end, .full)
                    if end > len - 1 || f[end] != UInt8(ascii: ")") { throw TemplateError("expected \")\" (position  \(end))") }
                    end += 1
                    tok = inner
                    break scan
                } else if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") {
                    let operand = try expression(i + 1, &end, .nextIdent)
                    tok = .function(Self.infix(c), [operand])
                    break scan
                } else if c == UInt8(ascii: "\"") {
                    state = .string
                } else if Self.isNumeric(c) {
                    state = .number
                    buf.append(c)
                } else if !Self.isIdentStart(c) {
                    throw TemplateError("unexpected \"\(Self.text([c]))\", expected expression (position  \(i))")
                } else {
                    state = .identifier
                    buf.append(c)
                }
            case .string:
                if c == UInt8(ascii: "\"") {
                    tok = .string(Self.text(buf))
                    i += 1
                    while i < len, f[i] == 32 { i += 1 }
                    end = i
                    break scan
                }
                buf.append(c)
            case .number:
                if !Self.isNumeric(c) || i == len - 2 {
                    let text = Self.text(buf)
                    guard let number = Double(text), text.first != "." || text.count > 1 else {
                        throw TemplateError("invalid number: \"\(text)\" (position \(i))")
                    }
                    tok = .number(number)
                    while i < len, f[i] == 32 { i += 1 }
                    end = i
                    break scan
                }
                buf.append(c)
            case .identifier:
                if c == UInt8(ascii: "(") {
                    let name = Self.text(buf)
                    var args: [Token] = []
                    i += 1
                    while true {
                        args.append(try expression(i, &end, .full))
                        if args.count > 32 { throw TemplateError("maximum args of 32 exceeded") }
                        while end < len, f[end] == 32 { end += 1 }
                        if at(end) == UInt8(ascii: ")") {
                            end += 1
                            break
                        } else if at(end) == UInt8(ascii: ",") {
                            i = end + 1
                        } else {
                            throw TemplateError("expecting \")\" (position \(end))")
                        }
                    }
                    tok = .function(name, args)
                    break scan
                } else if !Self.isIdentChar(c) {
                    tok = .variable(Self.text(buf))
                    while i < len, f[i] == 32 { i += 1 }
                    end = i
                    break scan
                }
                buf.append(c)
            }
            i += 1
        }
        guard var tok else { throw TemplateError("unexpected end of expression") }
        while end < len, f[end] == 32 { end += 1 }
        if level == .nextIdent || end >= len - 1 { return tok }
        var op = at(end)
        func isMulDiv(_ c: UInt8) -> Bool { c == UInt8(ascii: "*") || c == UInt8(ascii: "/") }
        func isAddSub(_ c: UInt8) -> Bool { c == UInt8(ascii: "+") || c == UInt8(ascii: "-") }
        while isMulDiv(op) || isAddSub(op) {
            while isMulDiv(op) {
                let operand = try expression(end + 1, &end, .nextIdent)
                tok = .function(Self.infix(op), [tok, operand])
                op = at(end)
            }
            if level == .multDiv { return tok }
            if isAddSub(op) {
                let operand = try expression(end + 1, &end, .multDiv)
                tok = .function(Self.infix(op), [tok, operand])
                op = at(end)
            }
        }
        return tok
    }
}
