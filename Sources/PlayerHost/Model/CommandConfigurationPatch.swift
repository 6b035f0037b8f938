import PlayerHostBase

/// `command.configure`'s properties, typed: each set field replaces the command's value.
///
/// The host decodes the wire's object into this (Host/ModelJSON/CommandConfigurationPatch+Decoding.swift);
/// `CommandConfiguration.applying` checks that the command has each property and its value.
public struct CommandConfigurationPatch: Sendable, Hashable {
    public var preferredIntervals: [Double]?
    public var supportedPlaybackRates: [Double]?
    public var currentRepeatType: RepeatMode?
    public var currentShuffleType: ShuffleMode?
    public var maximumVolume: Double?
    public var minimumRating: Double?
    public var maximumRating: Double?
    public var isActive: Bool?
    public var localizedTitle: String?

    public init(preferredIntervals: [Double]? = nil, supportedPlaybackRates: [Double]? = nil,
                currentRepeatType: RepeatMode? = nil, currentShuffleType: ShuffleMode? = nil,
                maximumVolume: Double? = nil, minimumRating: Double? = nil, maximumRating: Double? = nil,
                isActive: Bool? = nil, localizedTitle: String? = nil) {
        self.preferredIntervals = preferredIntervals
        self.supportedPlaybackRates = supportedPlaybackRates
        self.currentRepeatType = currentRepeatType
        self.currentShuffleType = currentShuffleType
        self.maximumVolume = maximumVolume
        self.minimumRating = minimumRating
        self.maximumRating = maximumRating
        self.isActive = isActive
        self.localizedTitle = localizedTitle
    }

    /// The wire names of the properties this patch sets (`RemoteCommandKind.configurationKeys`' names).
    public var keys: [String] {
        var out: [String] = []
        if preferredIntervals != nil { out.append("preferredIntervals") }
        if supportedPlaybackRates != nil { out.append("supportedPlaybackRates") }
        if currentRepeatType != nil { out.append("currentRepeatType") }
        if currentShuffleType != nil { out.append("currentShuffleType") }
        if maximumVolume != nil { out.append("maximumVolume") }
        if minimumRating != nil { out.append("minimumRating") }
        if maximumRating != nil { out.append("maximumRating") }
        if isActive != nil { out.append("isActive") }
        if localizedTitle != nil { out.append("localizedTitle") }
        return out
    }

    /// The patch that restores `c` for `kind` (its properties that differ from the defaults,
    /// and the ones that are always written): what a snapshot replays through `configureCommand`.
    public init(restoring c: CommandConfiguration, for kind: RemoteCommandKind) {
        self.init()
        let defaults = CommandConfiguration()
        for key in kind.configurationKeys {
            switch key {
            case "preferredIntervals" where c.preferredIntervals != defaults.preferredIntervals:
                preferredIntervals = c.preferredIntervals
            case "supportedPlaybackRates" where c.supportedPlaybackRates != defaults.supportedPlaybackRates:
                supportedPlaybackRates = c.supportedPlaybackRates
            case "maximumVolume" where c.maximumVolume != defaults.maximumVolume: maximumVolume = c.maximumVolume
            case "currentRepeatType": currentRepeatType = c.currentRepeatType
            case "currentShuffleType": currentShuffleType = c.currentShuffleType
            case "minimumRating": minimumRating = c.minimumRating
            case "maximumRating": maximumRating = c.maximumRating
            case "isActive": isActive = c.isActive
            case "localizedTitle": localizedTitle = c.localizedTitle
            default: break
            }
        }
    }

    /// Whether it sets nothing.
    public var isEmpty: Bool { keys.isEmpty }
}

extension ModelError {
    /// A property `kind` does not have (`invalidArgument`, with the command and the property).
    package static func noSuchProperty(_ kind: RemoteCommandKind, _ key: String) -> ModelError {
        let allowed = kind.configurationKeys
        let list = allowed.isEmpty ? "nothing" : allowed.joined(separator: ", ")
        return ModelError.invalid("\(kind.rawValue) has no property '\(key)' (it accepts \(list))",
                                  ModelError.Detail(command: kind.rawValue, property: key))
    }
}

extension CommandConfiguration {
    /// An interval or rate of `preferredIntervals`/`supportedPlaybackRates`: a number > 0 within
    /// the time bound (shared with the host's decoder, which checks in the wire's order).
    package static func checkedPositive(_ d: Double, _ key: String) throws -> Double {
        guard d.isFinite, d > 0 else { throw ModelError.invalid("\(key) must contain numbers > 0") }
        // Intervals are times a skip adds to the position (rates share the bound: 10⁹× is no rate).
        return try TimeBound.check(d, key)
    }

    /// `maximumVolume`: > 0 and at most `PlayerVolume.maximum`.
    package static func checkedMaximumVolume(_ d: Double) throws -> Double {
        guard d.isFinite else { throw ModelError.invalid("maximumVolume must be a number") }
        guard d > 0, d <= PlayerVolume.maximum else {
            throw ModelError.invalid("maximumVolume must be a number > 0 and <= \(PlayerVolume.maximum)")
        }
        return d
    }

    /// Applies `patch` for `kind`, all or nothing.
    func applying(_ patch: CommandConfigurationPatch, for kind: RemoteCommandKind) throws -> CommandConfiguration {
        let allowed = kind.configurationKeys
        for key in patch.keys where !allowed.contains(key) { throw ModelError.noSuchProperty(kind, key) }
        var c = self
        if let a = patch.preferredIntervals { c.preferredIntervals = try a.map { try Self.checkedPositive($0, "preferredIntervals") } }
        if let a = patch.supportedPlaybackRates {
            c.supportedPlaybackRates = try a.map { try Self.checkedPositive($0, "supportedPlaybackRates") }
        }
        if let m = patch.currentRepeatType { c.currentRepeatType = m }
        if let m = patch.currentShuffleType { c.currentShuffleType = m }
        if let d = patch.maximumVolume { c.maximumVolume = try Self.checkedMaximumVolume(d) }
        for (key, value) in [("minimumRating", patch.minimumRating), ("maximumRating", patch.maximumRating)] {
            if let d = value, !d.isFinite { throw ModelError.invalid("\(key) must be a number") }
        }
        if let d = patch.minimumRating { c.minimumRating = d }
        if let d = patch.maximumRating { c.maximumRating = d }
        if let b = patch.isActive { c.isActive = b }
        if let s = patch.localizedTitle { c.localizedTitle = s }
        if c.minimumRating > c.maximumRating {
            throw ModelError.invalid("minimumRating must not exceed maximumRating")
        }
        return c
    }
}
