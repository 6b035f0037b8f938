import ArgumentParser

/// `npctl clear` (mpc clear): empties the mpv queue and stops (`mpv.clear`).
struct Clear: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clear",
        abstract: "Empty the queue of an mpv session and stop.",
        discussion: """
            The session stays (npctl close ends it). Success prints nothing.

            Examples:
              npctl clear
              npctl clear --session other
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption

    func run() throws {
        try reporting {
            let remote = try HostLink(global)
            let session = try MPVQueueTarget.session(remote, target)
            MPVQueueTarget.finish(try MPVQueueTarget.call(remote, verb: "clear", "mpv.clear", session: session), global)
        }
    }
}
