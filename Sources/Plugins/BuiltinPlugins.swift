import PlayerHost

/// Every plugin compiled into playerhostd, in one place. Each speaks the same protocol an
/// out-of-process plugin does (over a socketpair), so any of them could run as its own process.
public enum BuiltinPlugins {
    public static func all(config: HostConfig) -> [SessionPlugin] {
        var list: [SessionPlugin] = []
        if !config.sessions.isEmpty {
            list.append(ClockSessionsPlugin(sessions: config.sessions))
        }
        return list
    }
}
