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
