/// What changed in a player between two of its values, in the terms of the signals playerctl
/// connects to (`PlayerctlPlayer`'s `playback-status`, `metadata`, `seeked`, `volume`,
/// `loop-status`, `shuffle`).
public struct PlayerChange: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `PlaybackStatus` took another value.
    public static let status = PlayerChange(rawValue: 1)
    public static let metadata = PlayerChange(rawValue: 2)
    /// The position jumped (the export's `Seeked`: `MPRISProperties.seekedPosition`).
    public static let seeked = PlayerChange(rawValue: 4)
    public static let volume = PlayerChange(rawValue: 8)
    public static let loop = PlayerChange(rawValue: 16)
    public static let shuffle = PlayerChange(rawValue: 32)
    public static let all: PlayerChange = [.status, .metadata, .seeked, .volume, .loop, .shuffle]

    /// How far a position may stray from what the previous value predicts before it counts
    /// as a jump (the export's `MPRISProperties.seekTolerance`).
    public static let seekTolerance = 0.25

    /// The changes from `old` to `new` at host time `now` (used for a value without a timestamp).
    /// Loop and shuffle are compared only when both values were built with their commands.
    public static func between(_ old: PlayerctlView, _ new: PlayerctlView, commandsKnown: Bool, now: Double) -> PlayerChange {
        var c: PlayerChange = []
        if old.status != new.status { c.insert(.status) }
        if !old.metadata.elementsEqual(new.metadata, by: { $0.key == $1.key && $0.value == $1.value }) { c.insert(.metadata) }
        if old.volume != new.volume { c.insert(.volume) }
        if commandsKnown {
            if old.loop != new.loop { c.insert(.loop) }
            if old.shuffle != new.shuffle { c.insert(.shuffle) }
        }
        if seeked(from: old.snapshot, to: new.snapshot, now: now) { c.insert(.seeked) }
        return c
    }

    /// The export's rule for `Seeked`: a new track that does not start at 0, or the same track
    /// away from where the old value predicts. Not for a pause, a resume, a rate change, a new
    /// track from its start, or nothing shown.
    static func seeked(from old: InfoSnapshot?, to new: InfoSnapshot?, now: Double) -> Bool {
        guard let new else { return false }
        let at = new.timestamp ?? now
        let position = new.position(at: at)
        guard let old, old.trackID == new.trackID, old.session == new.session else { return position > seekTolerance }
        return abs(position - old.position(at: at)) > seekTolerance
    }
}

/// Which changes make `--follow` print again, as `playerctl-cli.c` wires them: each verb follows
/// its own signal (`status` the playback status, `metadata` the metadata, `position` seeks —
/// not pauses, not the clock —, `volume`, `loop`, `shuffle`); a `--format` template adds the
/// signal of each of `status`, `position`, `volume`, `loop`, `shuffle` it names (never the
/// metadata's); and a template naming `position` is redone every second (`ticks`). A player
/// coming or going always prints. npctl's own verbs (`now`) follow every change.
public struct FollowRule: Sendable, Equatable {
    public var triggers: PlayerChange
    /// Redo the line every second (a printed line equal to the last is still not repeated).
    public var ticks: Bool

    public init(triggers: PlayerChange, ticks: Bool = false) {
        self.triggers = triggers
        self.ticks = ticks
    }

    /// The signal each playerctl verb follows.
    static let signals: [(verb: String, change: PlayerChange)] = [
        ("position", .seeked), ("volume", .volume), ("status", .status), ("loop", .loop), ("shuffle", .shuffle),
        ("metadata", .metadata),
    ]

    /// playerctl's rule for `verb` with `template`; a verb playerctl does not have follows everything.
    public init(verb: String, template: FormatTemplate?) {
        guard let own = Self.signals.first(where: { $0.verb == verb })?.change else {
            self.init(triggers: .all, ticks: false)
            return
        }
        var triggers = own
        if let template {
            for (name, change) in Self.signals where name != "metadata" && template.contains(name) { triggers.insert(change) }
        }
        self.init(triggers: triggers, ticks: template?.contains("position") ?? false)
    }

    /// Whether a line needs the player's commands (loop, shuffle, and whether it can play).
    public var needsCommands: Bool { !triggers.isDisjoint(with: [.loop, .shuffle]) }
}
