import PlayerHostBase

/// `[arbiter]`: the user's choices among players, on top of the arbiter's rules. Names are
/// players as `npctl -p` names them: a session id, or an imported player's MPRIS name
/// (`spotify`, `mpv` for `mpv.instance42`).
///
/// ```toml
/// [arbiter]
/// priority = ["spotify", "mpv"]  # breaks ties among playing sessions, first wins
/// ignore = ["chromium"]          # imported and reachable with -p, never Now Playing, interrupts no one
/// ```
public struct ArbiterConfig: Codable, Sendable, Equatable {
    /// `priority`: names in order of preference among sessions that are playing.
    public var priority: [String]?
    /// `ignore`: names that are never Now Playing and whose audio interrupts no one.
    public var ignore: [String]?

    /// Names per list (`[arbiter] priority` / `ignore`).
    public static let maxNames = 64
    /// Bytes per name.
    public static let maxNameBytes = 200

    static let schema: [ConfigKey] = [
        ConfigKey("priority", .array(.string)),
        ConfigKey("ignore", .array(.string)),
    ]

    enum CodingKeys: String, CodingKey, CaseIterable {
        case priority
        case ignore
    }

    public init(priority: [String]? = nil, ignore: [String]? = nil) {
        self.priority = priority
        self.ignore = ignore
    }

    /// Refuses empty or over-long names and over-long lists, naming the key (`--check-config`).
    func validate(source: String) throws(ConfigError) {
        for (key, list) in [("priority", priority), ("ignore", ignore)] {
            guard let list else { continue }
            guard list.count <= Self.maxNames else {
                throw .config("\(source): arbiter.\(key) names \(list.count) players; at most \(Self.maxNames)")
            }
            for name in list where name.isEmpty || name.utf8.count > Self.maxNameBytes {
                throw .config("\(source): arbiter.\(key): a name must be 1 to \(Self.maxNameBytes) bytes, not '\(name.prefix(40))'")
            }
        }
    }
}
