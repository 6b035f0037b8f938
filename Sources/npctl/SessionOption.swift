import ArgumentParser
import Glibc
import PlayerHostBase
import PlayerHostClient
import PlayerHostModel

/// `--session ID`, taken by every verb that acts on one session. (`-s` is playerctl's
/// `--no-messages`; `-p/--player` names players, see `PlayerctlArguments`.)
struct SessionOption: ParsableArguments {
    @Option(name: .customLong("session"), help: ArgumentHelp("Session id (default: the Now Playing session).", valueName: "id"),
            completion: .custom { _, _, _ in SessionOption.sessionIDs() })
    var named: String?

    /// The player `--follow` follows, for `{{playerName}}` and the metadata table: the one
    /// `--session` or `-p` names, else the exported player.
    var followed: PlayerTarget {
        if let named { return PlayerTarget(instance: named, session: named) }
        if let id = session { return PlayerTarget(instance: String(id.dropFirst(PlayerTarget.importPrefix.count)), session: id) }
        return PlayerTarget(instance: PlayerTarget.exported, session: nil)
    }

    /// The daemon's session ids, for shell completion (none when it does not answer at once).
    static func sessionIDs() -> [String] {
        guard let client = try? ControlClient(path: SocketLocation.resolve(explicit: nil), timeout: 1),
              let list = try? client.call("session.list") else { return [] }
        return list.arrayValue?.compactMap { $0["id"]?.stringValue } ?? []
    }

    /// The session meant: `--session`, else the one player `-p` names when it is an imported
    /// one (`-p mpv` → `mpris-mpv`), else nil (the Now Playing session).
    var session: String? {
        if let named { return named }
        guard let first = playerctlOptions.selection.players?.first, first != "%any", first != PlayerTarget.exported else { return nil }
        return PlayerTarget.importPrefix + first
    }
}
