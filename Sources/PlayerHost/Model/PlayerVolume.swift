import PlayerHostBase

/// A player's loudness, player state like its rate: a level and a mute that silences without
/// forgetting the level (unmuting brings the level back).
///
/// The level is a linear factor: 0 silent, 1 the media as recorded, above 1 amplified, up to
/// `maximum` (an engine such as mpv amplifies to 130 % by default). How far a session lets its
/// remotes go is `changeVolume`'s `maximumVolume` (1 unless its driver says more); a report of
/// the engine's own level (`player.sync`) may be anywhere in `0...maximum`.
///
/// Apple's model has no volume (the system mixer owns it); MPRIS players have one, and remotes
/// that speak MPRIS expect it, so a session's volume is its player 0's (`PublishedInfo.volume`).
public struct PlayerVolume: Sendable, Hashable {
    /// The largest level any player may have (150 %).
    public static let maximum = 1.5

    /// `0...maximum`; 1 by default.
    public internal(set) var level: Double = 1
    public internal(set) var isMuted = false

    public init() {}

    /// A volume after checking `level` (`invalidArgument` naming `field` outside `0...maximum`).
    public init(level: Double, isMuted: Bool = false, field: String = "volume") throws {
        self.level = try Self.check(level, upTo: Self.maximum, field: field)
        self.isMuted = isMuted
    }

    /// What is heard: 0 while muted, else the level (what MPRIS `Volume` shows).
    public var effective: Double { isMuted ? 0 : level }

    /// The same volume with `level` and/or `muted` changed (nil: kept), `level` checked against
    /// `limit` (itself at most `maximum`). Throws, changing nothing, on a level outside it.
    func setting(level newLevel: Double?, muted: Bool?, upTo limit: Double = maximum, field: String = "volume") throws -> PlayerVolume {
        var v = self
        if let newLevel { v.level = try Self.check(newLevel, upTo: min(limit, Self.maximum), field: field) }
        if let muted { v.isMuted = muted }
        return v
    }

    /// Whether `level` is a finite number in `0...limit`.
    static func isWithin(_ level: Double, upTo limit: Double) -> Bool {
        level.isFinite && level >= 0 && level <= limit
    }

    /// `level` when it is a finite number in `0...limit`, else `invalidArgument` naming `field`.
    @discardableResult
    static func check(_ level: Double, upTo limit: Double, field: String) throws -> Double {
        guard isWithin(level, upTo: limit) else {
            throw ModelError.invalid("\(field) must be a number from 0 to \(limit)",
                                     ModelError.Detail(field: field, maximum: limit))
        }
        return level
    }
}
