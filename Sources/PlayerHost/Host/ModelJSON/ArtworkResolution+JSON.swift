import PlayerHostBase
import PlayerHostModel

// The wire form of the model's values: the model holds typed values, this edge renders them
// into the JSON value tree that RPC writes.

extension ArtworkImage {
    public func toJSON() -> JSON {
        ["url": .string(url), "width": .int(Int64(width)), "height": .int(Int64(height)),
         "type": .string(type), "from": .string(from.rawValue)]
    }
}
