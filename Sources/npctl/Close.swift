import ArgumentParser
import PlayerHostBase
import PlayerHostModel

/// `npctl close --session ID`: ends a session (`session.close`; an mpv session's mpv stops).
struct Close: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "close",
        abstract: "End the session given with --session (an mpv session's mpv stops).",
        discussion: """
            It refuses without --session: ending whatever is Now Playing by accident is not \
            undone. Success prints nothing.

            Examples:
              npctl close --session mpv
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption

    func run() throws {
        try reporting {
            guard let id = target.session else {
                throw Failure("close: name the session to end with --session (npctl sessions lists them)", code: 2)
            }
            let r = try HostLink(global).call("session.close", ["session": .string(id)])
            if global.json { print(JSON.object(["session": .string(id), "closed": r]).jsonString) }
        }
    }
}
