/// A parsed TOML value (TOML 1.0). Tables keep their keys in the order the file wrote them.
public indirect enum TOMLValue: Sendable, Equatable {
    case string(String)
    case integer(Int64)
    case float(Double)
    case boolean(Bool)
    /// An offset date-time, local date-time, local date or local time, as written (with `T`
    /// between date and time); the configuration has no key of these kinds.
    case dateTime(TOMLDateTime)
    case array([TOMLValue])
    case table(TOMLTable)

    /// The table, if this is one.
    public var table: TOMLTable? {
        if case .table(let t) = self { return t }
        return nil
    }

    /// The elements, if this is an array (of values or of tables).
    public var array: [TOMLValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// "a string", "an integer": how an error names what was found.
    public var kindDescription: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .float: "a float"
        case .boolean: "a boolean"
        case .dateTime: "a date or time"
        case .array: "an array"
        case .table: "a table"
        }
    }
}

/// A TOML date, time or date-time: its kind and its text in RFC 3339 form (`T` between date and
/// time, `Z` upper case), validated but not interpreted.
public struct TOMLDateTime: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case offsetDateTime = "datetime", localDateTime = "datetime-local", localDate = "date-local", localTime = "time-local"
    }
    public var kind: Kind
    public var text: String
}

/// A TOML table: keys in file order, values by key.
public struct TOMLTable: Sendable, Equatable {
    public private(set) var keys: [String] = []
    private var values: [String: TOMLValue] = [:]

    public init() {}

    /// The value at `key`; setting nil removes it.
    public subscript(key: String) -> TOMLValue? {
        get { values[key] }
        set {
            if let newValue {
                if values.updateValue(newValue, forKey: key) == nil { keys.append(key) }
            } else if values.removeValue(forKey: key) != nil {
                keys.removeAll { $0 == key }
            }
        }
    }

    /// Every key with its value, in file order.
    public var entries: [(key: String, value: TOMLValue)] {
        keys.compactMap { k in values[k].map { (k, $0) } }
    }

    public var count: Int { keys.count }
    public var isEmpty: Bool { keys.isEmpty }
}

/// Why a TOML text was refused, with where (1-based line and column).
public struct TOMLParseError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var reason: String

    public var description: String { "\(line):\(column): \(reason)" }
}
