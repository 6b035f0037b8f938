import ArgumentParser
import PlayerHostBase
import PlayerHostModel

/// `npctl remove N` (mpc del): removes item N of the mpv queue (`mpv.remove`).
struct Remove: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove item N (as npctl queue numbers it) from the queue of an mpv session.",
        discussion: """
            Removing the item that plays plays the next one. Success prints nothing.

            Examples:
              npctl remove 3
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption

    @Argument(help: ArgumentHelp("Position in the queue, from 1.", valueName: "n"))
    var position: Int

    func run() throws {
        try reporting {
            let index = try MPVQueueTarget.index(position, verb: "remove")
            let remote = try HostLink(global)
            let session = try MPVQueueTarget.session(remote, target)
            MPVQueueTarget.finish(try MPVQueueTarget.call(remote, verb: "remove", "mpv.remove", session: session,
                                                          ["index": index]), global)
        }
    }
}
