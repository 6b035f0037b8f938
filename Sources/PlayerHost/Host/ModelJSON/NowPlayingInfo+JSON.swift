import PlayerHostBase
import PlayerHostModel

// The wire form of the model's values: the model holds typed values, this edge renders them
// into the JSON value tree that RPC writes.

extension InfoValue {
    /// The wire form; localized strings resolve when a `language` is given.
    public func toJSON(language: String? = nil) -> JSON {
        switch self {
        case .text(let s): return s.toJSON(language: language)
        case .integer(let i): return .int(Int64(i))
        case .number(let d): return .double(d)
        case .flag(let b): return .bool(b)
        case .mediaType(let m): return .string(m.rawValue)
        case .artwork(let a): return a.toJSON()
        case .timeRanges(let r): return .array(r.map { $0.toJSON() })
        case .languageOptions(let l): return .array(l.map { $0.toJSON() })
        case .extra(let o): return .object(o)
        }
    }
}

extension NowPlayingInfo {
    /// The wire object; localized strings resolve when a `language` is given.
    public func toJSON(language: String? = nil) -> JSON {
        .object(Dictionary(uniqueKeysWithValues: values.map { ($0.key.rawValue, $0.value.toJSON(language: language)) }))
    }
}
