import PlayerHostBase

/// playerctl's template helpers and operators, with its rules and its messages: `lc uc
/// duration markup_escape default emoji trunc` and `+ - * /` (int64 arithmetic when both
/// sides are int64, checked for overflow; doubles otherwise).
enum FormatFunctions {
    typealias Token = FormatTemplate.Token

    static func call(_ name: String, _ tokens: [Token], _ args: [PlayerValue?]) throws(TemplateError) -> PlayerValue? {
        func one(_ label: String = name) throws(TemplateError) -> PlayerValue? {
            guard args.count == 1 else { throw TemplateError("function \(label) takes exactly one argument (got \(args.count))") }
            return args[0]
        }
        switch name {
        case "lc":
            guard let v = try one() else { return .string("") }
            return .string(v.printed.lowercased())
        case "uc":
            guard let v = try one() else { return .string("") }
            return .string(v.printed.uppercased())
        case "duration":
            // playerctl's message names uc here (a copy-paste in its source), kept for byte-equality.
            guard let v = try one("uc") else { return .string("") }
            let micros: Int64
            switch v {
            case .int64(let i): micros = i
            case .double(let d): micros = d.isFinite ? Int64(max(-9.2e18, min(9.2e18, d))) : 0
            default: throw TemplateError("function duration can only be called on track position values")
            }
            return .string(duration(micros))
        case "markup_escape":
            guard let v = try one() else { return .string("") }
            return .string(markupEscape(v.printed))
        case "default":
            guard args.count == 2 else { throw TemplateError("function default takes exactly two arguments (got \(args.count))") }
            guard let first = args[0] else { return args[1] }
            if case .string(let s) = first, s.isEmpty { return args[1] }
            return first
        case "emoji":
            guard let v = try one() else { return .string("") }
            guard case .variable(let key)? = tokens.first else {
                throw TemplateError("the emoji function can only be called with a variable")
            }
            if key == "status", case .string(let s) = v {
                switch s {
                case "Playing": return .string("▶️")
                case "Stopped": return .string("⏹️")
                case "Paused": return .string("⏸️")
                default: break
                }
            } else if key == "volume", case .double(let level) = v {
                return .string(level < 0.3333 ? "🔈" : level < 0.6666 ? "🔉" : "🔊")
            }
            return v
        case "trunc":
            guard args.count == 2 else { throw TemplateError("function trunc takes exactly two arguments (got \(args.count))") }
            guard let v = args[0], let n = args[1] else { return .string("") }
            guard case .double(let length) = n else {
                throw TemplateError("function trunc's length parameter can only be called with an int")
            }
            let scalars = Array(v.printed.unicodeScalars)
            let keep = length.isFinite ? Int(max(0, min(Double(scalars.count), length))) : 0
            var out = String(String.UnicodeScalarView(scalars.prefix(keep)))
            if keep < scalars.count { out += "…" }
            return .string(out)
        case "+", "-", "*", "/":
            return try arithmetic(name, args)
        default:
            throw TemplateError("unknown template function: \(name)")
        }
    }

    /// `m:ss`, or `h:mm:ss` from an hour, from microseconds (C's truncating division).
    static func duration(_ micros: Int64) -> String {
        let seconds = (micros / 1_000_000) % 60
        let minutes = (micros / 1_000_000 / 60) % 60
        let hours = micros / 1_000_000 / 60 / 60
        func two(_ n: Int64) -> String { n >= 0 && n < 10 ? "0\(n)" : "\(n)" }
        return hours != 0 ? "\(hours):\(two(minutes)):\(two(seconds))" : "\(minutes):\(two(seconds))"
    }

    /// `g_markup_escape_text`.
    static func markupEscape(_ s: String) -> String {
        var out = ""
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "'": out += "&apos;"
            case "\"": out += "&quot;"
            default:
                let v = c.value
                if (v >= 0x1 && v <= 0x8) || (v >= 0xb && v <= 0xc) || (v >= 0xe && v <= 0x1f) || (v >= 0x7f && v <= 0x84) || (v >= 0x86 && v <= 0x9f) {
                    out += "&#x" + String(v, radix: 16) + ";"
                } else {
                    out.unicodeScalars.append(c)
                }
            }
        }
        return out
    }

    static func arithmetic(_ op: String, _ args: [PlayerValue?]) throws(TemplateError) -> PlayerValue? {
        if args.count == 1 {
            let v = args[0]
            if op == "+" {
                guard let v, v.isNumeric else { throw TemplateError("Got unsupported operand type for unary +: '\(v?.typeString ?? "(null)")'") }
                return v
            }
            switch v {
            case .int64(let i)?: return .int64(0 &- i)
            case .double(let d)?: return .double(-d)
            default: throw TemplateError("Got unsupported operand type for unary -: '\(v?.typeString ?? "(null)")'")
            }
        }
        let names = ["+": "Addition", "-": "Subtraction", "*": "Multiplication", "/": "Division"]
        guard args.count == 2 else {
            throw TemplateError("\(names[op] ?? op) takes two arguments (got \(args.count)). This is a bug in Playerctl.")
        }
        if op == "+" || op == "-", args[0] == nil || args[1] == nil {
            throw TemplateError("Got unsupported operand type for \(op): NULL")
        }
        guard let a = args[0], let b = args[1], a.isNumeric, b.isNumeric else {
            throw TemplateError("Got unsupported operand types for \(op): '\(args[0]?.typeString ?? "(null)")' and '\(args[1]?.typeString ?? "(null)")'")
        }
        if case .int64(let x) = a, case .int64(let y) = b {
            switch op {
            case "+":
                let (r, o) = x.addingReportingOverflow(y)
                if o { throw TemplateError("Numeric overflow detected") }
                return .int64(r)
            case "-":
                let (r, o) = x.subtractingReportingOverflow(y)
                if o { throw TemplateError("Numeric overflow detected") }
                return .int64(r)
            case "*":
                let (r, o) = x.multipliedReportingOverflow(by: y)
                if o { throw TemplateError("Numeric overflow detected") }
                return .int64(r)
            default:
                if y == 0 { throw TemplateError("Divide by zero error") }
                let (r, o) = x.dividedReportingOverflow(by: y)
                if o { throw TemplateError("Numeric overflow detected") }
                return .int64(r)
            }
        }
        let x = a.doubleValue ?? 0, y = b.doubleValue ?? 0
        switch op {
        case "+": return .double(x + y)
        case "-": return .double(x - y)
        case "*": return .double(x * y)
        default:
            if y == 0 { throw TemplateError("Divide by zero error") }
            return .double(x / y)
        }
    }
}
