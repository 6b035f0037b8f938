import PlayerHostBase
import PlayerHostModel

// The wire form of the model's values: the model holds typed values, this edge renders them
// into the JSON value tree that RPC writes.

extension CommandConfiguration {
    func toJSON(for kind: RemoteCommandKind) -> [String: JSON] {
        switch kind {
        case .skipForward, .skipBackward: return ["preferredIntervals": .array(preferredIntervals.map { .double($0) })]
        case .changePlaybackRate: return ["supportedPlaybackRates": .array(supportedPlaybackRates.map { .double($0) })]
        case .changeRepeatMode: return ["currentRepeatType": .string(currentRepeatType.rawValue)]
        case .changeShuffleMode: return ["currentShuffleType": .string(currentShuffleType.rawValue)]
        case .changeVolume: return ["maximumVolume": .double(maximumVolume)]
        case .rating: return ["minimumRating": .double(minimumRating), "maximumRating": .double(maximumRating)]
        case .like, .dislike, .bookmark: return ["isActive": .bool(isActive), "localizedTitle": .string(localizedTitle)]
        default: return [:]
        }
    }
}

extension CommandTarget {
    public func toJSON() -> JSON {
        switch handler {
        case .players(let p):
            return ["token": .int(Int64(token)), "kind": "builtin", "players": .array(p.map { .int(Int64($0)) })]
        case .external(let c):
            return ["token": .int(Int64(token)), "kind": "external", "client": .int(Int64(bitPattern: c))]
        }
    }
}

extension RemoteCommand {
    /// `{command, isEnabled, isAvailable, targets, …configuration}`.
    public func toJSON() -> JSON {
        var o = configuration.toJSON(for: kind)
        o["command"] = .string(kind.rawValue)
        o["isEnabled"] = .bool(isEnabled)
        o["isAvailable"] = .bool(isAvailable)
        o["targets"] = .array(targets.map { $0.toJSON() })
        return .object(o)
    }
}
