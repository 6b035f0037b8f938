import ArgumentParser
import PlayerHostBase
import PlayerHostModel
import PlayerHostRPC

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
            let r = try HostLink(global).call("session.resignActive", ["session": .string(id)])
            if global.json { print(r.jsonString) }
            if r["active"] != false || r["reason"] != nil {
                throw Failure("cannot demote \(id): \(r["reason"]?.stringValue ?? "it is still active")")
            }
            if !global.json { print("\(id) is no longer its app's active session") }
        }
    }
}
