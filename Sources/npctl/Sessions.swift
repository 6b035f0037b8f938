import ArgumentParser
import PlayerHostBase
import PlayerHostModel
import PlayerHostRPC

/// `npctl sessions`: every session as a table; `*` marks the Now Playing one.
struct Sessions: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sessions",
        abstract: "List sessions: id, kind, app, active, state, can-become-active (* = Now Playing).",
        discussion: """
            Examples:
              npctl sessions
              npctl --json sessions
            """)
    @OptionGroup var global: GlobalOptions

    func run() throws {
        try reporting {
            let list = try Remote(global).call("session.list")
            if global.json { return print(JSONPretty.format(list)) }
            func yesNo(_ v: JSON?) -> String { v == true ? "yes" : "no" }
            var rows = [["", "ID", "KIND", "APP", "ACTIVE", "STATE", "CAN-BECOME-ACTIVE"]]
            for s in list.arrayValue ?? [] {
                rows.append([s["isNowPlaying"] == true ? "*" : "", s["id"]?.stringValue ?? "?", s["kind"]?.stringValue ?? "?",
                             appLabel(s), yesNo(s["isActive"]), s["playbackState"]?.stringValue ?? "?",
                             yesNo(s["canBecomeActive"])])
            }
            if rows.count == 1 { return print("no sessions") }
            for line in Table.render(rows) { print(line) }
        }
    }
}

/// The app of a session or report as a person knows it: its id, and the name it gave when that
/// says more (an imported player's Identity: `fake-player (Fake Player)`).
func appLabel(_ s: JSON) -> String {
    let id = s["app"]?.stringValue ?? "?"
    guard let name = s["appName"]?.stringValue, name != id else { return id }
    return "\(id) (\(name))"
}

/// Left-aligned columns, two spaces apart, trailing spaces trimmed.
enum Table {
    static func render(_ rows: [[String]]) -> [String] {
        let widths = (0..<(rows.map(\.count).max() ?? 0)).map { c in rows.map { c < $0.count ? $0[c].count : 0 }.max() ?? 0 }
        return rows.map { row in
            var line = ""
            for (c, cell) in row.enumerated() {
                line += cell + String(repeating: " ", count: widths[c] - cell.count + 2)
            }
            while line.last == " " { line.removeLast() }
            return line
        }
    }
}

/// `npctl promote ID`: PiP expand — the session becomes its app's active session.
struct Promote: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "promote",
        abstract: "Make a session its app's active session (session.becomeActiveIfPossible); exit 1 with the reason if it cannot.",
        discussion: """
            This is picture-in-picture expanded: the session becomes Now Playing if it is \
            eligible. A session whose audio was interrupted is not: \
            `npctl activate` it first.

            Examples:
              npctl promote pip
              npctl activate pip && npctl promote pip
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
    @Argument(help: ArgumentHelp("Session id (or give -s).", valueName: "id")) var id: String?

    func run() throws {
        try reporting {
            let id = try SessionArgument.pick(id, target, verb: "promote")
            let r = try Remote(global).call("session.becomeActiveIfPossible", ["session": .string(id)])
            if global.json { print(r.jsonString) }
            guard r["active"] == true else {
                throw Failure("\(id) cannot become active: \(r["reason"]?.stringValue ?? "not eligible")")
            }
            if !global.json { print("\(id) is now its app's active session") }
        }
    }
}

/// `npctl demote ID`: PiP minimize — the app's next eligible session takes over.
struct Demote: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demote",
        abstract: "Stop a session being its app's active session (session.resignActive); another eligible one takes over.",
        discussion: """
            This is picture-in-picture minimized.

            Examples:
              npctl demote pip
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
    @Argument(help: ArgumentHelp("Session id (or give -s).", valueName: "id")) var id: String?

    func run() throws {
        try reporting {
            let id = try SessionArgument.pick(id, target, verb: "demote")
            let r = try Remote(global).call("session.resignActive", ["session": .string(id)])
            if global.json { print(r.jsonString) }
            if r["active"] != false || r["reason"] != nil {
                throw Failure("cannot demote \(id): \(r["reason"]?.stringValue ?? "it is still active")")
            }
            if !global.json { print("\(id) is no longer its app's active session") }
        }
    }
}

/// The session a promote/demote means: the argument, else `-s`. Never the Now Playing
/// default — promoting "whatever plays" is never what anyone means.
enum SessionArgument {
    static func pick(_ argument: String?, _ option: SessionOption, verb: String) throws -> String {
        guard let id = argument ?? option.session else { throw Failure("name a session, e.g. npctl \(verb) pip", code: 2) }
        return id
    }
}
