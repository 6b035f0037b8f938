/// A session id, unique per host (`main`, `pip`, `view-2`, …).
public typealias SessionID = String
/// An app id: `host` for the host itself, otherwise assigned at registration.
public typealias AppID = String
/// A player id, unique per host (`main.0`, `view.3`, …).
public typealias PlayerID = String
/// The host's id for one connection; external command targets and apps belong to one.
public typealias ClientID = UInt64

/// Who asks for an operation where ownership matters.
public enum Caller: Sendable, Hashable {
    /// The host itself, configuration, an in-process plugin acting for the host: may do anything.
    case host
    /// A connection; it acts as its app if it said `host.hello`, otherwise as the host.
    case client(ClientID)
    /// An in-process plugin acting as the app it registered.
    case app(AppID)
}

/// A deterministic pseudo-random generator (SplitMix64), so shuffles are pure and replayable.
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
