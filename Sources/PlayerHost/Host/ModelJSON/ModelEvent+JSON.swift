import PlayerHostBase
import PlayerHostModel

// The wire form of the model's values: the model holds typed values, this edge renders them
// into the JSON value tree that RPC writes.

extension ModelEvent {
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
            o["volume"] = .double(p.volume.level); o["muted"] = .bool(p.volume.isMuted)
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
