import PlayerHostBase

/// The documented bound on any time a client sends the model — a position, an interval, a
/// duration, an elapsed time, an ad range — in seconds: `Microseconds.maxSeconds` (10⁹ s).
///
/// Why a bound and not just "finite": each of these ends up as MPRIS microseconds (`Int64`), in
/// a deadline or added to another time, and 1e300 s is finite. Past the bound the request is
/// refused with −32602 (invalidParams: a parameter outside its documented schema) and nothing
/// changes; the callers keep their own finite / non-negative checks and codes.
package enum TimeBound {
    /// Throws `invalidParams` naming `field` when `seconds` is beyond `Microseconds.maxSeconds`
    /// (either sign; callers that need ≥ 0 check that themselves). Returns `seconds`.
    @discardableResult
    package static func check(_ seconds: Double, _ field: String) throws -> Double {
        guard Microseconds.isInBounds(seconds) else { throw ModelError.beyondTimeBound(field) }
        return seconds
    }
}

extension ModelError {
    /// A time beyond `Microseconds.maxSeconds` (−32602, with the field and the limit as data).
    package static func beyondTimeBound(_ field: String) -> ModelError {
        ModelError(.invalidParams, "\(field) must be at most \(Int64(Microseconds.maxSeconds)) seconds",
                   detail: Detail(field: field, maxSeconds: Int(Microseconds.maxSeconds)))
    }
}
