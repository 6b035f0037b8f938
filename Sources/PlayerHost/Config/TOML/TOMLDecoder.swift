/// Decodes `Decodable` types from a parsed TOML table (the configuration's structs).
///
/// Integers decode into any integer type that holds them and into floating point; floats only
/// into floating point; a missing key is `keyNotFound` (optionals: `decodeIfPresent` gives nil).
public struct TOMLDecoder {
    public init() {}

    /// Decodes `type` from `table`.
    public func decode<T: Decodable>(_ type: T.Type, from table: TOMLTable) throws -> T {
        try T(from: TOMLValueDecoder(value: .table(table), codingPath: []))
    }
}

private struct TOMLValueDecoder: Decoder {
    let value: TOMLValue
    let codingPath: [CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .table(let t) = value else { throw mismatch([String: Any].self, value, codingPath) }
        return KeyedDecodingContainer(TOMLKeyedContainer<Key>(table: t, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> UnkeyedDecodingContainer {
        guard case .array(let a) = value else { throw mismatch([Any].self, value, codingPath) }
        return TOMLUnkeyedContainer(items: a, codingPath: codingPath)
    }

    func singleValueContainer() throws -> SingleValueDecodingContainer {
        TOMLSingleValue(value: value, codingPath: codingPath)
    }
}

private func mismatch(_ type: Any.Type, _ value: TOMLValue, _ path: [CodingKey]) -> DecodingError {
    .typeMismatch(type, .init(codingPath: path, debugDescription: "found \(value.kindDescription)"))
}

/// An array index as a coding key.
private struct IndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "\(intValue ?? 0)" }
    init(_ i: Int) { intValue = i }
    init?(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

/// Scalars: one implementation for the single-value, keyed and unkeyed containers.
private enum Scalar {
    static func decode<T: Decodable>(_ type: T.Type, _ value: TOMLValue, _ path: [CodingKey]) throws -> T {
        switch type {
        case is Bool.Type:
            guard case .boolean(let b) = value else { throw mismatch(type, value, path) }
            return try cast(b, path)
        case is String.Type:
            guard case .string(let s) = value else { throw mismatch(type, value, path) }
            return try cast(s, path)
        case is Double.Type:
            switch value {
            case .float(let d): return try cast(d, path)
            case .integer(let i): return try cast(Double(i), path)
            default: throw mismatch(type, value, path)
            }
        case is Float.Type:
            switch value {
            case .float(let d): return try cast(Float(d), path)
            case .integer(let i): return try cast(Float(i), path)
            default: throw mismatch(type, value, path)
            }
        case is Int.Type: return try cast(try integer(Int.self, value, path), path)
        case is Int64.Type: return try cast(try integer(Int64.self, value, path), path)
        case is Int32.Type: return try cast(try integer(Int32.self, value, path), path)
        case is Int16.Type: return try cast(try integer(Int16.self, value, path), path)
        case is Int8.Type: return try cast(try integer(Int8.self, value, path), path)
        case is UInt.Type: return try cast(try integer(UInt.self, value, path), path)
        case is UInt64.Type: return try cast(try integer(UInt64.self, value, path), path)
        case is UInt32.Type: return try cast(try integer(UInt32.self, value, path), path)
        case is UInt16.Type: return try cast(try integer(UInt16.self, value, path), path)
        case is UInt8.Type: return try cast(try integer(UInt8.self, value, path), path)
        default:
            return try T(from: TOMLValueDecoder(value: value, codingPath: path))
        }
    }

    /// `v` as `T` (the caller checked the type: never fails in practice, and never traps).
    private static func cast<T>(_ v: Any, _ path: [CodingKey]) throws -> T {
        guard let t = v as? T else { throw DecodingError.typeMismatch(T.self, .init(codingPath: path, debugDescription: "internal")) }
        return t
    }

    static func integer<I: FixedWidthInteger>(_ type: I.Type, _ value: TOMLValue, _ path: [CodingKey]) throws -> I {
        guard case .integer(let i) = value else { throw mismatch(type, value, path) }
        guard let v = I(exactly: i) else {
            throw DecodingError.dataCorrupted(.init(codingPath: path, debugDescription: "\(i) does not fit in \(type)"))
        }
        return v
    }
}

private struct TOMLKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let table: TOMLTable
    let codingPath: [CodingKey]

    var allKeys: [Key] { table.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { table[key.stringValue] != nil }

    private func value(_ key: Key) throws -> TOMLValue {
        guard let v = table[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "missing"))
        }
        return v
    }

    func decodeNil(forKey key: Key) throws -> Bool { table[key.stringValue] == nil }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try Scalar.decode(type, try value(key), codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try TOMLValueDecoder(value: try value(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> UnkeyedDecodingContainer {
        try TOMLValueDecoder(value: try value(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> Decoder { TOMLValueDecoder(value: .table(table), codingPath: codingPath) }

    func superDecoder(forKey key: Key) throws -> Decoder {
        TOMLValueDecoder(value: try value(key), codingPath: codingPath + [key])
    }
}

private struct TOMLUnkeyedContainer: UnkeyedDecodingContainer {
    let items: [TOMLValue]
    let codingPath: [CodingKey]
    var currentIndex = 0

    init(items: [TOMLValue], codingPath: [CodingKey]) {
        self.items = items
        self.codingPath = codingPath
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private mutating func next() throws -> (TOMLValue, [CodingKey]) {
        guard currentIndex < items.count else {
            throw DecodingError.valueNotFound(Any.self, .init(codingPath: codingPath, debugDescription: "no more elements"))
        }
        defer { currentIndex += 1 }
        return (items[currentIndex], codingPath + [IndexKey(currentIndex)])
    }

    mutating func decodeNil() throws -> Bool { false }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (v, path) = try next()
        return try Scalar.decode(type, v, path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (v, path) = try next()
        return try TOMLValueDecoder(value: v, codingPath: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> UnkeyedDecodingContainer {
        let (v, path) = try next()
        return try TOMLValueDecoder(value: v, codingPath: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> Decoder {
        let (v, path) = try next()
        return TOMLValueDecoder(value: v, codingPath: path)
    }
}

private struct TOMLSingleValue: SingleValueDecodingContainer {
    let value: TOMLValue
    let codingPath: [CodingKey]

    func decodeNil() -> Bool { false }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try Scalar.decode(type, value, codingPath)
    }
}
