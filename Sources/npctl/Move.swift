import ArgumentParser
import PlayerHostBase
import PlayerHostModel

/// `npctl move FROM TO` (mpc move): item FROM of the mpv queue ends at position TO (`mpv.move`).
struct Move: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "move",
        abstract: "Move item FROM of the queue of an mpv session to position TO (as npctl queue numbers them).",
        discussion: """
            What plays goes on playing. Success prints nothing.

            Examples:
              npctl move 5 1     # item 5 becomes the first
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption

    @Argument(help: ArgumentHelp("Position of the item, from 1.", valueName: "from"))
    var from: Int

    @Argument(help: ArgumentHelp("Position it ends at, from 1.", valueName: "to"))
    var to: Int

    func run() throws {
        try reporting {
            let params = ["from": try MPVQueueTarget.index(from, verb: "move"), "to": try MPVQueueTarget.index(to, verb: "move")]
            let remote = try HostLink(global)
            let session = try MPVQueueTarget.session(remote, target)
            MPVQueueTarget.finish(try MPVQueueTarget.call(remote, verb: "move", "mpv.move", session: session, params), global)
        }
    }
}
