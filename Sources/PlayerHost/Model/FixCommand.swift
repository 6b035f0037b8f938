/// The fixes `doctor` prints are command lines a person can paste (issue 22): `npctl activate
/// race`, not the protocol's `audio.activate race again`. Where npctl has a verb, the fix uses it;
/// where it has none, it is `npctl call METHOD '{…}'` with the exact parameters. Session ids and
/// other values are quoted for a POSIX shell, so a fix stays one pasteable line whatever they hold.
public enum FixCommand {
    /// `npctl activate ID`: the audio session back, as pressing play in the app would.
    public static func activate(_ session: String) -> String { "npctl activate \(word(session))" }

    /// `npctl call METHOD '{"session":"ID",…}'`; `params` are (name, JSON text) in order.
    public static func call(_ method: String, session: String, _ params: [(String, String)] = []) -> String {
        let fields = [("session", jsonString(session))] + params
        let object = "{" + fields.map { "\(jsonString($0.0)):\($0.1)" }.joined(separator: ",") + "}"
        return "npctl call \(method) \(word(object))"
    }

    /// `s` as one shell word: bare when it holds only characters no shell treats specially,
    /// else single-quoted (a `'` inside written as `'\''`).
    public static func word(_ s: String) -> String {
        let plain = !s.isEmpty && s.unicodeScalars.allSatisfy {
            ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || "-_.,:/@+=%".unicodeScalars.contains($0)
        }
        return plain ? s : quoted(s)
    }

    /// `s` single-quoted for a POSIX shell, a `'` inside written as `'\''`. By scalar, as the
    /// shell reads bytes: a `'` a combining mark follows is one Character that is not "'", and
    /// left alone it would end the quote.
    public static func quoted(_ s: String) -> String {
        var out = "'"
        for u in s.unicodeScalars {
            if u == "'" { out += "'\\''" } else { out.unicodeScalars.append(u) }
        }
        return out + "'"
    }

    /// `s` as a JSON string literal.
    public static func jsonString(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if u.value < 0x20 {
                    let hex = String(u.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }
}
