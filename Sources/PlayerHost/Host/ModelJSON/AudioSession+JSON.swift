import PlayerHostBase
import PlayerHostModel

// The wire form of the model's values: the model holds typed values, this edge renders them
// into the JSON value tree that RPC writes.

extension AudioSession {
    /// `{category, options, active, mixable, interrupted, interruptedBy, backgroundAudio}`.
    public func toJSON() -> JSON {
        [
            "category": .string(category.rawValue),
            "options": .array(options.sorted().map { .string($0.rawValue) }),
            "active": .bool(isActive),
            "mixable": .bool(isMixable),
            "interrupted": .bool(isInterrupted),
            "interruptedBy": .array(interruptions.sorted().map { .string($0.name) }),
            "backgroundAudio": .bool(backgroundAudio),
        ]
    }
}
