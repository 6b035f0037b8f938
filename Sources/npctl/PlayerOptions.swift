import ArgumentParser
import PlayerHostBase
import PlayerHostClient

/// playerctl's `-p/--player` and `-i/--ignore-player`, declared for help and shell completion
/// only: `PlayerctlArguments` takes them off the command line before the parser runs (they may
/// stand anywhere, as GOption allows), so the parser never fills these. Declared here, the
/// generated bash, zsh and fish scripts complete their values with the players there are.
struct PlayerOptions: ParsableArguments {
    @Option(name: [.customShort("p"), .customLong("player")],
            help: ArgumentHelp("Players to act on, in order of preference (comma list, %any; as `npctl -l` lists them).", valueName: "names"),
            completion: .custom { _, _, _ in PlayerOptions.playerNames() })
    var player: String?

    @Option(name: [.customShort("i"), .customLong("ignore-player")],
            help: ArgumentHelp("Players to leave alone (comma list).", valueName: "names"),
            completion: .custom { _, _, _ in PlayerOptions.playerNames() })
    var ignorePlayer: String?

    /// The players `npctl -l` lists (the exported `playerhost`, then each imported MPRIS
    /// player's name) and `%any`, for shell completion; only those two when the daemon does not
    /// answer at once.
    static func playerNames() -> [String] {
        var names = [PlayerTarget.exported]
        if let client = try? ControlClient(path: SocketLocation.resolve(explicit: nil), timeout: 1),
           let list = try? client.call("session.list") {
            let ids = list.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
            names += ids.filter { $0.hasPrefix(PlayerTarget.importPrefix) }.map { String($0.dropFirst(PlayerTarget.importPrefix.count)) }
        }
        return names + ["%any"]
    }
}
