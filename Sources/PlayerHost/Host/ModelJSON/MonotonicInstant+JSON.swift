import PlayerHostBase
import PlayerHostModel

// The wire form of the model's values: the model holds typed values, this edge renders them
// into the JSON value tree that RPC writes.

extension MonotonicInstant {
    /// Seconds as a JSON number, the wire form of every timestamp.
    public func toJSON() -> JSON { .double(seconds) }
}
