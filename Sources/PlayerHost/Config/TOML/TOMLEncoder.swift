/// Encodes `Encodable` values as TOML text (`playerhostd --print-config`): scalars and arrays of
/// scalars first, then `[tables]` and `[[arrays of tables]]`, nil values left out.
public struct TOMLEncoder {
    public init() {}

    /// The TOML text of `value`, which must encode as a table (a struct).
    public func encode<T: Encodable>(_ value: T) throws -> String {
        let box = TOMLBox()
        try value.encode(to: TOMLValueEncoder(box: box, codingPath: []))
        guard case .table(let table) = box.value() else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "the top level must be a table"))
        }
        var out = ""
        TOMLWriter.write(table, path: [], into: &out)
        return out
    }
}

/// What an encoder is building: a scalar, or a table or array still being filled.
private final class TOMLBox {
    enum Content {
        case empty
        case scalar(TOMLValue)
        case table([(String, TOMLBox)])
        case array([TOMLBox])
    }
    var content = Content.empty

    func value() -> TOMLValue? {
        switch content {
        case .empty: return nil
        case .scalar(let v): return v
        case .table(let entries):
            var t = TOMLTable()
            for (k, box) in entries { if let v = box.value() { t[k] = v } }
            return .table(t)
        case .array(let items): return .array(items.compactMap { $0.value() })
        }
    }

    func child(_ key: String) -> TOMLBox {
        var entries: [(String, TOMLBox)] = []
        if case .table(let e) = content { entries = e }
        if let existing = entries.first(where: { $0.0 == key }) { return existing.1 }
        let box = TOMLBox()
        content = .table(entries + [(key, box)])
        return box
    }

    func append() -> TOMLBox {
        var items: [TOMLBox] = []
        if case .array(let a) = content { items = a }
        let box = TOMLBox()
        content = .array(items + [box])
        return box
    }
}

private struct TOMLValueEncoder: Encoder {
    let box: TOMLBox
    let codingPath: [CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .empty = box.content { box.content = .table([]) }
        return KeyedEncodingContainer(TOMLKeyedEncoder<Key>(box: box, codingPath: codingPath))
    }

    func unkeyedContainer() -> UnkeyedEncodingContainer {
        if case .empty = box.content { box.content = .array([]) }
        return TOMLUnkeyedEncoder(box: box, codingPath: codingPath)
    }

    func singleValueContainer() -> SingleValueEncodingContainer {
        TOMLSingleValueEncoder(box: box, codingPath: codingPath)
    }
}

/// A scalar's TOML value, or nil for a type that encodes itself (structs, arrays).
private func scalar<T: Encodable>(_ value: T) -> TOMLValue? {
    switch value {
    case let v as Bool: .boolean(v)
    case let v as String: .string(v)
    case let v as Double: .float(v)
    case let v as Float: .float(Double(v))
    case let v as Int: .integer(Int64(v))
    case let v as Int64: .integer(v)
    case let v as Int32: .integer(Int64(v))
    case let v as UInt32: .integer(Int64(v))
    case let v as UInt16: .integer(Int64(v))
    case let v as UInt8: .integer(Int64(v))
    case let v as UInt: Int64(exactly: v).map { .integer($0) } ?? .float(Double(v))
    case let v as UInt64: Int64(exactly: v).map { .integer($0) } ?? .float(Double(v))
    default: nil
    }
}

private func encode<T: Encodable>(_ value: T, into box: TOMLBox, path: [CodingKey]) throws {
    if let s = scalar(value) {
        box.content = .scalar(s)
    } else {
        try value.encode(to: TOMLValueEncoder(box: box, codingPath: path))
    }
}

private struct TOMLKeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let box: TOMLBox
    let codingPath: [CodingKey]

    mutating func encodeNil(forKey key: Key) {}

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try PlayerHostConfig.encode(value, into: box.child(key.stringValue), path: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        TOMLValueEncoder(box: box.child(key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> UnkeyedEncodingContainer {
        TOMLValueEncoder(box: box.child(key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> Encoder { TOMLValueEncoder(box: box, codingPath: codingPath) }

    mutating func superEncoder(forKey key: Key) -> Encoder {
        TOMLValueEncoder(box: box.child(key.stringValue), codingPath: codingPath + [key])
    }
}

private struct TOMLUnkeyedEncoder: UnkeyedEncodingContainer {
    let box: TOMLBox
    let codingPath: [CodingKey]
    var count: Int {
        if case .array(let a) = box.content { return a.count }
        return 0
    }

    mutating func encodeNil() throws {}

    mutating func encode<T: Encodable>(_ value: T) throws {
        try PlayerHostConfig.encode(value, into: box.append(), path: codingPath)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        TOMLValueEncoder(box: box.append(), codingPath: codingPath).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> UnkeyedEncodingContainer {
        TOMLValueEncoder(box: box.append(), codingPath: codingPath).unkeyedContainer()
    }

    mutating func superEncoder() -> Encoder { TOMLValueEncoder(box: box.append(), codingPath: codingPath) }
}

private struct TOMLSingleValueEncoder: SingleValueEncodingContainer {
    let box: TOMLBox
    let codingPath: [CodingKey]

    mutating func encodeNil() throws {}

    mutating func encode<T: Encodable>(_ value: T) throws {
        try PlayerHostConfig.encode(value, into: box, path: codingPath)
    }
}
