import ArgumentParser
import PlayerHost

/// Repeat and shuffle, which live in two places: the session's command center
/// (`changeRepeatMode`/`changeShuffleMode` with `currentRepeatType`/`currentShuffleType`) and
/// its players (`repeatMode`/`shuffleMode`).
///
/// Which one we use: the command center when the session offers the command (enabled and
/// targeted), because that is the app's own answer to a remote — it may do more than flip a
/// player flag, and it is what media keys and MPRIS go through. Only when the command is
/// unavailable (the demo's clock sessions: `bindDefaults` does not cover repeat/shuffle) do we
/// fall back to `player.setRepeat`/`player.setShuffle` on the session's player 0, which is
/// what the app itself would have done.
struct ModeSwitch {
    let command: String  // changeRepeatMode
    let payloadKey: String  // repeatType
    let currentKey: String  // currentRepeatType
    let playerMethod: String  // player.setRepeat
    let playerKey: String  // repeatMode

    static let loop = ModeSwitch(command: "changeRepeatMode", payloadKey: "repeatType", currentKey: "currentRepeatType",
                                 playerMethod: "player.setRepeat", playerKey: "repeatMode")
    static let shuffle = ModeSwitch(command: "changeShuffleMode", payloadKey: "shuffleType", currentKey: "currentShuffleType",
                                    playerMethod: "player.setShuffle", playerKey: "shuffleMode")

    /// The current mode and where it came from (`command` or `player`).
    func current(_ remote: Remote, _ target: SessionOption) throws -> (session: String, mode: String, source: String) {
        let id = try remote.resolve(target)
        let s = try remote.call("session.get", ["session": .string(id)])
        let c = s["commands"]?.arrayValue?.first { $0["command"]?.stringValue == command }
        if c?["isAvailable"] == true, let mode = c?[currentKey]?.stringValue { return (id, mode, "command") }
        let mode = s["players"]?.arrayValue?.first?[playerKey]?.stringValue ?? "off"
        return (id, mode, "player")
    }

    /// Sets `mode`: through the command when it is available, else on player 0.
    func set(_ mode: String, _ remote: Remote, _ target: SessionOption) throws {
        var p: [String: JSON] = ["command": .string(command), payloadKey: .string(mode)]
        if let id = target.session { p["session"] = .string(id) }
        let sent: JSON?
        do throws(ClientError) { sent = try remote.client.call("command.send", p) } catch {
            let unavailable = [RPCErrorCode.commandDisabled, .commandHasNoTarget].map(\.rawValue)
            guard case .rpc(let e) = error, unavailable.contains(e.code) else { throw Remote.failure(error) }
            sent = nil
        }
        if let r = sent {
            if remote.global.json { Swift.print(r.jsonString) }
            let status = r["status"]?.stringValue ?? "unknown"
            if status != "success" { throw Failure("\(command) on \(r["session"]?.stringValue ?? "?"): \(status)") }
            return
        }
        let id = try remote.resolve(target)
        let player = try remote.call(playerMethod, ["session": .string(id), "player": 0, "mode": .string(mode)])
        if remote.global.json { Swift.print(player.jsonString) }
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
        abstract: "Print or set the repeat mode: off, one, all (playerctl's None, Track, Playlist work too).")
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
        abstract: "Print or set the shuffle mode: off, items, collections, or toggle (on = items).")
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
