/// Writes a `TOMLTable` as TOML text that `TOMLParser` reads back to the same table.
enum TOMLWriter {
    /// Appends `table` (named by `path`; the root is []) to `out`: its plain keys, then its
    /// sub-tables and arrays of tables under their own headers.
    static func write(_ table: TOMLTable, path: [String], into out: inout String) {
        var nested: [(String, TOMLValue)] = []
        for (key, value) in table.entries {
            if isTable(value) || isArrayOfTables(value) {
                nested.append((key, value))
            } else {
                out += self.key(key) + " = " + inline(value) + "\n"
            }
        }
        for (key, value) in nested {
            let here = path + [key]
            let header = here.map(self.key).joined(separator: ".")
            if case .table(let t) = value {
                out += (out.isEmpty ? "" : "\n") + "[" + header + "]\n"
                write(t, path: here, into: &out)
            } else if case .array(let items) = value {
                for case .table(let t) in items {
                    out += (out.isEmpty ? "" : "\n") + "[[" + header + "]]\n"
                    write(t, path: here, into: &out)
                }
            }
        }
    }

    private static func isTable(_ v: TOMLValue) -> Bool {
        if case .table = v { return true }
        return false
    }

    private static func isArrayOfTables(_ v: TOMLValue) -> Bool {
        guard case .array(let items) = v, !items.isEmpty else { return false }
        return items.allSatisfy(isTable)
    }

    /// A key, bare when it can be, else quoted.
    static func key(_ k: String) -> String {
        let bare = !k.isEmpty && k.utf8.allSatisfy { c in
            (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x5F || c == 0x2D
        }
        return bare ? k : quoted(k)
    }

    /// A value on one line.
    static func inline(_ v: TOMLValue) -> String {
        switch v {
        case .string(let s): return quoted(s)
        case .integer(let i): return String(i)
        case .float(let d):
            if d.isNaN { return "nan" }
            if d.isInfinite { return d < 0 ? "-inf" : "inf" }
            let s = String(d)
            return s.contains(".") || s.contains("e") ? s : s + ".0"
        case .boolean(let b): return b ? "true" : "false"
        case .dateTime(let d): return d.text
        case .array(let items): return "[" + items.map(inline).joined(separator: ", ") + "]"
        case .table(let t): return "{" + t.entries.map { key($0.key) + " = " + inline($0.value) }.joined(separator: ", ") + "}"
        }
    }

    /// A basic string with TOML's escapes.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if u.value < 0x20 || u.value == 0x7F {
                    let hex = String(u.value, radix: 16, uppercase: true)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }
}
