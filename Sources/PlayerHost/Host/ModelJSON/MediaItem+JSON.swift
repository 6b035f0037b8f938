import PlayerHostBase
import PlayerHostModel

// The wire form of the model's values: the model holds typed values, this edge renders them
// into the JSON value tree that RPC writes.

extension MediaItem {
    public func toJSON() -> JSON {
        var o: [String: JSON] = [:]
        if let title { o["title"] = .string(title) }
        if let artist { o["artist"] = .string(artist) }
        if let duration { o["duration"] = .double(duration) }
        if let url { o["url"] = .string(url) }
        if !info.isEmpty { o["info"] = info.toJSON() }
        return .object(o)
    }
}
