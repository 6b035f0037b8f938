import ArgumentParser
import PlayerHostBase
import PlayerHostModel

/// `npctl add FILE|URL…` (mpc add): `npctl open --append`.
struct Add: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add files or URLs after the last item of the mpv queue (npctl open --append).",
        discussion: """
            What plays, and whether, stays as it was. Success prints nothing.

            Examples:
              npctl add ~/Music/album/*.flac
              npctl add --session other song.ogg
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption

    @Argument(help: ArgumentHelp("Files or URLs (http://…).", valueName: "file|url"), completion: .file())
    var items: [String]

    func run() throws {
        try reporting {
            guard !items.isEmpty else { throw Failure("add: give at least one file or URL", code: 2) }
            let urls = try items.map(Open.resolve)
            let remote = try HostLink(global)
            let session = try MPVQueueTarget.session(remote, target)
            MPVQueueTarget.finish(try MPVQueueTarget.call(remote, verb: "add", "mpv.open", session: session,
                                                          Open.params(urls, mode: "append")), global)
        }
    }
}
