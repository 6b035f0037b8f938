/// A value read back from a D-Bus message, whatever its type (tests only look at a few).
indirect enum DBusAny: Equatable {
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case bool(Bool)
    case string(String)
    case array([DBusAny])
    case entry(DBusAny, DBusAny)
    case structure([DBusAny])
    case variant(DBusAny)

    /// Through variants.
    var unwrapped: DBusAny {
        if case .variant(let v) = self { return v.unwrapped }
        return self
    }

    var int64: Int64? { if case .int(let i) = unwrapped { return i } else { return nil } }
    var string: String? { if case .string(let s) = unwrapped { return s } else { return nil } }

    /// The value under `key` of an `a{sv}` / `a{s…}`.
    subscript(key: String) -> DBusAny? {
        guard case .array(let entries) = unwrapped else { return nil }
        for case .entry(.string(key), let v) in entries { return v.unwrapped }
        return nil
    }
}
