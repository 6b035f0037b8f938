import ArgumentParser
import PlayerHostBase
import PlayerHostClient
import PlayerHostModel

/// Repeat and shuffle. Setting goes through the session's command center
/// (`changeRepeatMode`/`changeShuffleMode`) like every other verb: that is the app's own
/// answer to a remote, and what media keys and MPRIS go through. A session whose command is
/// disabled refuses, and npctl says so — it never goes around the command center to the
/// player. Reading shows the command's `currentRepeatType`/`currentShuffleType`, or, when the
/// session does not offer the command, its player 0's mode.
struct ModeSwitch {
    let command: String  // changeRepeatMode
    let payloadKey: String  // repeatType
    let currentKey: String  // currentRepeatType
    let playerKey: String  // repeatMode

    static let loop = ModeSwitch(command: "changeRepeatMode", payloadKey: "repeatType", currentKey: "currentRepeatType",
                                 playerKey: "repeatMode")
    static let shuffle = ModeSwitch(command: "changeShuffleMode", payloadKey: "shuffleType", currentKey: "currentShuffleType",
                                    playerKey: "shuffleMode")

    /// The current mode and where it came from (`command` or `player`).
    func current(_ remote: HostLink, _ target: SessionOption) throws -> (session: String, mode: String, source: String) {
        let id = try remote.resolve(target)
        let s = try remote.call("session.get", ["session": .string(id)])
        let c = s["commands"]?.arrayValue?.first { $0["command"]?.stringValue == command }
        if c?["isAvailable"] == true, let mode = c?[currentKey]?.stringValue { return (id, mode, "command") }
        let mode = s["players"]?.arrayValue?.first?[playerKey]?.stringValue ?? "off"
        return (id, mode, "player")
    }

    /// Sets `mode` through the command center; a disabled command is an error (exit 1).
    func set(_ mode: String, _ remote: HostLink, _ session: String) throws {
        try remote.sendReporting(command, session: session, [payloadKey: .string(mode)])
    }

    func print(_ c: (session: String, mode: String, source: String), json: Bool) {
        if json {
            Swift.print(JSON.object(["session": .string(c.session), "mode": .string(c.mode), "source": .string(c.source)]).jsonString)
        } else {
            Swift.print(c.mode)
        }
    }
}

/// `npctl loop [off|one|all]`.
struct Loop: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loop",
        abstract: "Print or set the loop status: None, Track, Playlist (as playerctl; off, one, all work too).",
        discussion: """
            Setting goes through command changeRepeatMode; a session that has it disabled refuses.

            Examples:
              npctl loop
              npctl loop Track
              npctl loop one -p mpv
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
    @Argument(help: ArgumentHelp("None, Track or Playlist (off, one, all).", valueName: "mode"),
              completion: .list(["None", "Track", "Playlist", "off", "one", "all"])) var mode: String?

    static func normalize(_ s: String) throws -> String {
        switch s.lowercased() {
        case "off", "none": return "off"
        case "one", "track": return "one"
        case "all", "playlist": return "all"
        default:
            PlayerctlFailure.command("Got unknown loop status: '\(s)' (expected 'none', 'playlist', or 'track').").report()
        }
    }

    func run() throws {
        try reporting {
            try ModeSwitch.loop.run(verb: "loop", mode: mode, normalize: Self.normalize, global: global, target: target,
                                    shown: { $0.loop }, offered: { $0.hasLoop })
        }
    }
}

/// `npctl shuffle [off|items|collections|toggle]`.
struct Shuffle: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shuffle",
        abstract: "Print On or Off (as playerctl), or set the shuffle mode: on, off, toggle, items, collections.",
        discussion: """
            Setting goes through command changeShuffleMode; a session that has it disabled refuses.

            Examples:
              npctl shuffle
              npctl shuffle toggle
              npctl shuffle Off -p mpv
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
    @Argument(help: ArgumentHelp("On, Off, Toggle (items, collections).", valueName: "mode"),
              completion: .list(["On", "Off", "Toggle", "items", "collections"])) var mode: String?

    static func normalize(_ s: String) throws -> String {
        switch s.lowercased() {
        case "off": return "off"
        case "items", "on": return "items"
        case "collections": return "collections"
        case "toggle": return "toggle"
        default:
            PlayerctlFailure.command("Got unknown shuffle status: '\(s)' (expected 'on', 'off', or 'toggle').").report()
        }
    }

    func run() throws {
        try reporting {
            try ModeSwitch.shuffle.run(verb: "shuffle", mode: mode, normalize: Self.normalize, global: global, target: target,
                                       shown: { $0.shuffle ? "On" : "Off" }, offered: { $0.hasShuffle },
                                       resolve: { wanted, view in wanted == "toggle" ? (view.shuffle ? "off" : "items") : wanted })
        }
    }
}

extension ModeSwitch {
    /// What `loop` and `shuffle` share, as playerctl runs them: `--follow` (a line per change),
    /// `--json`, then each selected player in turn — set `mode` (after `resolve`, e.g. toggle),
    /// or print the mode as `shown` spells it (or the format). An imported player that does not
    /// offer the mode (`offered`) is skipped for the next, as playerctl skips it.
    func run(verb: String, mode: String?, normalize: (String) throws -> String, global: GlobalOptions, target: SessionOption,
             shown: @escaping (PlayerctlView) -> String, offered: @escaping (PlayerctlView) -> Bool,
             resolve: (String, PlayerctlView) -> String = { wanted, _ in wanted }) throws {
        try global.refuseJSONWithFormat()
        if playerctlOptions.follow, mode == nil {
            let template = try playerctlOptions.format.map(parseTemplate)
            return try Follower(global: global, target: target, verb: verb, template: template, withCommands: true, line: { player, now in
                let view = player.view
                // playerctl skips a player without the mode (an imported one), as without --follow.
                if player.target.isImported, !offered(view) { return nil }
                guard let template else { return shown(view) }
                return template.render(view.context(player: player.target.name, instance: player.target.instance, withMetadata: false, at: now))
            }).run()
        }
        if global.json, mode == nil {
            return print(try current(HostLink(global), target), json: true)
        }
        if mode != nil, playerctlOptions.format != nil {
            PlayerctlFailure.command("format strings are not supported on command functions.").report()
        }
        let wanted = try mode.map(normalize)
        let template = try playerctlOptions.format.map(parseTemplate)
        try PlayerctlRunner.run(global, target, verb: verb, supportsFormat: true) { player in
            let view = try player.view(commands: true)
            if player.target.isImported, !offered(view) { return .skipped }
            if let wanted {
                guard let id = view.session else { return .skipped }
                try set(resolve(wanted, view), player.remote, id)
                return .handled(nil)
            }
            if let template { return .handled(try template.expand(player.context(metadata: false)) + "\n") }
            return .handled(shown(view) + "\n")
        }
    }
}
