import PlayerHostBase

/// `session.becomeActiveIfPossible`'s answer: `{active, reason?}`.
public struct BecomeActiveResult: Sendable, Hashable {
    public var active: Bool
    public var reason: String?
}
