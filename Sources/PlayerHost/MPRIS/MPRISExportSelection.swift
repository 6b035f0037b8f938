import PlayerHostModel

/// What the MPRIS export shows (`[mpris] export`).
public enum MPRISExportMode: String, Sendable, Hashable, CaseIterable {
    /// The host's own sessions (mpv, plugins, configured sessions, a client's): the one that is
    /// Now Playing, or the one that was most recently while an imported player holds the slot.
    /// Never an imported player: it already has a card of its own on the bus, and a mirror of it
    /// makes every desktop shell, `playerctl -l` and KDE Connect show it twice. The default.
    case own
    /// Whatever is Now Playing, imported players included: one proxy player, like playerctld.
    case nowPlaying = "now-playing"

    /// The mode a config value names (nil: not one of them).
    public init?(configValue: String) { self.init(rawValue: configValue) }
}

/// Which session the export shows: a pure choice from the Now Playing session and what the
/// model holds, remembering the host's own sessions that held the slot (most recent last) so
/// that an imported player taking the slot leaves the export on the last own one.
///
/// The memory is bounded (`memory` entries): it only needs the most recent own session still
/// open, and a few behind it for when that one closes.
public struct MPRISExportSelection: Sendable, Hashable {
    public var mode: MPRISExportMode
    /// Own sessions that held the slot, oldest first, each once.
    public private(set) var recent: [SessionID] = []
    /// How many own sessions are remembered.
    public static let memory = 32
    /// The kind the import plugin gives the sessions it makes for desktop players.
    public static let importedKind = SessionKind.plugin("mpris")

    public init(mode: MPRISExportMode = .own) {
        self.mode = mode
    }

    /// Whether a session mirrors a desktop MPRIS player (made by the import plugin: kind `mpris`,
    /// driven externally).
    public static func isImported(_ session: Session) -> Bool {
        session.kind == importedKind && session.driver == .external
    }

    /// The session the export shows when `nowPlaying` holds the slot (nil: nobody does):
    ///
    /// - `now-playing`: that session.
    /// - `own`: that session when it is the host's own (and it is remembered); when an imported
    ///   player holds the slot, the own session that held it most recently and is still open;
    ///   nil when the slot is empty (Stopped, no track: shells hide the card) or no own session
    ///   ever held it.
    public mutating func choose(nowPlaying: SessionID?, sessions: (SessionID) -> Session?) -> SessionID? {
        guard mode == .own else { return nowPlaying }
        guard let id = nowPlaying, let session = sessions(id) else { return nil }
        if !Self.isImported(session) {
            remember(id)
            return id
        }
        recent.removeAll { sessions($0) == nil }
        return recent.last
    }

    /// Forgets a session (closed).
    public mutating func forget(_ id: SessionID) {
        recent.removeAll { $0 == id }
    }

    private mutating func remember(_ id: SessionID) {
        if recent.last == id { return }
        recent.removeAll { $0 == id }
        recent.append(id)
        if recent.count > Self.memory { recent.removeFirst(recent.count - Self.memory) }
    }
}
