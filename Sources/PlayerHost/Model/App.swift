import PlayerHostBase

/// An owner of sessions: a connection that said `host.hello`, a plugin, or the host itself.
public struct App: Sendable, Hashable {
    public let id: AppID
    /// The name it gave, as given (an imported MPRIS player's `Identity`: "Fake Player").
    public let name: String
    /// Its freedesktop desktop entry (`org.gnome.Rhythmbox3`, an imported player's `DesktopEntry`).
    public internal(set) var desktopEntry: String?
    /// The connection it lives on; nil for the host and in-process plugins.
    public let client: ClientID?
    /// The session it asked to be active (`becomeActiveIfPossible`); sticky while it exists.
    public internal(set) var preferredSession: SessionID?
    /// Logical time it last started playback (rate 0 → > 0).
    public internal(set) var lastPlaybackStart: UInt64?
    /// Logical time it last took the Now Playing slot.
    public internal(set) var lastHeldSlot: UInt64?
    let order: UInt64
}
