import PlayerHostBase
import PlayerHostModel

// The wire form of the model's values: the model holds typed values, this edge renders them
// into the JSON value tree that RPC writes.

extension ModelError {
    /// `{code, message, data?}` — a JSON-RPC error object body.
    public func toJSON() -> JSON {
        var o: [String: JSON] = ["code": .int(Int64(code.rawValue)), "message": .string(message)]
        if let detail { o["data"] = detail.toJSON() }
        return .object(o)
    }
}

extension ModelError.Detail {
    /// `data`: each named field under its wire name (a player index under `player`).
    public func toJSON() -> JSON {
        var o: [String: JSON] = [:]
        func put(_ key: String, _ value: String?) { if let value { o[key] = .string(value) } }
        func put(_ key: String, _ value: Int?) { if let value { o[key] = .int(Int64(value)) } }
        func put(_ key: String, _ value: Double?) { if let value { o[key] = .double(value) } }
        put("session", session)
        put("command", command)
        put("player", player)
        put("player", playerIndex)
        put("token", token)
        put("property", property)
        put("field", field)
        put("maxSeconds", maxSeconds)
        put("limit", limit)
        put("value", limitValue)
        put("value", value)
        if let accepted { o["accepted"] = .array(accepted.map { .string($0) }) }
        put("option", option)
        put("driver", driver)
        put("maximum", maximum)
        put("key", key)
        if let keys { o["keys"] = .array(keys.map { .string($0) }) }
        put("use", use)
        put("app", app)
        put("owner", owner)
        put("rate", rate)
        if let supportedPlaybackRates { o["supportedPlaybackRates"] = .array(supportedPlaybackRates.map { .double($0) }) }
        put("volume", volume)
        put("maximumVolume", maximumVolume)
        return .object(o)
    }
}

extension ModelError.Detail {
    /// One field of `data` as the wire has it (`detail["accepted"]`), for readers that go by name.
    public subscript(key: String) -> JSON? { toJSON()[key] }
}
