import PlayerHostBase
import PlayerHostModel

// The wire form of the model's values: the model holds typed values, this edge renders them
// into the JSON value tree that RPC writes.

extension Eligibility {
    /// `{eligible, reasons}`.
    public func toJSON() -> JSON {
        ["eligible": .bool(isEligible), "reasons": .array(reasons.map { .string($0) })]
    }
}
