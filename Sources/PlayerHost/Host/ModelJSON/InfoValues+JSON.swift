import PlayerHostBase
import PlayerHostModel

// The wire form of the model's values: the model holds typed values, this edge renders them
// into the JSON value tree that RPC writes.

extension Artwork {
    public func toJSON() -> JSON {
        var o: [String: JSON] = ["id": .string(id), "sources": .array(sources.map { .string($0) })]
        if let width, let height { o["bounds"] = ["width": .double(width), "height": .double(height)] }
        if let image { o["image"] = image.toJSON() }
        return .object(o)
    }
}

extension TimeRange {
    public func toJSON() -> JSON { ["start": .double(start), "end": .double(end)] }
}

extension LanguageOption {
    public func toJSON() -> JSON {
        var o: [String: JSON] = ["languageTag": .string(languageTag), "type": .string(kind.rawValue)]
        if let displayName { o["displayName"] = .string(displayName) }
        if let identifier { o["identifier"] = .string(identifier) }
        return .object(o)
    }
}
