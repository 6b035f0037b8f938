import PlayerHostBase

/// A session's own remote command center (≈ MPNowPlayingSession.remoteCommandCenter).
public struct CommandCenter: Sendable, Hashable {
    public private(set) var commands: [RemoteCommandKind: RemoteCommand]

    public init() {
        commands = Dictionary(uniqueKeysWithValues: RemoteCommandKind.allCases.map { ($0, RemoteCommand(kind: $0)) })
    }

    public subscript(kind: RemoteCommandKind) -> RemoteCommand {
        commands[kind] ?? RemoteCommand(kind: kind)
    }

    /// Commands that are enabled and targeted, in table order.
    public var availableCommands: [RemoteCommandKind] {
        RemoteCommandKind.allCases.filter { self[$0].isAvailable }
    }

    /// Whether any command is available (`availableCommands` is not empty), without the array.
    public var hasAvailableCommand: Bool {
        RemoteCommandKind.allCases.contains { self[$0].isAvailable }
    }

    mutating func setEnabled(_ kind: RemoteCommandKind, _ enabled: Bool) {
        commands[kind, default: RemoteCommand(kind: kind)].isEnabled = enabled
    }

    mutating func setConfiguration(_ kind: RemoteCommandKind, _ c: CommandConfiguration) {
        commands[kind, default: RemoteCommand(kind: kind)].configuration = c
    }

    /// Sets `currentRepeatType` / `currentShuffleType` (what remotes show) to a player's modes.
    mutating func follow(repeatMode: RepeatMode? = nil, shuffleMode: ShuffleMode? = nil) {
        if let repeatMode {
            commands[.changeRepeatMode, default: RemoteCommand(kind: .changeRepeatMode)].configuration.currentRepeatType = repeatMode
        }
        if let shuffleMode {
            commands[.changeShuffleMode, default: RemoteCommand(kind: .changeShuffleMode)].configuration.currentShuffleType = shuffleMode
        }
    }

    mutating func addTarget(_ kind: RemoteCommandKind, _ target: CommandTarget) {
        commands[kind, default: RemoteCommand(kind: kind)].targets.append(target)
    }

    /// Removes one target by token (returns whether it was there) or all when `token` is nil.
    @discardableResult
    mutating func removeTarget(_ kind: RemoteCommandKind, token: Int?) -> Bool {
        guard var c = commands[kind] else { return false }
        let before = c.targets.count
        if let token { c.targets.removeAll { $0.token == token } } else { c.targets.removeAll() }
        commands[kind] = c
        return c.targets.count != before
    }

    /// Removes the targets of one command that `matches` picks.
    mutating func removeTargets(_ kind: RemoteCommandKind, where matches: (CommandTarget) -> Bool) {
        guard var c = commands[kind] else { return }
        c.targets.removeAll(where: matches)
        commands[kind] = c
    }

    /// Removes every external target owned by `client`; returns the commands that changed.
    mutating func removeTargets(ownedBy client: ClientID) -> [RemoteCommandKind] {
        var changed: [RemoteCommandKind] = []
        for kind in RemoteCommandKind.allCases {
            guard var c = commands[kind] else { continue }
            let before = c.targets.count
            c.targets.removeAll { $0.handler == .external(client) }
            if c.targets.count != before {
                commands[kind] = c
                changed.append(kind)
            }
        }
        return changed
    }

    /// The command holding `token`, if any.
    func command(holding token: Int) -> RemoteCommandKind? {
        RemoteCommandKind.allCases.first { k in self[k].targets.contains { $0.token == token } }
    }
}

/// A command event as handlers receive it: the command and its normalized payload.
///
/// Normalization fills what the host promises (a skip without `interval` gets
/// `preferredIntervals[0]`) and validates what a handler relies on (a rate among the supported
/// ones, a position, a repeat type…). Unknown payload keys pass through untouched.
public struct CommandEvent: Sendable, Hashable {
    public let command: RemoteCommandKind
    public let payload: [String: JSON]

    public var interval: Double? { payload["interval"]?.doubleValue }
    public var position: Double? { payload["position"]?.doubleValue }
    public var rate: Double? { payload["rate"]?.doubleValue }
    /// `changeVolume`'s level and mute (either may be absent: it keeps its value).
    public var volume: Double? { payload["volume"]?.doubleValue }
    public var muted: Bool? { payload["muted"]?.boolValue }

    /// Validates and completes a sender's payload against the command's configuration.
    init(command: RemoteCommandKind, payload raw: [String: JSON], configuration c: CommandConfiguration) throws {
        var p = raw
        func bad(_ message: String) -> ModelError {
            ModelError.invalid("\(command.rawValue): \(message)", ["command": .string(command.rawValue)])
        }
        func requiredNumber(_ key: String) throws -> Double {
            guard let d = p[key]?.doubleValue, d.isFinite else { throw bad("\(key) (a number) is required") }
            return d
        }
        func requiredEnum(_ key: String, _ allowed: [String]) throws {
            guard let s = p[key]?.stringValue, allowed.contains(s) else {
                throw bad("\(key) must be one of \(allowed.joined(separator: ", "))")
            }
        }
        switch command {
        case .skipForward, .skipBackward:
            if let given = p["interval"], !given.isNull {
                guard let d = given.doubleValue, d.isFinite, d > 0 else { throw bad("interval must be a number > 0") }
                p["interval"] = .double(try TimeBound.check(d, "interval"))
            } else {
                p["interval"] = .double(c.preferredIntervals.first ?? 15)
            }
        case .seekForward, .seekBackward:
            try requiredEnum("type", ["begin", "end"])
        case .changePlaybackPosition:
            let position = try requiredNumber("position")
            guard position >= 0 else { throw bad("position must be >= 0") }
            try TimeBound.check(position, "position")
        case .changePlaybackRate:
            let r = try requiredNumber("rate")
            guard c.supportedPlaybackRates.contains(r) else {
                throw ModelError.invalid(
                    "changePlaybackRate: rate \(r) is not one of supportedPlaybackRates",
                    ["command": "changePlaybackRate", "rate": .double(r),
                     "supportedPlaybackRates": .array(c.supportedPlaybackRates.map { .double($0) })])
            }
        case .changeVolume:
            let level = p["volume"].flatMap { $0.isNull ? nil : $0 }
            let muted = p["muted"].flatMap { $0.isNull ? nil : $0 }
            guard level != nil || muted != nil else { throw bad("volume (a number) or muted (a boolean) is required") }
            if let level {
                guard let d = level.doubleValue else { throw bad("volume must be a number") }
                guard PlayerVolume.isWithin(d, upTo: c.maximumVolume) else {
                    throw ModelError.invalid(
                        "changeVolume: volume \(d) is outside 0...\(c.maximumVolume) (maximumVolume)",
                        ["command": "changeVolume", "volume": .double(d), "maximumVolume": .double(c.maximumVolume)])
                }
            }
            if let muted, muted.boolValue == nil { throw bad("muted must be a boolean") }
        case .changeRepeatMode:
            try requiredEnum("repeatType", RepeatMode.allCases.map(\.rawValue))
        case .changeShuffleMode:
            try requiredEnum("shuffleType", ShuffleMode.allCases.map(\.rawValue))
        case .rating:
            let r = try requiredNumber("rating")
            guard r >= c.minimumRating, r <= c.maximumRating else {
                throw bad("rating must be within [\(c.minimumRating), \(c.maximumRating)]")
            }
        case .like, .dislike, .bookmark:
            if let n = p["isNegative"], !n.isNull {
                guard n.boolValue != nil else { throw bad("isNegative must be a boolean") }
            } else {
                p["isNegative"] = false
            }
        case .enableLanguageOption, .disableLanguageOption:
            guard let o = p["languageOption"], o.objectValue != nil || o.stringValue != nil else {
                throw bad("languageOption (an object or a language tag) is required")
            }
        case .play, .pause, .stop, .togglePlayPause, .nextTrack, .previousTrack:
            break
        }
        self.command = command
        self.payload = p
    }
}
