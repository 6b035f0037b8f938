import ArgumentParser
import PlayerHostBase
import PlayerHostClient
import PlayerHostModel

/// `npctl activate ID`: activates a session's audio session (`audio.activate`) — the repair
/// for a session whose audio another app interrupted, after which `promote` can succeed.
struct Activate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activate",
        abstract: "Activate a session's audio session (audio.activate), e.g. after another session interrupted it.",
        discussion: """
            A non-mixable session that becomes active interrupts the other non-mixable ones, \
            which then cannot become Now Playing until their audio is active again. This is \
            what an app does when the user presses play in it again.

            Examples:
              npctl activate pip
              npctl activate pip && npctl promote pip
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption
    @Argument(help: ArgumentHelp("Session id (or give -s).", valueName: "id")) var id: String?

    func run() throws {
        try reporting {
            let id = try SessionArgument.pick(id, target, verb: "activate")
            let r = try HostLink(global).call("audio.activate", ["session": .string(id)])
            if global.json { return print(r.jsonString) }
            print("\(id)'s audio session is active")
        }
    }
}
