import PlayerHostBase

/// The user's choices the arbiter follows on top of its rules: the pinned player (`arbiter.pin`,
/// kept in the state file) and `[arbiter] priority` / `ignore` (the config). Each names players
/// as `npctl -p` does: a session id, or an imported player's MPRIS name (`spotify` names the
/// session `mpris-spotify` and `mpris-spotify.instance42`, playerctl's instance matching).
public struct ArbiterPolicy: Sendable, Hashable {
    /// The pinned name; nil when nothing is pinned.
    public var pinned: String?
    /// Names in order of preference: the first outranks the second among playing sessions.
    public var priority: [String]
    /// Names that are never Now Playing and whose audio interrupts no one.
    public var ignore: [String]

    /// Where imported players' session ids start (the MPRIS import names them so).
    public static let importPrefix = "mpris-"

    public init(pinned: String? = nil, priority: [String] = [], ignore: [String] = []) {
        self.pinned = pinned
        self.priority = priority
        self.ignore = ignore
    }

    /// Whether `name` names `session`: its id, or (an imported player) its MPRIS instance, exactly
    /// or as the prefix before a dot.
    public static func names(_ name: String, _ session: SessionID) -> Bool {
        if name.isEmpty { return false }
        if matches(name, session) { return true }
        guard session.hasPrefix(importPrefix) else { return false }
        return matches(name, String(session.dropFirst(importPrefix.count)))
    }

    private static func matches(_ name: String, _ instance: String) -> Bool {
        name == instance || instance.hasPrefix(name + ".")
    }

    /// Whether `[arbiter] ignore` names `session`.
    public func isIgnored(_ session: SessionID) -> Bool { ignore.contains { Self.names($0, session) } }

    /// The `[arbiter] priority` name that ranks `session`, with its rank: the first name of
    /// `n` names ranks `n`, the last 1; nil when none names it (rank 0).
    public func priorityMatch(_ session: SessionID) -> (name: String, rank: UInt64)? {
        guard let i = priority.firstIndex(where: { Self.names($0, session) }) else { return nil }
        return (priority[i], UInt64(priority.count - i))
    }

    /// Whether the pinned name names `session`.
    public func isPinned(_ session: SessionID) -> Bool { pinned.map { Self.names($0, session) } ?? false }
}
