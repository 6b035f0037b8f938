import PlayerHostBase
import PlayerHostModel

// The wire form of the model's values: the model holds typed values, this edge renders them
// into the JSON value tree that RPC writes.

extension LocalizedString {
    /// A plain string when only `und` exists; the language object otherwise.
    /// With a `language`, always the resolved plain string.
    public func toJSON(language: String? = nil) -> JSON {
        if language != nil || isPlain { return .string(resolved(for: language)) }
        return .object(values.mapValues { .string($0) })
    }
}
