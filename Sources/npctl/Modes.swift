import ArgumentParser
import PlayerHostBase
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
    func current(_ remote: Remote, _ target: SessionOption) throws -> (session: String, mode: String, source: String) {
        let id = try remote.resolve(target)
        let s = try remote.call("session.get", ["session": .string(id)])
        let c = s["commands"]?.arrayValue?.first { $0["command"]?.stringValue == command }
        if c?["isAvailable"] == true, let mode = c?[currentKey]?.stringValue { return (id, mode, "command") }
        let mode = s["players"]?.arrayValue?.first?[playerKey]?.stringValue ?? "off"
        return (id, mode, "player")
    }

    /// Sets `mode` through the command center; a disabled command is an error (exit 1).
    func set(_ mode: String, _ remote: Remote, _ target: SessionOption) throws {
        try remote.sendReporting(command, session: target.session, [payloadKey: .string(mode)])
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
        abstract: "Print or set the repeat mode: off, one, all (playerctl's None, Track, Playlist work too).",
        discussion: """
            Setting goes through command changeRepeatMode; a session that has it disabled refuses.

            Examples:
              npctl loop
              npctl loop one
              npctl loop Playlist -s mpv
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
    @Argument(help: ArgumentHelp("off, one or all.", valueName: "mode")) var mode: String?

    static func normalize(_ s: String) throws -> String {
        switch s.lowercased() {
        case "off", "none": return "off"
        case "one", "track": return "one"
        case "all", "playlist": return "all"
        default: throw Failure("loop: '\(s)' is not off, one or all", code: 2)
        }
    }

    func run() throws {
        try reporting {
            let wanted = try mode.map(Self.normalize)
            let remote = try Remote(global)
            if let wanted { return try ModeSwitch.loop.set(wanted, remote, target) }
            ModeSwitch.loop.print(try ModeSwitch.loop.current(remote, target), json: global.json)
        }
    }
}

/// `npctl shuffle [off|items|collections|toggle]`.
struct Shuffle: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "shuffle",
        abstract: "Print or set the shuffle mode: off, items, collections, or toggle (on = items).",
        discussion: """
            Setting goes through command changeShuffleMode; a session that has it disabled refuses.

            Examples:
              npctl shuffle
              npctl shuffle toggle
              npctl shuffle off -s mpv
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
    @Argument(help: ArgumentHelp("off, items, collections or toggle.", valueName: "mode")) var mode: String?

    static func normalize(_ s: String) throws -> String {
        switch s.lowercased() {
        case "off": return "off"
        case "items", "on": return "items"
        case "collections": return "collections"
        case "toggle": return "toggle"
        default: throw Failure("shuffle: '\(s)' is not off, items, collections or toggle", code: 2)
        }
    }

    func run() throws {
        try reporting {
            var wanted = try mode.map(Self.normalize)
            let remote = try Remote(global)
            if wanted == "toggle" { wanted = try ModeSwitch.shuffle.current(remote, target).mode == "off" ? "items" : "off" }
            if let wanted { return try ModeSwitch.shuffle.set(wanted, remote, target) }
            ModeSwitch.shuffle.print(try ModeSwitch.shuffle.current(remote, target), json: global.json)
        }
    }
}
