/// The tables a TOML document builds while it is parsed, with how each was defined — what
/// TOML's rules about redefinition need to know (a table defined twice, a header on a table
/// dotted keys made, dotted keys into a header's table, appending to a static array).
final class TOMLTree {
    /// How a table came to be.
    enum Origin {
        /// Named on the way to a deeper header (`a` in `[a.b]`): a later `[a]` may define it.
        case implicit
        /// By its own header (`[a]`), or as an element of an array of tables (`[[a]]`).
        case header
        /// By dotted keys (`a.b = 1` makes `a`): never by a header afterwards.
        case dotted
    }

    enum Entry {
        /// A value, inline tables and static arrays included: closed to any later key.
        case value(TOMLValue)
        case table(TOMLTree)
        case arrayOfTables([TOMLTree])
    }

    var origin: Origin
    private(set) var keys: [String] = []
    private var entries: [String: Entry] = [:]

    init(origin: Origin) {
        self.origin = origin
    }

    subscript(key: String) -> Entry? { entries[key] }

    /// Sets `key` (a new key goes last in file order).
    func set(_ key: String, _ entry: Entry) {
        if entries.updateValue(entry, forKey: key) == nil { keys.append(key) }
    }

    /// The finished table, keys in the order the file first wrote them.
    func value() -> TOMLTable {
        var t = TOMLTable()
        for k in keys {
            switch entries[k] {
            case .value(let v)?: t[k] = v
            case .table(let sub)?: t[k] = .table(sub.value())
            case .arrayOfTables(let subs)?: t[k] = .array(subs.map { .table($0.value()) })
            case nil: break
            }
        }
        return t
    }
}
