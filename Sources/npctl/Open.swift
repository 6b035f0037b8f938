import ArgumentParser
import Glibc
import PlayerHostBase
import PlayerHostClient
import PlayerHostModel
import PlayerHostRPC

/// `npctl open FILE|URL… [--append | --next] [--session ID]`: play files in an mpv session
/// (`mpv.open`), as `mpv FILE` does; or queue them, as mpc's `add` and `insert` do.
struct Open: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open",
        abstract: "Play files or URLs in an mpv session (created if needed), replacing its queue.",
        discussion: """
            The files replace the queue of the mpv session and the first plays now, as \
            `mpv FILE` does. --append adds them after the last item (mpc add, npctl add) and \
            --next right after the current one (mpc insert); neither changes what plays. \
            Without --session: the Now Playing session if it is an mpv one, else the mpv \
            session used last, or a new one. Relative files are made absolute (the daemon runs \
            elsewhere). Success prints nothing (--json prints the session).

            Examples:
              npctl open song.ogg
              npctl open --append ~/Music/*.flac
              npctl open --next https://example.org/radio.mp3
              npctl open --session other ~/Music/album/*.flac
            """)
    @OptionGroup var global: GlobalOptions
    @OptionGroup var target: SessionOption

    @Flag(name: .long, help: "Add after the last item instead of replacing the queue (mpc add).")
    var append = false

    @Flag(name: .long, help: "Add right after the current item instead of replacing the queue (mpc insert).")
    var next = false

    /// The default since `open` plays; kept so scripts written for the old default still run.
    @Flag(name: .long, help: ArgumentHelp("Replace the queue (the default).", visibility: .hidden))
    var replace = false

    @Argument(help: ArgumentHelp("Files or URLs (http://…).", valueName: "file|url"))
    var items: [String]

    /// A URL (`scheme://…`) as given; a file made absolute and checked, so a typo fails here
    /// rather than later inside mpv.
    static func resolve(_ item: String) throws -> String {
        if let r = item.firstRange(of: "://"), !item[..<r.lowerBound].isEmpty,
           item[..<r.lowerBound].allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) {
            return item
        }
        guard access(item, R_OK) == 0 else {
            throw Failure("open: cannot read '\(item)': \(String(cString: strerror(errno)))", code: 2)
        }
        guard let p = realpath(item, nil) else { return item }
        defer { free(p) }
        return String(cString: p)
    }

    /// `mpv.open`'s params for `urls` in `mode` (nil: replace, the default).
    static func params(_ urls: [String], mode: String?) -> [String: JSON] {
        var p: [String: JSON] = ["urls": .array(urls.map(JSON.string))]
        if let mode { p[mode] = true }
        return p
    }

    func run() throws {
        try reporting {
            guard !items.isEmpty else { throw Failure("open: give at least one file or URL", code: 2) }
            guard [append, next, replace].filter({ $0 }).count <= 1 else {
                throw Failure("open: --append, --next and --replace are one or the other", code: 2)
            }
            let urls = try items.map(Self.resolve)
            let remote = try Remote(global)
            let session = try MPVQueueTarget.session(remote, target)
            let mode = append ? "append" : next ? "next" : nil
            MPVQueueTarget.finish(try MPVQueueTarget.call(remote, verb: "open", "mpv.open", session: session,
                                                          Self.params(urls, mode: mode)), global)
        }
    }
}
