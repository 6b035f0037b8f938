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

    /// The `events.subscribe` topic it belongs to.
    public var topic: String {
        switch self {
        case .appRegistered, .appRemoved, .sessionCreated, .sessionClosed, .sessionOwnerChanged,
            .activeChanged, .canBecomeActiveChanged:
            return "sessions"
        case .nowPlayingChanged: return "nowPlaying"
        case .infoChanged: return "info"
        case .commandChanged, .commandHandled: return "commands"
        case .audioChanged, .interruptionBegan, .interruptionEnded: return "audio"
        case .playerChanged: return "players"
        }
    }

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

    /// `{topic, type, …}`: the params of an `event` notification.
    public func toJSON() -> JSON {
        var o: [String: JSON] = ["topic": .string(topic)]
        func opt(_ s: SessionID?) -> JSON { s.map { .string($0) } ?? .null }
        switch self {
        case .appRegistered(let a):
            o["type"] = "appRegistered"; o["app"] = a.toJSON()
        case .appRemoved(let a):
            o["type"] = "appRemoved"; o["app"] = .string(a)
        case .sessionCreated(let s):
            o["type"] = "sessionCreated"; o["session"] = .string(s)
        case .sessionClosed(let s, let r):
            o["type"] = "sessionClosed"; o["session"] = .string(s); o["reason"] = .string(r.rawValue)
        case .sessionOwnerChanged(let s, let from, let to):
            o["type"] = "sessionOwnerChanged"; o["session"] = .string(s); o["from"] = .string(from); o["to"] = .string(to)
        case .activeChanged(let s, let a):
            o["type"] = "activeChanged"; o["session"] = .string(s); o["isActive"] = .bool(a)
        case .canBecomeActiveChanged(let s, let c):
            o["type"] = "canBecomeActiveChanged"; o["session"] = .string(s); o["canBecomeActive"] = .bool(c)
        case .nowPlayingChanged(let from, let to, let r):
            o["type"] = "nowPlayingChanged"; o["from"] = opt(from); o["to"] = opt(to); o["reason"] = .string(r.rawValue)
        case .infoChanged(let s, let p):
            o["type"] = "infoChanged"; o["session"] = .string(s)
            o["info"] = p.info.toJSON(); o["playbackState"] = .string(p.playbackState.rawValue)
            o["timestamp"] = p.timestamp.toJSON()
        case .commandChanged(let s, let c):
            o["type"] = "commandChanged"; o["session"] = .string(s); o["command"] = c.toJSON()
        case .audioChanged(let s, let a):
            o["type"] = "audioChanged"; o["session"] = .string(s); o["audio"] = a.toJSON()
        case .interruptionBegan(let s, let src):
            o["type"] = "interruption"; o["session"] = .string(s); o["interruption"] = "began"
            o["source"] = .string(src.name)
        case .interruptionEnded(let s, let resume):
            o["type"] = "interruption"; o["session"] = .string(s); o["interruption"] = "ended"
            o["shouldResume"] = .bool(resume)
        case .playerChanged(let s, let i, let p):
            o["type"] = "playerChanged"; o["session"] = .string(s); o["index"] = .int(Int64(i))
            o["player"] = p.toJSON(now: p.timeline.anchorTime)
        case .commandHandled(let out):
            o["type"] = "commandHandled"; o["session"] = .string(out.session)
            o["command"] = .string(out.command.rawValue); o["status"] = .string(out.status.name)
        }
        return .object(o)
    }
}

/// Something the host must do that needs I/O.
public enum HostAction: Sendable, Hashable {
    /// Send a `command.handle` request; answer with `resumeCommand`.
    case invokeExternalTarget(ExternalInvocation)
    /// `nextDeadline` changed: re-arm (or, for nil, cancel) the one-shot timer, then call
    /// `advance(to:)` when it fires.
    case rearmTimer(MonotonicInstant?)
}

/// What an operation returns: its value, the events to publish and the host's actions.
public struct ModelResult<Value: Sendable>: Sendable {
    public var value: Value
    public var events: [ModelEvent]
    public var actions: [HostAction]
}

extension ModelResult: Equatable where Value: Equatable {}
