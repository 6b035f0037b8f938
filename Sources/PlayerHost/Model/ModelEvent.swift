import PlayerHostBase

/// Why the Now Playing slot changed hands.
public enum NowPlayingChangeReason: String, Sendable, Hashable, CaseIterable {
    /// An app with an eligible active session started playback more recently than the holder.
    case playbackStarted
    /// The holder app promoted another of its sessions (`becomeActiveIfPossible`).
    case promoted
    /// The holder app's active session changed by itself (its preferred one became ineligible…).
    case activeSessionChanged
    /// The Now Playing session was closed.
    case closed
    /// The Now Playing session's app disconnected.
    case appDisconnected
    /// The Now Playing session stopped being eligible.
    case ineligible
    /// The slot was empty and an eligible session appeared.
    case eligible
    /// The pinned session took the slot (`arbiter.pin`, or it became eligible while pinned).
    case pinned
}

/// Why a session went away.
public enum SessionCloseReason: String, Sendable, Hashable {
    case closed, appDisconnected
}

/// A state change the host can publish. Every change the model makes produces one.
///
/// Per-session state (audio, commands, players, eligibility, active, info) is diffed against
/// what was last published after each operation, so an operation that changes nothing emits
/// nothing, and no event ever occurs between key moments.
public enum ModelEvent: Sendable, Hashable {
    case appRegistered(App)
    case appRemoved(AppID)
    case sessionCreated(SessionID)
    case sessionClosed(SessionID, reason: SessionCloseReason)
    /// A background-audio session outlived its app and now belongs to the host.
    case sessionOwnerChanged(SessionID, from: AppID, to: AppID)
    case activeChanged(SessionID, isActive: Bool)
    case canBecomeActiveChanged(SessionID, canBecomeActive: Bool)
    case nowPlayingChanged(from: SessionID?, to: SessionID?, reason: NowPlayingChangeReason)
    /// The session's published info (re-anchored at a key moment, or its metadata changed).
    case infoChanged(SessionID, PublishedInfo)
    case commandChanged(SessionID, RemoteCommand)
    case audioChanged(SessionID, AudioSession)
    case interruptionBegan(SessionID, source: InterruptionSource)
    case interruptionEnded(SessionID, shouldResume: Bool)
    /// A player's state at a key moment (its elapsed is as of its anchor).
    case playerChanged(SessionID, index: Int, Player)
    /// A sent command finished running through its targets.
    case commandHandled(CommandOutcome)

    /// The session it concerns, if any.
    public var session: SessionID? {
        switch self {
        case .sessionCreated(let s), .sessionClosed(let s, _), .sessionOwnerChanged(let s, _, _),
            .activeChanged(let s, _), .canBecomeActiveChanged(let s, _), .infoChanged(let s, _),
            .commandChanged(let s, _), .audioChanged(let s, _), .interruptionBegan(let s, _),
            .interruptionEnded(let s, _), .playerChanged(let s, _, _):
            return s
        case .nowPlayingChanged(_, let to, _): return to
        case .commandHandled(let o): return o.session
        case .appRegistered, .appRemoved: return nil
        }
    }
}
