import PlayerHostBase
import PlayerHostModel

// The wire form of the model's values: the model holds typed values, this edge renders them
// into the JSON value tree that RPC writes.

extension CommandCenter {
    /// An array of every command's JSON, in table order.
    public func toJSON() -> JSON {
        .array(RemoteCommandKind.allCases.map { self[$0].toJSON() })
    }
}

extension CommandEvent {
    /// `{command, …payload}`, the params of a `command.handle` request.
    public func toJSON() -> JSON {
        var o = payload.toJSON()
        o["command"] = .string(command.rawValue)
        return .object(o)
    }
}
