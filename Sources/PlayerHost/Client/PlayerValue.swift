import Glibc
import PlayerHostBase

/// A value as playerctl sees it: a D-Bus variant (the MPRIS property types) printed the way
/// playerctl prints it (`pctl_print_gvariant`), so npctl's output is byte-identical.
public enum PlayerValue: Sendable, Equatable {
    case string(String)
    case strings([String])
    case objectPath(String)
    case int64(Int64)
    case double(Double)
    case boolean(Bool)

    /// playerctl's text: a string bare, a string list joined with `, `, anything else as
    /// `g_variant_print` without type annotations (`'/org/…'`, `true`, `0.5`, `1.0`).
    public var printed: String {
        switch self {
        case .string(let s): return s
        case .strings(let list): return list.joined(separator: ", ")
        case .objectPath(let p): return Self.quoted(p)
        case .int64(let i): return String(i)
        case .boolean(let b): return b ? "true" : "false"
        case .double(let d): return Self.gvariantDouble(d)
        }
    }

    /// The values the metadata table prints one per row: a list's elements, else the value.
    public var rows: [String] {
        if case .strings(let list) = self { return list }
        return [printed]
    }

    public var isNumeric: Bool {
        switch self {
        case .int64, .double: return true
        default: return false
        }
    }

    public var doubleValue: Double? {
        switch self {
        case .int64(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    /// The GVariant type string, for playerctl's operand errors (`'s'`, `'x'`, …).
    public var typeString: String {
        switch self {
        case .string: return "s"
        case .strings: return "as"
        case .objectPath: return "o"
        case .int64: return "x"
        case .double: return "d"
        case .boolean: return "b"
        }
    }

    /// `g_ascii_dtostr` (`%.17g`), with `.0` added when it reads as an integer.
    static func gvariantDouble(_ d: Double) -> String {
        var s = CFormat.format("%.17g", d)
        if !s.contains(where: { $0 == "." || $0 == "e" || $0 == "n" || $0 == "N" }) { s += ".0" }
        return s
    }

    /// `g_variant_print`'s string quoting: single quotes unless the text has one.
    static func quoted(_ s: String) -> String {
        let q: Character = s.contains("'") && !s.contains("\"") ? "\"" : "'"
        var out = String(q)
        for c in s {
            if c == q || c == "\\" { out.append("\\") }
            out.append(c)
        }
        out.append(q)
        return out
    }

    /// A JSON value from the daemon as a variant: whole numbers as int64, lists of strings as
    /// `as`. Nil for null and for shapes MPRIS has no type for.
    public init?(json: JSON) {
        switch json {
        case .string(let s): self = .string(s)
        case .int(let i): self = .int64(i)
        case .double(let d): self = .double(d)
        case .bool(let b): self = .boolean(b)
        case .array(let a):
            let strings = a.compactMap(\.stringValue)
            guard strings.count == a.count else { return nil }
            self = .strings(strings)
        default: return nil
        }
    }
}

/// C's printf for one double (`%f`, `%.17g`): what playerctl prints, digit for digit.
public enum CFormat {
    public static func format(_ spec: String, _ x: Double) -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        let n = withVaList([x]) { vsnprintf(&buffer, buffer.count, spec, $0) }
        guard n >= 0 else { return "" }
        return String(cBuffer: buffer)
    }
}
