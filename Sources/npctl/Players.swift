import ArgumentParser
import Glibc
import PlayerHostBase
import PlayerHostClient
import PlayerHostRPC

/// A player as `playerctl -l` names it: the daemon's exported MPRIS player `playerhost` (the
/// session the export shows: `mpris.get`), an imported MPRIS player by its bus name (`mpv`, session
/// `mpris-mpv`), or a session named with `--session`.
struct PlayerTarget: Equatable {
    static let exported = "playerhost"
    static let importPrefix = "mpris-"

    /// `playerhost`, `mpv.instance42`, or a session id.
    let instance: String
    /// The session; nil for the Now Playing one.
    let session: String?

    /// An imported MPRIS player (its properties are its own, not the export's).
    var isImported: Bool { session?.hasPrefix(Self.importPrefix) == true && session != instance }

    /// `{{playerName}}` and the metadata table's first column: the instance without its suffix.
    var name: String { instance.split(separator: ".", maxSplits: 1).first.map(String.init) ?? instance }
}

/// One player's state, fetched on first use.
final class PlayerState {
    let target: PlayerTarget
    let remote: HostLink
    private var rawCache: JSON?
    private var viewCache: PlayerctlView?
    private var viewCacheHasCommands = false

    init(_ target: PlayerTarget, _ remote: HostLink) {
        self.target = target
        self.remote = remote
    }

    /// The snapshot reply (null: nothing shown). `playerhost` is what the export shows
    /// (`mpris.get`: by default the host's own session, never an imported player), so npctl's
    /// `playerhost` is the desktop's; a daemon without that method shows the Now Playing one.
    func raw() throws -> JSON {
        if let rawCache { return rawCache }
        let r = try target.session.map { try remote.call("info.get", ["session": .string($0)]) } ?? exported()
        rawCache = r
        return r
    }

    private func exported() throws -> JSON {
        do throws(ClientError) { return try remote.client.call("mpris.get") } catch {
            guard case .rpc(let e) = error, e.code == RPCErrorCode.methodNotFound.rawValue else { throw HostLink.failure(error) }
            return try remote.call("nowPlaying.get")
        }
    }

    /// The MPRIS view, with the command center when `commands` (transport, loop, metadata).
    func view(commands: Bool = false) throws -> PlayerctlView {
        if let viewCache, !commands || viewCache.session == nil || viewCacheHasCommands { return viewCache }
        let r = try raw()
        var list: [JSON]?
        if commands, let id = r["session"]?.stringValue {
            list = try remote.call("session.get", ["session": .string(id)])["commands"]?.arrayValue ?? []
            viewCacheHasCommands = true
        }
        let v = PlayerctlView(raw: r, commands: list, language: remote.global.language)
        viewCache = v
        return v
    }

    func context(metadata: Bool) throws -> (String) -> PlayerValue? {
        try view(commands: true).context(player: target.name, instance: target.instance, withMetadata: metadata, at: InfoSnapshot.hostNow())
    }
}

/// What a verb did on one player: playerctl's `TRUE` (handled, maybe with output) or
/// `FALSE` (this player cannot: try the next).
enum PlayerOutcome {
    case handled(String?)
    case skipped
}

/// A failure printed as playerctl prints it (its own line first, as is), then npctl's hints.
struct PlayerctlFailure: Error {
    var line: String
    var hints: [String] = []
    /// `-s` silences "No players found" and "No player could handle this command".
    var silenceable = false
    var code: Int32 = 1

    static func noPlayers(_ hints: [String] = []) -> PlayerctlFailure {
        PlayerctlFailure(line: "No players found", hints: hints, silenceable: true)
    }
    static let cannotHandle = PlayerctlFailure(line: "No player could handle this command", silenceable: true)
    static func command(_ message: String) -> PlayerctlFailure { PlayerctlFailure(line: "Could not execute command: " + message) }

    func report() -> Never {
        if !(silenceable && playerctlOptions.noMessages) {
            Stderr.write(line + "\n")
            for h in hints { Stderr.write("npctl: " + h + "\n") }
        }
        Glibc.exit(code)
    }
}

/// playerctl's main loop for one verb: the selected players in order, the verb on each until
/// one handles it (every one with `-a`), and its messages when none is there or none can.
enum PlayerctlRunner {
    /// Runs `verb` on the selected players and prints what it returns.
    static func run(_ global: GlobalOptions, _ option: SessionOption, verb: String, supportsFormat: Bool,
                    _ body: (PlayerState) throws -> PlayerOutcome) throws {
        let o = playerctlOptions
        try global.refuseJSONWithFormat()
        if o.format != nil, !supportsFormat { PlayerctlFailure.command("format strings are not supported on command: \(verb)").report() }
        if o.follow { PlayerctlFailure.command("follow is not supported on command: \(verb)").report() }
        let remote: HostLink
        do { remote = try HostLink(global) } catch let f as Failure { PlayerctlFailure.noPlayers([f.message]).report() }
        let targets = try Self.targets(remote, option)
        var handled = false
        for t in targets {
            let state = PlayerState(t, remote)
            let outcome: PlayerOutcome
            do { outcome = try body(state) } catch let e as TemplateError {
                PlayerctlFailure.command(e.message).report()
            }
            guard case .handled(let output) = outcome else { continue }
            handled = true
            if let output { print(output, terminator: ""); fflush(nil) }
            if !o.allPlayers, !o.allSessions { break }
        }
        if !handled {
            var f = PlayerctlFailure.cannotHandle
            f.hints = ["\(verb): \(targets.map(\.instance).joined(separator: ", ")) cannot (not available now, or no such value)"]
            f.report()
        }
    }

    /// The players a verb acts on, in order; none is "No players found" with what exists.
    static func targets(_ remote: HostLink, _ option: SessionOption) throws -> [PlayerTarget] {
        let selection = playerctlOptions.selection
        if playerctlOptions.allSessions {
            return try remote.sessionIDs().map { PlayerTarget(instance: $0, session: $0) }
        }
        if let id = option.named {
            do throws(ClientError) { _ = try remote.client.call("info.get", ["session": .string(id)]) } catch {
                let ids = (try? remote.sessionIDs()) ?? []
                PlayerctlFailure.noPlayers([Self.unknown("session", id, ids)]).report()
            }
            return [PlayerTarget(instance: id, session: id)]
        }
        // Without -p/-i/-a (or with only `-p playerhost`), the exported player is all it takes: no
        // list. `-a` is every player, imported ones included, as playerctl's.
        if selection.ignored.isEmpty, !playerctlOptions.allPlayers || selection.players == [PlayerTarget.exported],
           selection.players == nil || selection.players == [PlayerTarget.exported] {
            return [PlayerTarget(instance: PlayerTarget.exported, session: nil)]
        }
        let all = try available(remote)
        let chosen = selection.select(all.map(\.instance))
        guard !chosen.isEmpty else {
            let names = all.map(\.instance)
            let asked = selection.players?.first { $0 != "%any" } ?? ""
            PlayerctlFailure.noPlayers([Self.unknown("player", asked, names)]).report()
        }
        return chosen.compactMap { c in all.first { $0.instance == c } }
    }

    /// Every player `-l` shows: `playerhost`, then each imported MPRIS player.
    static func available(_ remote: HostLink) throws -> [PlayerTarget] {
        let imported = try remote.sessionIDs().filter { $0.hasPrefix(PlayerTarget.importPrefix) }.map {
            PlayerTarget(instance: String($0.dropFirst(PlayerTarget.importPrefix.count)), session: $0)
        }
        return [PlayerTarget(instance: PlayerTarget.exported, session: nil)] + imported
    }

    /// `no player 'spotfy' (players: playerhost, spotify; did you mean 'spotify'?)`.
    static func unknown(_ what: String, _ name: String, _ existing: [String]) -> String {
        var s = "no \(what) '\(name)' (\(what == "session" ? "sessions" : "players"): "
        s += existing.isEmpty ? "none" : existing.joined(separator: ", ")
        if let near = VerbSuggestion.closest(to: name, in: existing) { s += "; did you mean '\(near)'?" }
        return s + ")"
    }
}

/// `npctl -l`: the player names, as `playerctl -l` prints them (filtered by `-p`/`-i`).
enum ListAll {
    static func run(_ rest: [String]) -> Int32 {
        // Parsed, not built: the parser's options cannot be read before a parse.
        guard let global = (try? GlobalOptions.parse(rest)) ?? (try? GlobalOptions.parse([])),
              let remote = try? HostLink(global), let all = try? PlayerctlRunner.available(remote) else {
            if !playerctlOptions.noMessages { Stderr.write("No players found\n") }
            return 0
        }
        let selection = playerctlOptions.selection
        let shown = selection.sorted(all.map(\.instance)).filter(selection.isSelected)
        for name in shown { print(name) }
        if shown.isEmpty, !playerctlOptions.noMessages { Stderr.write("No players found\n") }
        return 0
    }
}
