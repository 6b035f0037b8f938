import PlayerHostBase
import PlayerHostModel

// The wire form of the model's values: the model holds typed values, this edge renders them
// into the JSON value tree that RPC writes.

extension ModelError {
    /// `{code, message, data?}` — a JSON-RPC error object body.
    public func toJSON() -> JSON {
        var o: [String: JSON] = ["code": .int(Int64(code.rawValue)), "message": .string(message)]
        if let detail { o["data"] = detail }
        return .object(o)
    }
}
