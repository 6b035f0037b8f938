import PlayerHostBase
import PlayerHostModel

// The wire form of the model's values: the model holds typed values, this edge renders them
// into the JSON value tree that RPC writes.

extension ExternalInvocation {
    /// `{session, token, command, …payload}`.
    public func toJSON() -> JSON {
        var o = event.toJSON().objectValue ?? [:]
        o["session"] = .string(session)
        o["token"] = .int(Int64(token))
        return .object(o)
    }
}

extension CommandOutcome {
    public func toJSON() -> JSON {
        var out: [String: JSON] = ["session": .string(session), "command": .string(command.rawValue), "status": .string(status.name)]
        if let reason { out["reason"] = .string(reason) }
        if let message { out["message"] = .string(message) }
        return .object(out)
    }
}
