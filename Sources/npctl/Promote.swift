import ArgumentParser
import PlayerHostBase
import PlayerHostModel
import PlayerHostRPC

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
            let r = try HostLink(global).call("session.becomeActiveIfPossible", ["session": .string(id)])
            if global.json { print(r.jsonString) }
            guard r["active"] == true else {
                throw Failure("\(id) cannot become active: \(r["reason"]?.stringValue ?? "not eligible")")
            }
            if !global.json { print("\(id) is now its app's active session") }
        }
    }
}
