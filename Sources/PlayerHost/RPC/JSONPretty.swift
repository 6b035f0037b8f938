import PlayerHostBase

/// Indented JSON for people (npctl's output); the wire always uses the compact writer.
public enum JSONPretty {
    public static func format(_ value: JSON, indent: String = "  ") -> String {
        var out = ""
        write(value, level: 0, indent: indent, into: &out)
        return out
    }

    private static func write(_ value: JSON, level: Int, indent: String, into out: inout String) {
        let pad = String(repeating: indent, count: level)
        let inner = pad + indent
        switch value {
        case .array(let a) where !a.isEmpty:
            out += "[\n"
            for (i, v) in a.enumerated() {
                out += inner
                write(v, level: level + 1, indent: indent, into: &out)
                out += i < a.count - 1 ? ",\n" : "\n"
            }
            out += pad + "]"
        case .object(let o) where !o.isEmpty:
            out += "{\n"
            let keys = o.keys.sorted()
            for (i, k) in keys.enumerated() {
                out += inner + JSON.string(k).jsonString + ": "
                write(o[k]!, level: level + 1, indent: indent, into: &out)
                out += i < keys.count - 1 ? ",\n" : "\n"
            }
            out += pad + "}"
        default:
            out += value.jsonString
        }
    }
}
